/**
 * The public keys of a `signedBy` requirement: read from the `key` entry of a Secret (armoured
 * OpenPGP public keys, possibly several), parsed once per distinct content and identified by a
 * digest of the key material that was parsed: every packet, revocation signatures and expiry
 * times included. Two copies of "the same" key in different states (one revoked, one not) are
 * therefore different key sets, and a verified verdict cached for one is never served for the
 * other.
 *
 * @module
 */
import { CACHE_BYTES } from "./memory_budget.ts";
import { computeDigest } from "../registry/mod.ts";
import {
  type KeyBounds,
  keyExpiry,
  keyFingerprint,
  type PublicKey,
  readPublicKeys,
} from "../signature/mod.ts";
import type { CacheStats } from "./cache.ts";
import { type KeySecretKind, KeySecretReader } from "./key_secret.ts";
import type { PolicySource } from "./source.ts";
import type { TrustExpiryObserver } from "./trust_expiry.ts";

/** The keys of a key Secret. */
export interface TrustedKeys {
  /** The parsed keys. */
  readonly keys: readonly PublicKey[];
  /** Their upper-case fingerprints, sorted. */
  readonly fingerprints: readonly string[];
  /**
   * `sha256:<hex>` of the keys' packets (in fingerprint order): identifies the exact key
   * material, with its revocations and expiry times, in cache keys.
   */
  readonly id: string;
  /** When the first of the keys expires (milliseconds since the epoch); absent: none expires. */
  readonly expiresAt?: number;
}

/** Where the keys of a `signedBy` requirement come from: its `keySecret` in a namespace. */
export interface KeySource {
  /** The keys of `namespace/name`; throws a {@linkcode PolicyConfigError} when unusable. */
  keys(namespace: string, name: string): Promise<TrustedKeys>;
}

export { KEY_SECRET_ENTRY } from "./key_secret.ts";

/**
 * Reads and caches the keys of key Secrets (through {@linkcode KeySecretReader}). Every key and
 * subkey is checked when it is read (`readPublicKeys`: RSA size and exponent within
 * {@linkcode KeyBounds}, no DSA or ElGamal, accepted curves), so that no key a Secret holds makes
 * a signature check costly; a Secret holding one that is not accepted makes its requirement
 * unusable, naming the key.
 */
export class KeyStore implements KeySource {
  readonly #reader: KeySecretReader<TrustedKeys>;
  readonly #onRead: TrustExpiryObserver | undefined;

  /** The cache's size and bounds, for metrics. */
  stats(): CacheStats {
    return this.#reader.stats();
  }

  /**
   * Creates a store reading Secrets from `source`, accepting keys within `bounds`; `onRead`
   * hears when the keys of each Secret read expire.
   */
  constructor(source: PolicySource, bounds: KeyBounds = {}, onRead?: TrustExpiryObserver) {
    this.#reader = new KeySecretReader(source, OPENPGP_KEY_SECRET, bounds);
    this.#onRead = onRead;
  }

  /**
   * The keys of Secret `namespace/name`.
   *
   * @throws {PolicyConfigError} when the Secret does not exist, has no `key` entry, or holds
   * no usable public key or one that is not accepted (the message names the Secret and the
   * key's fingerprint); {@linkcode PolicySourceError} when it cannot be read.
   */
  async keys(namespace: string, name: string): Promise<TrustedKeys> {
    const keys = await this.#reader.read(namespace, name, `key Secret "${namespace}/${name}"`);
    this.#onRead?.({
      material: "key-secret",
      kind: "Secret",
      namespace,
      name,
      expiresAt: keys.expiresAt,
    });
    return keys;
  }
}

/** A key Secret of `signedBy`: armoured OpenPGP public keys, cached within its `CACHE_BYTES`. */
const OPENPGP_KEY_SECRET: KeySecretKind<TrustedKeys> = {
  cacheName: "key",
  maxCacheBytes: CACHE_BYTES.key,
  parse: async (text, bounds) => await trustedKeys(await readPublicKeys(text, bounds)),
};

/** Parsed keys with their fingerprints and the id of their material. */
export async function trustedKeys(keys: readonly PublicKey[]): Promise<TrustedKeys> {
  const expiries = (await Promise.all(keys.map((key) => keyExpiry(key))))
    .filter((d): d is Date => d !== undefined).map((d) => d.getTime());
  return {
    keys,
    fingerprints: keys.map(keyFingerprint).sort(),
    id: await keyMaterialId(keys),
    ...(expiries.length > 0 ? { expiresAt: Math.min(...expiries) } : {}),
  };
}

/**
 * The digest of the keys' packets, in fingerprint order: what a verification with these keys
 * depends on (self-signatures, expiry times and revocation signatures included).
 */
export async function keyMaterialId(keys: readonly PublicKey[]): Promise<string> {
  const parts = [...keys]
    .sort((a, b) => keyFingerprint(a).localeCompare(keyFingerprint(b)))
    .map((key) => key.write());
  const bytes = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return await computeDigest(bytes);
}
