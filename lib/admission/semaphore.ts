/**
 * A counting semaphore: at most `permits` tasks run at once, the others wait in order. One is
 * shared by all the reviews of an evaluator, so the verifications in flight are bounded however
 * many reviews arrive; a task waits under its review's deadline, so waiting counts against the
 * review's budget.
 *
 * @module
 */

interface Waiter {
  readonly start: () => void;
  /** Set when its signal aborted: it stays in the queue and is skipped (no search). */
  cancelled: boolean;
}

/** Runs at most `permits` tasks at a time. */
export class Semaphore {
  readonly #permits: number;
  #running = 0;
  readonly #waiting: Waiter[] = [];
  #head = 0;
  #waitingCount = 0;

  /** Creates a semaphore of `permits` (at least 1). */
  constructor(permits: number) {
    this.#permits = Math.max(1, Math.floor(permits));
  }

  /** The most tasks run at once. */
  get permits(): number {
    return this.#permits;
  }

  /** The tasks running. */
  get running(): number {
    return this.#running;
  }

  /** The tasks waiting for a permit. */
  get waiting(): number {
    return this.#waitingCount;
  }

  /**
   * Runs `task` once a permit is free. When `signal` aborts while it waits, the task never
   * starts and the promise rejects with the signal's reason.
   */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#running < this.#permits && this.waiting === 0) return this.#start(task);
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          this.#start(task).then(resolve, reject);
        },
        cancelled: false,
      };
      const onAbort = () => {
        waiter.cancelled = true;
        this.#waitingCount--;
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
      this.#waitingCount++;
    });
  }

  #start<T>(task: () => Promise<T>): Promise<T> {
    this.#running++;
    let promise: Promise<T>;
    try {
      promise = task();
    } catch (error) {
      promise = Promise.reject(error);
    }
    return promise.finally(() => {
      this.#running--;
      this.#next();
    });
  }

  #next(): void {
    while (this.#running < this.#permits && this.#head < this.#waiting.length) {
      const waiter = this.#waiting[this.#head++]!;
      if (this.#head === this.#waiting.length) {
        this.#waiting.length = 0;
        this.#head = 0;
      } else if (this.#head > 1024) {
        this.#waiting.splice(0, this.#head);
        this.#head = 0;
      }
      if (waiter.cancelled) continue;
      this.#waitingCount--;
      waiter.start();
    }
  }
}
