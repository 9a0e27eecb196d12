/**
 * The one reader of key Secrets, for every requirement kind that trusts keys (`signedBy`'s
 * OpenPGP keys in lib/admission/keys.ts, `sigstoreSigned`'s PEM keys in
 * lib/admission/sigstore_material.ts): it fetches the Secret from the policy source, takes its
 * `key` entry, decodes it, and remembers what the kind's parser made of that content — keys, or
 * the reason they are refused — in a cache keyed by the content and bounded in bytes, so a
 * Secret is parsed once per distinct content, not once per review. The kind only parses the
 * text it is handed (checking every key against its {@linkcode KeyBounds}: lib/signature/
 * key_bounds.ts), and throws an {@linkcode InvalidKeyError} to refuse it.
 *
 * @module
 */
import { InvalidKeyError, type KeyBounds, KeyNotAcceptedError } from "../signature/mod.ts";
import { cachedPromise, type CacheStats, TtlCache } from "./cache.ts";
import { PolicyConfigError } from "./errors.ts";
import { type PolicySource, secretText } from "./source.ts";

/** The data entry of a key Secret that holds the keys (Portieris's name). */
export const KEY_SECRET_ENTRY = "key";

/** How one kind of key Secret is read. */
export interface KeySecretKind<T> {
  /** The cache's name (in metrics). */
  readonly cacheName: string;
  /** The most bytes the cache holds, counting twice the content of each entry. */
  readonly maxCacheBytes: number;
  /**
   * Parses the decoded `key` entry into the kind's keys, each checked against the bounds.
   *
   * @throws {InvalidKeyError} to refuse the content (remembered like keys); any other error
   * is the caller's and is not remembered.
   */
  readonly parse: (text: string, bounds: KeyBounds) => Promise<T>;
}

/**
 * What the reader made of a Secret's content: the keys, or why they are refused, remembered
 * alike (the content alone decides).
 */
type Parsed<T> = { readonly keys: T } | { readonly refused: Error };

/** Reads the key Secrets of one kind, through the policy source, with a cache by content. */
export class KeySecretReader<T> {
  readonly #source: PolicySource;
  readonly #bounds: KeyBounds;
  readonly #parse: (text: string, bounds: KeyBounds) => Promise<T>;
  readonly #parsed: TtlCache<string, Promise<Parsed<T>>>;

  /** Creates a reader of `kind`'s Secrets from `source`, accepting keys within `bounds`. */
  constructor(source: PolicySource, kind: KeySecretKind<T>, bounds: KeyBounds = {}) {
    this.#source = source;
    this.#bounds = bounds;
    this.#parse = kind.parse;
    this.#parsed = new TtlCache<string, Promise<Parsed<T>>>({
      name: kind.cacheName,
      ttlMs: 24 * 3600_000,
      maxEntries: 256,
      // Keyed by the Secret's content; the parsed keys take about as much again.
      maxBytes: kind.maxCacheBytes,
      sizeOf: (raw) => 2 * raw.length,
    });
  }

  /** The cache's size and bounds, for metrics. */
  stats(): CacheStats {
    return this.#parsed.stats();
  }

  /**
   * The keys of Secret `namespace/name`; `what` names it in messages (`key Secret "ns/name"`).
   *
   * @throws {PolicyConfigError} when the Secret does not exist, has no `key` entry, or holds
   * no usable public key or one that is not accepted (the message names the Secret and the
   * key); {@linkcode PolicySourceError} when it cannot be read.
   */
  async read(namespace: string, name: string, what: string): Promise<T> {
    const secret = await this.#source.secret(namespace, name);
    if (secret === undefined) {
      throw new PolicyConfigError(`Cannot read ${what}: it does not exist`);
    }
    const raw = secret.data?.[KEY_SECRET_ENTRY];
    if (typeof raw !== "string" || raw === "") {
      throw new PolicyConfigError(`Cannot use ${what}: it has no "${KEY_SECRET_ENTRY}" entry`);
    }
    const parsed = await cachedPromise(this.#parsed, raw, async (): Promise<Parsed<T>> => {
      const text = secretText(secret, KEY_SECRET_ENTRY);
      if (text === undefined) {
        return { refused: new Error(`its "${KEY_SECRET_ENTRY}" entry is not base64`) };
      }
      try {
        return { keys: await this.#parse(text, this.#bounds) };
      } catch (error) {
        if (error instanceof InvalidKeyError) return { refused: error };
        throw error;
      }
    });
    if ("keys" in parsed) return parsed.keys;
    const error = parsed.refused;
    throw new PolicyConfigError(
      error instanceof KeyNotAcceptedError
        ? `Cannot use ${what}: ${error.key}: ${error.problem}`
        : `Cannot use ${what}: ${error.message}`,
      { cause: error },
    );
  }
}
