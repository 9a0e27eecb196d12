/**
 * A bounded cache with a time to live: entries expire `ttlMs` after they were stored, and the
 * least recently used entry is dropped when the cache is full. Time comes from an injected
 * clock so tests never sleep.
 *
 * Recency is approximate: a hit moves an entry to the recent end only when it has not moved
 * for a quarter of the lifetime, because moving costs a delete and an insert and the hot path
 * of the webhook is cache hits.
 *
 * @module
 */

/** How a cache is sized and timed. */
export interface TtlCacheOptions {
  /** How long an entry lives, in milliseconds. 0 disables the cache. */
  readonly ttlMs: number;
  /** The most entries kept. 0 disables the cache. */
  readonly maxEntries: number;
  /** The clock in milliseconds. @default `Date.now` */
  readonly now?: () => number;
}

interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
  movedAt: number;
}

/** A TTL + LRU cache. */
export class TtlCache<K, V> {
  readonly #entries = new Map<K, Entry<V>>();
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;

  /** Creates an empty cache. */
  constructor(options: TtlCacheOptions) {
    this.#ttlMs = Math.max(0, options.ttlMs);
    this.#max = Math.max(0, Math.floor(options.maxEntries));
    this.#now = options.now ?? Date.now;
  }

  /** The number of entries held (expired ones included until they are next looked at). */
  get size(): number {
    return this.#entries.size;
  }

  /** Returns a live entry and marks it recently used; undefined when absent or expired. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    const now = this.#now();
    if (now >= entry.expiresAt) {
      this.#entries.delete(key);
      return undefined;
    }
    if (now - entry.movedAt >= this.#ttlMs / 4) {
      // Move to the end: Map iteration order is insertion order, so the first key is the LRU.
      entry.movedAt = now;
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry.value;
  }

  /**
   * Stores an entry, dropping the least recently used ones beyond the size bound. `maxTtlMs`
   * shortens this entry's lifetime below the cache's (a value that is only valid for so long);
   * an entry that would live 0 ms or less is not stored.
   */
  set(key: K, value: V, maxTtlMs: number = Infinity): void {
    const ttlMs = Math.min(this.#ttlMs, maxTtlMs);
    if (!(ttlMs > 0) || this.#max === 0) {
      this.#entries.delete(key);
      return;
    }
    const now = this.#now();
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: now + ttlMs, movedAt: now });
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }

  /** Removes an entry. */
  delete(key: K): void {
    this.#entries.delete(key);
  }

  /** Removes every entry. */
  clear(): void {
    this.#entries.clear();
  }
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
