/**
 * Waiting that a signal can cut short: the one timer-based sleep of the registry transport's
 * backoff and of the report controller's clock (token bucket, Lease election, resyncs).
 *
 * @module
 */

/** Resolves after `ms`, or rejects with `signal`'s reason when it aborts first (or already has). */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
