/**
 * Bearer tokens kept until they expire, keyed by what they were issued for (realm, service,
 * scope and the identity that asked), on an injected clock.
 *
 * @module
 */

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
}

function keyString(key: TokenKey): string {
  return JSON.stringify([key.realm, key.service, key.scopes, key.identity]);
}

/** Creates a token cache reading time (ms since the epoch) from `now`. */
export function createTokenCache(now: () => number = Date.now): TokenCache {
  const entries = new Map<string, { token: string; expiresAt: number }>();
  return {
    get(key) {
      const id = keyString(key);
      const entry = entries.get(id);
      if (entry === undefined) return undefined;
      if (now() >= entry.expiresAt) {
        entries.delete(id);
        return undefined;
      }
      return entry.token;
    },
    set(key, token, obtainedAt, expiresInSeconds) {
      entries.set(keyString(key), { token, expiresAt: obtainedAt + expiresInSeconds * 1000 });
    },
    delete(key) {
      entries.delete(keyString(key));
    },
    get size() {
      return entries.size;
    },
  };
}
