/**
 * What a `sigstoreSigned` requirement trusts, read from the cluster: the PEM public keys of its
 * key Secret (the `key` entry, as for `signedBy`), and the sigstore trust roots its
 * `trustRootRef`s name (a ConfigMap's or Secret's `trusted_root.json` entry). Each is parsed
 * once per distinct content and identified by a digest of that content, so a verdict cached for
 * one key set or trust root is never served for another.
 *
 * The trust root reader (`@sigstore/verify` and its protobuf types, some tens of milliseconds to
 * load) is imported on first use, so a webhook without `sigstoreSigned` policies starts as fast
 * as before.
 *
 * @module
 */
import { CACHE_BYTES } from "./memory_budget.ts";
import type { TrustRootRef } from "../policy/mod.ts";
import { computeDigest } from "../registry/mod.ts";
import type { KeyBounds } from "../signature/mod.ts";
import {
  loadTrustRootParser,
  readSigstorePublicKeys,
  type SigstorePublicKey,
  type TrustRoot,
} from "../sigstore/mod.ts";
import { cachedPromise, type CacheStats, TtlCache } from "./cache.ts";
import { PolicyConfigError } from "./errors.ts";
import { type KeySecretKind, KeySecretReader } from "./key_secret.ts";
import { configMapText, type PolicySource, secretText } from "./source.ts";
import type { TrustExpiryObserver } from "./trust_expiry.ts";

/** The keys of a sigstore key Secret. */
export interface SigstoreKeys {
  readonly keys: readonly SigstorePublicKey[];
  /** `sha256:` of the keys' ids in order: identifies the key set in cache keys. */
  readonly id: string;
}

/** Where the keys of a keyed `sigstoreSigned` requirement come from. */
export interface SigstoreKeySource {
  /** The keys of `namespace/name`; throws a {@linkcode PolicyConfigError} when unusable. */
  sigstoreKeys(namespace: string, name: string): Promise<SigstoreKeys>;
}

/** The default data key of a trust root ConfigMap or Secret. */
export const DEFAULT_TRUST_ROOT_ENTRY = "trusted_root.json";

/** The key set of these keys. */
export async function sigstoreKeySet(keys: readonly SigstorePublicKey[]): Promise<SigstoreKeys> {
  return {
    keys,
    id: await computeDigest(new TextEncoder().encode(keys.map((k) => k.id).join("\n"))),
  };
}

/** A key Secret of `sigstoreSigned`: PEM public keys, cached within its `CACHE_BYTES`. */
const SIGSTORE_KEY_SECRET: KeySecretKind<SigstoreKeys> = {
  cacheName: "sigstore-key",
  maxCacheBytes: CACHE_BYTES["sigstore-key"],
  parse: async (text, bounds) => await sigstoreKeySet(await readSigstorePublicKeys(text, bounds)),
};

/**
 * Reads and caches the keys (through {@linkcode KeySecretReader}) and trust roots of
 * `sigstoreSigned` requirements. Keys are checked when they are read (`readSigstorePublicKeys`:
 * type, curve, RSA size and exponent within {@linkcode KeyBounds}).
 */
export class SigstoreMaterialStore implements SigstoreKeySource {
  readonly #source: PolicySource;
  readonly #onRead: TrustExpiryObserver | undefined;
  readonly #keys: KeySecretReader<SigstoreKeys>;
  readonly #roots = new TtlCache<string, Promise<TrustRoot>>({
    name: "trust-root",
    ttlMs: 24 * 3600_000,
    maxEntries: 32,
    maxBytes: CACHE_BYTES["trust-root"],
    sizeOf: (raw) => 4 * raw.length,
  });

  /**
   * Creates a store reading Secrets and ConfigMaps from `source`, keys within `bounds`;
   * `onRead` hears when each trust root read stops being valid.
   */
  constructor(source: PolicySource, bounds: KeyBounds = {}, onRead?: TrustExpiryObserver) {
    this.#source = source;
    this.#onRead = onRead;
    this.#keys = new KeySecretReader(source, SIGSTORE_KEY_SECRET, bounds);
  }

  /** The caches' sizes and bounds, for metrics. */
  stats(): CacheStats[] {
    return [this.#keys.stats(), this.#roots.stats()];
  }

  /**
   * The PEM public keys of Secret `namespace/name`.
   *
   * @throws {PolicyConfigError} naming the Secret and `keySecret` when it does not exist, has no
   * `key` entry, or holds something that is not an accepted PEM public key (then naming the
   * key too).
   */
  sigstoreKeys(namespace: string, name: string): Promise<SigstoreKeys> {
    return this.#keys.read(
      namespace,
      name,
      `key Secret "${namespace}/${name}" (keySecret of a sigstoreSigned requirement)`,
    );
  }

  /**
   * The trust root `ref` names (in `defaultNamespace` when it names none).
   *
   * @throws {PolicyConfigError} naming the object when it does not exist, lacks the entry, or
   * holds no usable trust root.
   */
  async trustRoot(ref: TrustRootRef, defaultNamespace: string): Promise<TrustRoot> {
    const namespace = ref.namespace ?? defaultNamespace;
    const entry = ref.key ?? DEFAULT_TRUST_ROOT_ENTRY;
    const where = `${ref.kind} "${namespace}/${ref.name}"`;
    let text: string | undefined;
    let raw: string | undefined;
    if (ref.kind === "Secret") {
      const secret = await this.#source.secret(namespace, ref.name);
      if (secret === undefined) {
        throw new PolicyConfigError(`Cannot read trust root ${where}: it does not exist`);
      }
      raw = secret.data?.[entry];
      text = secret && secretText(secret, entry);
    } else {
      const configMap = await this.#source.configMap(namespace, ref.name);
      if (configMap === undefined) {
        throw new PolicyConfigError(`Cannot read trust root ${where}: it does not exist`);
      }
      text = configMapText(configMap, entry);
      raw = text;
    }
    if (raw === undefined || text === undefined || text === "") {
      throw new PolicyConfigError(`Cannot use trust root ${where}: it has no "${entry}" entry`);
    }
    const content = text;
    const root = await cachedPromise(this.#roots, content, async () => {
      const { parseTrustRoot } = await loadTrustRootParser();
      try {
        return await parseTrustRoot(content, where);
      } catch (error) {
        throw new PolicyConfigError(error instanceof Error ? error.message : String(error), {
          cause: error,
        });
      }
    });
    this.#onRead?.({
      material: "trust-root",
      kind: ref.kind,
      namespace,
      name: ref.name,
      expiresAt: root.validUntil?.getTime(),
    });
    return root;
  }
}
