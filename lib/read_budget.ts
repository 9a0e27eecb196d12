/**
 * Budgets for bytes read from outside: registries, token services and signature stores answer
 * whatever they like, and the webhook fails closed, so what it holds of their answers must be
 * bounded by construction, not by a deadline.
 *
 * A {@linkcode ReadBudget} is charged for every chunk of a body **before** the chunk is kept;
 * past its limit the charge throws {@linkcode BudgetExceededError} and the reader drops the
 * body. A budget counts what one piece of work read in all (it is not given back when a body
 * is dropped), so one image's verification reads at most its limit, however many signatures,
 * retries, redirects and error bodies it meets.
 *
 * A {@linkcode MemoryPool} is the process-wide side: each piece of work reserves its whole
 * limit from the pool before it reads anything and gives it back when it ends, waiting in line
 * while the pool is full. The sum of all reads in flight therefore never exceeds the pool,
 * whatever the remote ends answer.
 *
 * @module
 */
import { ToolkitError } from "./errors.ts";

/** Reading passed a budget's limit. */
export class BudgetExceededError extends ToolkitError {
  /** The limit in bytes. */
  readonly limit: number;
  /** Creates the error for a budget of `limit` bytes. */
  constructor(limit: number, options?: ErrorOptions) {
    super(
      `the answers of registries and signature stores passed the limit of ${
        formatBytes(limit)
      } read for one image`,
      options,
    );
    this.name = "BudgetExceededError";
    this.limit = limit;
  }
}

/** Bytes one piece of work may read. */
export interface ReadBudget {
  /** Counts `bytes` more, or throws {@linkcode BudgetExceededError} when that passes the limit. */
  charge(bytes: number): void;
  /** Bytes counted so far. */
  readonly used: number;
  /** The limit in bytes. */
  readonly limit: number;
}

/** `1 MiB`, `256 KiB`, `12 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** A budget of `limit` bytes on its own (the CLI, tests). */
export function readBudget(limit: number): ReadBudget {
  let used = 0;
  return {
    charge(bytes) {
      if (used + bytes > limit) {
        used = limit;
        throw new BudgetExceededError(limit);
      }
      used += bytes;
    },
    get used() {
      return used;
    },
    limit,
  };
}

/** A budget reserved from a pool; disposing of it gives the reservation back. */
export interface PooledBudget extends ReadBudget, Disposable {}

/** What a pool holds, for metrics. */
export interface MemoryPoolStats {
  /** The pool's size in bytes. */
  readonly capacity: number;
  /** Bytes reserved now. */
  readonly reserved: number;
  /** The most bytes ever reserved at once. */
  readonly peakReserved: number;
  /** Reservations waiting for room. */
  readonly waiting: number;
}

interface Waiter {
  readonly bytes: number;
  readonly grant: () => void;
}

/** The process-wide pool that every budget is reserved from. */
export class MemoryPool {
  /** The pool's size in bytes. */
  readonly capacity: number;
  #reserved = 0;
  #peak = 0;
  readonly #queue: Waiter[] = [];

  /** Creates a pool of `capacity` bytes. */
  constructor(capacity: number) {
    if (!(capacity > 0)) throw new RangeError("a memory pool needs a positive capacity");
    this.capacity = capacity;
  }

  /**
   * Reserves a budget of `bytes` (at most the pool's capacity), waiting in line while the pool
   * is full; rejects with the signal's reason when `signal` aborts first.
   */
  async reserve(bytes: number, signal?: AbortSignal): Promise<PooledBudget> {
    const limit = Math.min(bytes, this.capacity);
    if (this.#queue.length > 0 || this.#reserved + limit > this.capacity) {
      await this.#wait(limit, signal);
    } else {
      this.#take(limit);
    }
    const budget = readBudget(limit);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.#reserved -= limit;
      this.#drain();
    };
    return {
      charge: (n) => budget.charge(n),
      get used() {
        return budget.used;
      },
      limit,
      [Symbol.dispose]: release,
    };
  }

  /** What the pool holds now. */
  stats(): MemoryPoolStats {
    return {
      capacity: this.capacity,
      reserved: this.#reserved,
      peakReserved: this.#peak,
      waiting: this.#queue.length,
    };
  }

  #take(bytes: number): void {
    this.#reserved += bytes;
    if (this.#reserved > this.#peak) this.#peak = this.#reserved;
  }

  #wait(bytes: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const index = this.#queue.indexOf(waiter);
        if (index >= 0) this.#queue.splice(index, 1);
        this.#drain();
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  /** Grants waiting reservations in order while they fit. */
  #drain(): void {
    while (this.#queue.length > 0) {
      const next = this.#queue[0]!;
      if (this.#reserved + next.bytes > this.capacity) return;
      this.#queue.shift();
      this.#take(next.bytes);
      next.grant();
    }
  }
}
