/**
 * A bounded cache with a time to live: entries expire `ttlMs` after they were stored (or after
 * their own lifetime), and when the cache is over its bound by count or by bytes, expired
 * entries are dropped first, then the least recently used ones. Time comes from an injected
 * clock so tests never sleep. Every cache of the webhook that a request can grow is one of
 * these, so each has a documented bound and reports its size ({@linkcode TtlCache.stats}).
 *
 * Recency is approximate: a hit moves an entry to the recent end only when it has not moved
 * for a quarter of the lifetime, because moving costs a delete and an insert and the hot path
 * of the webhook is cache hits.
 *
 * Bytes are an estimate given by `sizeOf` (by default the length of a string key, or 64): what
 * the entry holds of its own, not what it shares with others.
 *
 * @module
 */

/** How a cache is sized and timed. */
export interface TtlCacheOptions<K = unknown, V = unknown> {
  /** What the cache holds, for metrics (`parse`, `verdict`, …). @default "" */
  readonly name?: string;
  /** How long an entry lives, in milliseconds. 0 disables the cache. */
  readonly ttlMs: number;
  /** The most entries kept. 0 disables the cache. */
  readonly maxEntries: number;
  /** The most bytes kept (by `sizeOf`). @default unbounded */
  readonly maxBytes?: number;
  /** The estimated size of an entry in bytes. @default the key's length when a string, else 64 */
  readonly sizeOf?: (key: K, value: V) => number;
  /** The clock in milliseconds. @default `Date.now` */
  readonly now?: () => number;
}

/** The size and bounds of a cache, for metrics. */
export interface CacheStats {
  /** What the cache holds. */
  readonly name: string;
  /** Entries held (expired ones included until they are next looked at or swept). */
  readonly entries: number;
  /** Their estimated bytes. */
  readonly bytes: number;
  /** The bound by count. */
  readonly maxEntries: number;
  /** The bound by bytes (`Infinity` when unbounded). */
  readonly maxBytes: number;
}

interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
  readonly bytes: number;
  movedAt: number;
}

function defaultSize(key: unknown): number {
  return typeof key === "string" ? key.length : 64;
}

/** A TTL + LRU cache bounded by count and by bytes. */
export class TtlCache<K, V> {
  readonly #entries = new Map<K, Entry<V>>();
  readonly #name: string;
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #maxBytes: number;
  readonly #sizeOf: (key: K, value: V) => number;
  readonly #now: () => number;
  #bytes = 0;
  #sweptAt = -Infinity;

  /** Creates an empty cache. */
  constructor(options: TtlCacheOptions<K, V>) {
    this.#name = options.name ?? "";
    this.#ttlMs = Math.max(0, options.ttlMs);
    this.#max = Math.max(0, Math.floor(options.maxEntries));
    this.#maxBytes = Math.max(0, options.maxBytes ?? Infinity);
    this.#sizeOf = options.sizeOf ?? defaultSize;
    this.#now = options.now ?? Date.now;
  }

  /** The number of entries held (expired ones included until they are next looked at). */
  get size(): number {
    return this.#entries.size;
  }

  /** The estimated bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The size and the bounds. */
  stats(): CacheStats {
    return {
      name: this.#name,
      entries: this.#entries.size,
      bytes: this.#bytes,
      maxEntries: this.#max,
      maxBytes: this.#maxBytes,
    };
  }

  /** Returns a live entry and marks it recently used; undefined when absent or expired. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    const now = this.#now();
    if (now >= entry.expiresAt) {
      this.#drop(key, entry);
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
   * Stores an entry for `ttlMs` (at most the cache's lifetime: a value that is only valid for so
   * long), dropping expired entries and then the least recently used ones beyond the bounds. An
   * entry that would live 0 ms or less, or is larger than the byte bound, is not stored, and the
   * key's previous entry is removed.
   */
  set(key: K, value: V, ttlMs: number = this.#ttlMs): void {
    const lifetime = Math.min(ttlMs, this.#ttlMs);
    const old = this.#entries.get(key);
    if (old !== undefined) this.#drop(key, old);
    if (!(lifetime > 0) || this.#max === 0) return;
    const bytes = Math.max(0, this.#sizeOf(key, value));
    if (bytes > this.#maxBytes) return;
    const now = this.#now();
    this.#entries.set(key, { value, expiresAt: now + lifetime, movedAt: now, bytes });
    this.#bytes += bytes;
    if (this.#entries.size > this.#max || this.#bytes > this.#maxBytes) this.#evict(now);
  }

  /**
   * The live values, least recently used (or stored) first; the expired ones met are dropped.
   * Does not mark anything used.
   */
  values(): V[] {
    const now = this.#now();
    const live: V[] = [];
    for (const [key, entry] of this.#entries) {
      if (now >= entry.expiresAt) this.#drop(key, entry);
      else live.push(entry.value);
    }
    return live;
  }

  /** Removes an entry. */
  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (entry !== undefined) this.#drop(key, entry);
  }

  /** Removes every entry. */
  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  #drop(key: K, entry: Entry<V>): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  #evict(now: number): void {
    // Expired entries go first; the sweep runs at most once a quarter lifetime, so a cache that
    // is full of live entries costs one LRU drop per insert, not a scan.
    if (now - this.#sweptAt >= this.#ttlMs / 4) {
      this.#sweptAt = now;
      for (const [key, entry] of this.#entries) {
        if (now >= entry.expiresAt) this.#drop(key, entry);
      }
    }
    while (this.#entries.size > this.#max || this.#bytes > this.#maxBytes) {
      const oldest = this.#entries.entries().next();
      if (oldest.done) break;
      this.#drop(oldest.value[0], oldest.value[1]);
    }
  }
}
