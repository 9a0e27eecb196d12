/**
 * Bearer tokens kept until they expire, keyed by what they were issued for (realm, service,
 * scope and the identity that asked), on an injected clock. The cache is bounded by count and by
 * bytes (a token may be large, and a review may name many repositories, each with its own
 * token): when full, expired tokens are dropped first, then the least recently used.
 *
 * @module
 */
import { type CacheStats, TtlCache } from "../cache.ts";

/** The lifetime the Docker token spec tells clients to assume when `expires_in` is missing. */
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 60;

/** What a token was issued for. */
export interface TokenKey {
  /** The token service URL. */
  readonly realm: string;
  /** The `service` parameter. */
  readonly service: string;
  /** The scopes, in the order they were requested. */
  readonly scopes: readonly string[];
  /** Who asked: a credential's source and username, "" when anonymous. */
  readonly identity: string;
}

/** Caches bearer tokens. */
export interface TokenCache {
  /** Returns a token that has not expired yet, or undefined. */
  get(key: TokenKey): string | undefined;
  /** Stores a token obtained at `obtainedAt` (ms) valid for `expiresInSeconds`. */
  set(key: TokenKey, token: string, obtainedAt: number, expiresInSeconds: number): void;
  /** Forgets a token (the registry refused it). */
  delete(key: TokenKey): void;
  /** The number of tokens held, expired ones included until they are next looked at. */
  readonly size: number;
  /** The size and the bounds. */
  stats(): CacheStats;
}

/** How many tokens, and how many bytes of them, are kept. */
export interface TokenCacheBounds {
  /** @default {@linkcode MAX_TOKENS} */
  readonly maxEntries?: number;
  /** @default {@linkcode MAX_TOKEN_BYTES} */
  readonly maxBytes?: number;
}

/** The default bound of tokens kept. */
export const MAX_TOKENS = 1024;
/** The default bound of the bytes of the tokens kept. */
export const MAX_TOKEN_BYTES = 16 * 1024 * 1024;
/** The longest a token is kept, whatever its `expires_in`. */
const MAX_TOKEN_LIFETIME_MS = 24 * 3600_000;

function keyString(key: TokenKey): string {
  return JSON.stringify([key.realm, key.service, key.scopes, key.identity]);
}

/** Creates a token cache reading time (ms since the epoch) from `now`. */
export function createTokenCache(
  now: () => number = Date.now,
  bounds: TokenCacheBounds = {},
): TokenCache {
  const entries = new TtlCache<string, string>({
    name: "registry-token",
    ttlMs: MAX_TOKEN_LIFETIME_MS,
    maxEntries: bounds.maxEntries ?? MAX_TOKENS,
    maxBytes: bounds.maxBytes ?? MAX_TOKEN_BYTES,
    sizeOf: (key, token) => key.length + token.length,
    now,
  });
  return {
    get: (key) => entries.get(keyString(key)),
    set(key, token, obtainedAt, expiresInSeconds) {
      const lifetime = obtainedAt + expiresInSeconds * 1000 - now();
      if (lifetime > 0) entries.set(keyString(key), token, lifetime);
    },
    delete: (key) => entries.delete(keyString(key)),
    get size() {
      return entries.size;
    },
    stats: () => entries.stats(),
  };
}
