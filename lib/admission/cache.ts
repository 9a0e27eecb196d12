/**
 * The admission caches: {@linkcode TtlCache} (from `lib/cache.ts`, shared with the registry
 * client) and {@linkcode SingleFlight}, which runs one computation per key at a time.
 *
 * @module
 */
import type { TtlCache } from "../cache.ts";
export { type CacheStats, TtlCache, type TtlCacheOptions } from "../cache.ts";

/**
 * The cached promise of `key`, or `load()` cached under it; a promise that rejects is dropped
 * from the cache (a failure is never remembered).
 */
export function cachedPromise<T>(
  cache: TtlCache<string, Promise<T>>,
  key: string,
  load: () => Promise<T>,
): Promise<T> {
  let pending = cache.get(key);
  if (pending === undefined) {
    pending = load();
    cache.set(key, pending);
    pending.catch(() => cache.delete(key));
  }
  return pending;
}

/**
 * Runs at most one call per key at a time: callers asking for a key that is already being
 * computed share its promise ("single flight").
 */
export class SingleFlight<K, V> {
  readonly #running = new Map<K, Promise<V>>();

  /** Returns the running call for `key`, or starts `fn`. */
  run(key: K, fn: () => Promise<V>): Promise<V> {
    const running = this.#running.get(key);
    if (running !== undefined) return running;
    const promise = fn().finally(() => this.#running.delete(key));
    this.#running.set(key, promise);
    return promise;
  }

  /** The number of calls in progress. */
  get size(): number {
    return this.#running.size;
  }
}
