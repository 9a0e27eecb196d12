/**
 * Taking turns on the event loop. Work whose size a policy decides (matching hundreds of
 * patterns, running identity expressions) is cut into slices of about a millisecond, and a
 * slice that has run long enough waits for {@linkcode TurnScheduler.next} before going on.
 *
 * Two things make that harder than a `setTimeout(0)` in each piece of work:
 *
 * - when 64 reviews yield at once, their 64 timers fall due together and the runtime runs them
 *   all in one timers phase, before it looks at any socket: the scheduler resumes **one** waiter
 *   per turn of the event loop, in the order they came;
 * - when 64 reviews become runnable at once (their bodies read in one go), they all run in one
 *   microtask checkpoint, and 64 slices of their own would hold the loop 64 times as long: the
 *   slice is **shared**. All work that uses the scheduler counts against one budget of steps and
 *   time; once it is spent, every piece of work that checks {@linkcode TurnScheduler.due} waits
 *   for a later turn. A new slice starts when a waiter is resumed, or when no sliced work has
 *   checked in for a while (the loop was free meanwhile).
 *
 * @module
 */

/** What cuts long work into slices: how far the current slice went, and when it is enough. */
export interface Slicer {
  /** Receives the steps taken (characters compared, patterns tried). */
  readonly counter: { steps: number };
  /** Whether the current slice has run long enough. */
  due(): boolean;
  /** Waits for a later turn of the event loop (a new slice starts then). */
  next(): Promise<void>;
}

/** How long a slice may run. */
export interface SliceBounds {
  /** Steps of a slice. @default 100,000 (about a millisecond of warm code) */
  readonly maxSteps?: number;
  /** Time of a slice, in ms: bounds it also while the code is still cold. @default 2 */
  readonly maxMs?: number;
  /**
   * A pause of sliced work this long (ms) means the loop was free: the next check starts a new
   * slice. @default 5
   */
  readonly idleMs?: number;
  /** The clock in ms. @default `performance.now` */
  readonly now?: () => number;
}

/**
 * One slice budget for the process, and the queue of work waiting for its next turn: resumes
 * one waiter per turn of the event loop, first come first served.
 */
export class TurnScheduler implements Slicer {
  /** The steps of the current slice. */
  readonly counter = { steps: 0 };
  readonly #queue: (() => void)[] = [];
  readonly #maxSteps: number;
  readonly #maxMs: number;
  readonly #idleMs: number;
  readonly #now: () => number;
  #scheduled = false;
  #sliceStart: number;
  #lastCheck: number;

  /** Creates the scheduler with its slice bounds. */
  constructor(bounds: SliceBounds = {}) {
    this.#maxSteps = bounds.maxSteps ?? 100_000;
    this.#maxMs = bounds.maxMs ?? 2;
    this.#idleMs = bounds.idleMs ?? 5;
    this.#now = bounds.now ?? (() => performance.now());
    this.#sliceStart = this.#lastCheck = -Infinity;
  }

  /** Whether the current slice (shared by all work) has run long enough. */
  due(): boolean {
    const now = this.#now();
    if (now - this.#lastCheck > this.#idleMs && this.#queue.length === 0) this.#startSlice(now);
    this.#lastCheck = now;
    return this.counter.steps > this.#maxSteps || now - this.#sliceStart > this.#maxMs;
  }

  /** Resolves on a later turn of the event loop, after the work that waited before. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.#queue.push(resolve);
      this.#schedule();
    });
  }

  /** Waiters not resumed yet. */
  get waiting(): number {
    return this.#queue.length;
  }

  #startSlice(now: number): void {
    this.#sliceStart = now;
    this.#lastCheck = now;
    this.counter.steps = 0;
  }

  #schedule(): void {
    if (this.#scheduled || this.#queue.length === 0) return;
    this.#scheduled = true;
    setTimeout(() => {
      this.#scheduled = false;
      const resume = this.#queue.shift();
      if (resume) {
        this.#startSlice(this.#now());
        resume();
      }
      // The resumed work runs in this turn's microtasks; the next waiter waits for a new turn.
      this.#schedule();
    }, 0);
  }
}
