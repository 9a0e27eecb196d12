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
import { keyFingerprint, type PublicKey, readPublicKeys } from "../signature/mod.ts";
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

/** Reads and caches the keys of key Secrets. */
export class KeyStore implements KeySource {
  readonly #source: PolicySource;
  readonly #parsed = new TtlCache<string, Promise<TrustedKeys>>({
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

  /** Creates a store reading Secrets from `source`. */
  constructor(source: PolicySource) {
    this.#source = source;
  }

  /**
   * The keys of Secret `namespace/name`.
   *
   * @throws {PolicyConfigError} when the Secret does not exist, has no `key` entry, or holds
   * no usable public key; {@linkcode PolicySourceError} when it cannot be read.
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
    return await cachedPromise(
      this.#parsed,
      raw,
      () => parse(secretText(secret, KEY_SECRET_ENTRY), where),
    );
  }
}

async function parse(text: string | undefined, where: string): Promise<TrustedKeys> {
  if (text === undefined) {
    throw new PolicyConfigError(
      `Cannot use key Secret "${where}": its "${KEY_SECRET_ENTRY}" entry is not base64`,
    );
  }
  let keys: PublicKey[];
  try {
    keys = await readPublicKeys(text);
  } catch (error) {
    throw new PolicyConfigError(
      `Cannot use key Secret "${where}": ${error instanceof Error ? error.message : error}`,
      { cause: error },
    );
  }
  return await trustedKeys(keys);
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
