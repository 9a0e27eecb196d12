/**
 * Deadlines for many concurrent reviews on one timer. A timer per review is the costliest
 * thing on the webhook's hot path (Deno's global `setTimeout` is Node's); here every deadline
 * is an entry in an array (cleared by swapping the last entry into its place, which is cheaper
 * than deleting from a Set), and one interval aborts those that are due. The interval keeps the
 * process alive only while deadlines are pending, and stops after a second without any.
 * Deadlines fire up to one tick late.
 *
 * @module
 */
import { DeadlineExceededError } from "./errors.ts";
import type { Deadline } from "./errors.ts";

interface Pending {
  /** Called once when the deadline passes. */
  readonly expire: (error: DeadlineExceededError) => void;
  readonly at: number;
  readonly ms: number;
  /** Its place in the array, -1 once it is cleared or due. */
  index: number;
}

/** Schedules deadlines on one interval timer. */
export class DeadlineScheduler {
  readonly #pending: Pending[] = [];
  readonly #tickMs: number;
  readonly #now: () => number;
  #timer: ReturnType<typeof setInterval> | undefined;
  #idleTicks = 0;
  #referenced = false;

  /** Creates a scheduler checking every `tickMs` (default 10 ms). */
  constructor(options: { tickMs?: number; now?: () => number } = {}) {
    this.#tickMs = options.tickMs ?? 10;
    this.#now = options.now ?? (() => performance.now());
  }

  /** The number of pending deadlines. */
  get size(): number {
    return this.#pending.length;
  }

  /** Starts a deadline of `ms`; clear it (or `using`) when the work is done. */
  start(ms: number): Deadline {
    const controller = new AbortController();
    const entry = this.#add(ms, (error) => controller.abort(error));
    const clear = () => {
      this.#remove(entry);
      this.#release();
    };
    return { signal: controller.signal, clear, [Symbol.dispose]: clear };
  }

  /**
   * Settles like `promise`, or rejects with {@linkcode DeadlineExceededError} after `ms` if it
   * has not settled by then. Cheaper than `start` with `raceSignal` (no signal, no listener):
   * for a guard whose work needs no signal of its own.
   */
  race<T>(promise: Promise<T>, ms: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry = this.#add(ms, reject);
      promise.then(
        (value) => {
          this.#remove(entry);
          this.#release();
          resolve(value);
        },
        (error) => {
          this.#remove(entry);
          this.#release();
          reject(error);
        },
      );
    });
  }

  #add(ms: number, expire: (error: DeadlineExceededError) => void): Pending {
    const entry: Pending = { expire, at: this.#now() + ms, ms, index: this.#pending.length };
    this.#pending.push(entry);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#tick(), this.#tickMs);
      this.#referenced = true;
    } else if (!this.#referenced) {
      setReferenced(this.#timer, true);
      this.#referenced = true;
    }
    return entry;
  }

  #remove(entry: Pending): void {
    const i = entry.index;
    if (i < 0) return;
    entry.index = -1;
    const last = this.#pending.pop()!;
    if (last !== entry) {
      this.#pending[i] = last;
      last.index = i;
    }
  }

  #tick(): void {
    const now = this.#now();
    const due = this.#pending.filter((entry) => now >= entry.at);
    for (const entry of due) {
      this.#remove(entry);
      entry.expire(new DeadlineExceededError(entry.ms));
    }
    this.#release();
    this.#idleTicks = this.#pending.length === 0 ? this.#idleTicks + 1 : 0;
    if (this.#idleTicks * this.#tickMs >= 1000) this.close();
  }

  /** Lets the process exit while no deadline is pending. */
  #release(): void {
    if (this.#pending.length === 0 && this.#referenced && this.#timer !== undefined) {
      setReferenced(this.#timer, false);
      this.#referenced = false;
    }
  }

  /** Stops the timer (a later deadline starts it again). */
  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#idleTicks = 0;
  }
}

/** Whether the timer keeps the process alive (Node's Timeout, or a Deno timer id). */
function setReferenced(timer: unknown, referenced: boolean): void {
  if (typeof timer === "object" && timer !== null && "unref" in timer && "ref" in timer) {
    const t = timer as { ref(): void; unref(): void };
    if (referenced) t.ref();
    else t.unref();
  } else if (typeof timer === "number") {
    if (referenced) Deno.refTimer(timer);
    else Deno.unrefTimer(timer);
  }
}
