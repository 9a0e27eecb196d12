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
import { computeDigest } from "../registry/mod.ts";
import {
  InvalidKeyError,
  type KeyBounds,
  keyFingerprint,
  KeyNotAcceptedError,
  type PublicKey,
  readPublicKeys,
} from "../signature/mod.ts";
import { cachedPromise, type CacheStats, TtlCache } from "./cache.ts";
import { PolicyConfigError } from "./errors.ts";
import { type PolicySource, secretText } from "./source.ts";

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
}

/** Where the keys of a `signedBy` requirement come from: its `keySecret` in a namespace. */
export interface KeySource {
  /** The keys of `namespace/name`; throws a {@linkcode PolicyConfigError} when unusable. */
  keys(namespace: string, name: string): Promise<TrustedKeys>;
}

/** The data entry of a key Secret that holds the keys (Portieris's name). */
export const KEY_SECRET_ENTRY = "key";

/**
 * Reads and caches the keys of key Secrets. Every key and subkey is checked when it is read
 * (`readPublicKeys`: RSA size and exponent within {@linkcode KeyBounds}, no DSA or ElGamal,
 * accepted curves), so that no key a Secret holds makes a signature check costly; a Secret
 * holding one that is not accepted makes its requirement unusable, naming the key.
 */
export class KeyStore implements KeySource {
  readonly #source: PolicySource;
  readonly #bounds: KeyBounds;
  readonly #parsed = new TtlCache<string, Promise<ParsedKeys>>({
    name: "key",
    ttlMs: 24 * 3600_000,
    maxEntries: 256,
    // Keyed by the Secret's content; the parsed keys take about as much again.
    maxBytes: 16 * 1024 * 1024,
    sizeOf: (raw) => 2 * raw.length,
  });

  /** The cache's size and bounds, for metrics. */
  stats(): CacheStats {
    return this.#parsed.stats();
  }

  /** Creates a store reading Secrets from `source`, accepting keys within `bounds`. */
  constructor(source: PolicySource, bounds: KeyBounds = {}) {
    this.#source = source;
    this.#bounds = bounds;
  }

  /**
   * The keys of Secret `namespace/name`.
   *
   * @throws {PolicyConfigError} when the Secret does not exist, has no `key` entry, or holds
   * no usable public key or one that is not accepted (the message names the Secret and the
   * key's fingerprint); {@linkcode PolicySourceError} when it cannot be read.
   */
  async keys(namespace: string, name: string): Promise<TrustedKeys> {
    const where = `${namespace}/${name}`;
    const secret = await this.#source.secret(namespace, name);
    if (secret === undefined) {
      throw new PolicyConfigError(`Cannot read key Secret "${where}": it does not exist`);
    }
    const raw = secret.data?.[KEY_SECRET_ENTRY];
    if (typeof raw !== "string" || raw === "") {
      throw new PolicyConfigError(
        `Cannot use key Secret "${where}": it has no "${KEY_SECRET_ENTRY}" entry`,
      );
    }
    const parsed = await cachedPromise(
      this.#parsed,
      raw,
      () => parse(secretText(secret, KEY_SECRET_ENTRY), this.#bounds),
    );
    if ("trusted" in parsed) return parsed.trusted;
    const error = parsed.refused;
    throw new PolicyConfigError(
      error instanceof KeyNotAcceptedError
        ? `Cannot use key Secret "${where}": ${error.key}: ${error.problem}`
        : `Cannot use key Secret "${where}": ${error.message}`,
      { cause: error },
    );
  }
}

/**
 * The keys of a Secret's content, or why they are refused: a refusal is remembered as keys are
 * (the content alone decides it), so a Secret holding a key that is not accepted is read once,
 * not once per review.
 */
type ParsedKeys = { readonly trusted: TrustedKeys } | { readonly refused: Error };

async function parse(text: string | undefined, bounds: KeyBounds): Promise<ParsedKeys> {
  if (text === undefined) {
    return { refused: new Error(`its "${KEY_SECRET_ENTRY}" entry is not base64`) };
  }
  let keys: PublicKey[];
  try {
    keys = await readPublicKeys(text, bounds);
  } catch (error) {
    if (error instanceof InvalidKeyError) return { refused: error };
    throw error;
  }
  return { trusted: await trustedKeys(keys) };
}

/** Parsed keys with their fingerprints and the id of their material. */
export async function trustedKeys(keys: readonly PublicKey[]): Promise<TrustedKeys> {
  return { keys, fingerprints: keys.map(keyFingerprint).sort(), id: await keyMaterialId(keys) };
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
