/**
 * The keys of an `attestation` requirement's key Secret: its `key` entry may hold PEM public keys
 * (cosign's), armoured OpenPGP public keys (toolkit's simple-signing keys), or both, as
 * `setup-signing` keeps them. The OpenPGP blocks are read by lib/signature's reader (which passes
 * over anything else), the rest by lib/sigstore's PEM reader; each with the key bounds of every
 * key Secret. Parsed once per distinct content (`KeySecretReader`), identified by the ids of both
 * key sets.
 *
 * @module
 */
import { CACHE_BYTES } from "./memory_budget.ts";
import { InvalidKeyError, type KeyBounds, readPublicKeys } from "../signature/mod.ts";
import { readSigstorePublicKeys } from "../sigstore/mod.ts";
import type { CacheStats } from "./cache.ts";
import { type KeySecretKind, KeySecretReader } from "./key_secret.ts";
import { type TrustedKeys, trustedKeys } from "./keys.ts";
import { type SigstoreKeys, sigstoreKeySet } from "./sigstore_material.ts";
import type { PolicySource } from "./source.ts";

/** The keys of an attestation key Secret. */
export interface AttestationKeys {
  /** Its PEM keys, if any. */
  readonly pem?: SigstoreKeys;
  /** Its OpenPGP keys, if any. */
  readonly pgp?: TrustedKeys;
  /** Identifies both key sets, for cache keys. */
  readonly id: string;
}

/** Where the keys of an `attestation` requirement come from. */
export interface AttestationKeySource {
  /** The keys of `namespace/name`; throws a PolicyConfigError when unusable. */
  attestationKeys(namespace: string, name: string): Promise<AttestationKeys>;
}

const PGP_BEGIN = "-----BEGIN PGP ";
const PGP_END = /-----END PGP [A-Z ]+-----/y;

/** `text` without its PGP armour blocks (what the PEM reader is given). */
function withoutPgpBlocks(text: string): string {
  let rest = "";
  let at = 0;
  for (;;) {
    const begin = text.indexOf(PGP_BEGIN, at);
    if (begin < 0) return rest + text.slice(at);
    rest += text.slice(at, begin);
    const end = text.indexOf("-----END PGP ", begin);
    if (end < 0) return rest; // an unterminated block: the OpenPGP reader names it
    PGP_END.lastIndex = end;
    at = PGP_END.test(text) ? PGP_END.lastIndex : end + 13;
  }
}

/** Parses the PEM and the OpenPGP keys of a Secret's `key` entry. */
export async function parseAttestationKeys(
  text: string,
  bounds: KeyBounds,
): Promise<AttestationKeys> {
  const pgpText = text.includes(PGP_BEGIN);
  const pemText = withoutPgpBlocks(text);
  const pgp = pgpText ? await trustedKeys(await readPublicKeys(text, bounds)) : undefined;
  const pem = pemText.includes("-----BEGIN ")
    ? await sigstoreKeySet(await readSigstorePublicKeys(pemText, bounds))
    : undefined;
  if (pem === undefined && pgp === undefined) {
    throw new InvalidKeyError(
      "Cannot read public keys: neither a PEM PUBLIC KEY nor a PGP PUBLIC KEY BLOCK found",
    );
  }
  return {
    ...(pem ? { pem } : {}),
    ...(pgp ? { pgp } : {}),
    id: `${pem?.id ?? "-"}/${pgp?.id ?? "-"}`,
  };
}

const ATTESTATION_KEY_SECRET: KeySecretKind<AttestationKeys> = {
  cacheName: "attestation-key",
  maxCacheBytes: CACHE_BYTES["attestation-key"],
  parse: parseAttestationKeys,
};

/** Reads and caches the key Secrets of `attestation` requirements. */
export class AttestationKeyStore implements AttestationKeySource {
  readonly #reader: KeySecretReader<AttestationKeys>;

  /** Creates a store reading Secrets from `source`, keys within `bounds`. */
  constructor(source: PolicySource, bounds: KeyBounds = {}) {
    this.#reader = new KeySecretReader(source, ATTESTATION_KEY_SECRET, bounds);
  }

  /** The cache's size and bounds, for metrics. */
  stats(): CacheStats {
    return this.#reader.stats();
  }

  /** The keys of Secret `namespace/name` (PEM, OpenPGP or both). */
  attestationKeys(namespace: string, name: string): Promise<AttestationKeys> {
    return this.#reader.read(
      namespace,
      name,
      `key Secret "${namespace}/${name}" (keySecret of an attestation requirement)`,
    );
  }
}
