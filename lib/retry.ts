/**
 * The retry policy of HTTP requests to registries and vaults: which answers are worth another try, how long to wait
 * (exponential backoff with jitter, or the server's `Retry-After`), and how many times.
 *
 * @module
 */

/** How requests are retried. */
export interface RetryPolicy {
  /** Retries after the first attempt (so `maxRetries + 1` attempts at most). Default 3. */
  readonly maxRetries: number;
  /** The delay before the first retry, doubled for each further one. Default 200 ms. */
  readonly baseDelayMs: number;
  /**
   * The longest wait, for backoff and for `Retry-After`. A server asking for a longer wait makes
   * the request fail instead of waiting. Default 5000 ms.
   */
  readonly maxDelayMs: number;
}

/** The default policy: 3 retries, 200 ms doubling, at most 5 s per wait. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 200,
  maxDelayMs: 5000,
};

/**
 * Whether a response status is worth retrying: 429 Too Many Requests and the 5xx statuses that
 * mean "try again" (500, 502, 503, 504). 501 and 505 are permanent and not retried.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 500 || status === 502 || status === 503 || status === 504;
}

/**
 * Returns the wait before retry number `retry` (0 for the first retry): the exponential delay
 * `baseDelayMs * 2^retry`, capped at `maxDelayMs`, with "equal jitter" (half fixed, half random)
 * so that clients that failed together do not retry together. `random` returns [0, 1).
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry));
  const half = exponential / 2;
  return Math.round(half + half * Math.min(Math.max(random(), 0), 1));
}

/**
 * Parses a `Retry-After` header: delay-seconds (`120`) or an HTTP date, relative to `nowMs`.
 * Returns the wait in milliseconds (never negative), or undefined when absent or unparsable.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  nowMs: number,
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}
