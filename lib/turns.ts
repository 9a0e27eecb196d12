/**
 * Taking turns on the event loop. Work whose size a policy decides (matching hundreds of
 * patterns, running identity expressions) is cut into slices of about a millisecond, and between
 * slices it waits for {@linkcode TurnScheduler.next}. Waiting with a plain `setTimeout(0)` is not
 * enough: when 64 reviews yield at once, their 64 timers fall due together and the runtime runs
 * them all in one timers phase, before it looks at any socket, so `/healthz` still waits 64
 * slices. A scheduler resumes **one** waiter per turn of the event loop, in the order they came,
 * so between any two slices the runtime polls its sockets and runs the monitor's timers.
 *
 * @module
 */

/** Resumes waiting work one slice per turn of the event loop, first come first served. */
export class TurnScheduler {
  readonly #queue: (() => void)[] = [];
  #scheduled = false;

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

  #schedule(): void {
    if (this.#scheduled || this.#queue.length === 0) return;
    this.#scheduled = true;
    setTimeout(() => {
      this.#scheduled = false;
      this.#queue.shift()?.();
      // The resumed slice runs in this turn's microtasks; the next one waits for a new turn.
      this.#schedule();
    }, 0);
  }
}
