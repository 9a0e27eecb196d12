/**
 * A token bucket: at most `burst` requests at once, then `ratePerSecond` on average. The report
 * controller passes every registry request of its verifier through one
 * ({@linkcode rateLimitedFetch}), so that a resync of the whole cluster does not hammer the
 * registries the admission reviews also need. Time comes from the clock passed in.
 *
 * @module
 */
import type { FetchFunction } from "../fetch.ts";
import { abortableSleep } from "../sleep.ts";

/** The time and the waits of a bucket. */
export interface BucketClock {
  /** The current time in ms. */
  readonly now: () => number;
  /** Resolves after `ms` (or rejects when `signal` aborts). */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** A bucket's rate. */
export interface TokenBucketOptions {
  /** Tokens added each second (> 0). */
  readonly ratePerSecond: number;
  /** The most tokens held (≥ 1): the burst. @default ratePerSecond, at least 1 */
  readonly burst?: number;
  /** The clock. */
  readonly clock: BucketClock;
}

/** The real clock of a bucket. */
export const SYSTEM_BUCKET_CLOCK: BucketClock = {
  now: () => Date.now(),
  sleep: abortableSleep,
};

/**
 * Tokens taken in order of asking: a take when the bucket is empty reserves the next token (the
 * count goes below zero) and waits until it is due, so waiters never race each other.
 */
export class TokenBucket {
  readonly #rate: number;
  readonly #burst: number;
  readonly #clock: BucketClock;
  #tokens: number;
  #at: number;
  #waited = 0;

  /** A full bucket. */
  constructor(options: TokenBucketOptions) {
    if (!(options.ratePerSecond > 0)) throw new RangeError("ratePerSecond must be above 0");
    this.#rate = options.ratePerSecond;
    this.#burst = Math.max(1, options.burst ?? Math.ceil(options.ratePerSecond));
    this.#clock = options.clock;
    this.#tokens = this.#burst;
    this.#at = options.clock.now();
  }

  /** Takes that had to wait for a token. */
  get waited(): number {
    return this.#waited;
  }

  #refill(): void {
    const now = this.#clock.now();
    const elapsed = Math.max(0, now - this.#at);
    this.#at = now;
    this.#tokens = Math.min(this.#burst, this.#tokens + (elapsed * this.#rate) / 1000);
  }

  /** Takes one token, waiting until one is due; rejects (returning it) when `signal` aborts. */
  async take(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.#refill();
    this.#tokens -= 1;
    if (this.#tokens >= 0) return;
    this.#waited++;
    const waitMs = Math.ceil((-this.#tokens * 1000) / this.#rate);
    try {
      await this.#clock.sleep(waitMs, signal);
    } catch (error) {
      this.#refill();
      this.#tokens = Math.min(this.#burst, this.#tokens + 1);
      throw error;
    }
  }
}

/**
 * `fetch` through `bucket`: each request takes a token first (its `signal` stops the wait too);
 * `onRequest` is told of each request sent.
 */
export function rateLimitedFetch(
  fetch: FetchFunction,
  bucket: TokenBucket,
  onRequest?: () => void,
): FetchFunction {
  return async (input, init) => {
    await bucket.take(init?.signal ?? undefined);
    onRequest?.();
    return await fetch(input, init);
  };
}
