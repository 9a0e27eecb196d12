/**
 * The public keys of keyed sigstore (cosign) signatures: PEM `PUBLIC KEY` blocks (PKIX
 * SubjectPublicKeyInfo), as `cosign generate-key-pair`, `toolkit image-security keygen --type
 * ecdsa-p256` and `openssl pkey -pubout` write them, one or several in one text (a key Secret's
 * `key` entry may hold several; any one of them satisfies the requirement).
 *
 * Accepted: ECDSA on P-256 or P-384, Ed25519, RSA of 2048 bits or more. Everything else
 * (P-521, secp256k1, DSA, Ed448, short RSA keys, private keys, certificates, OpenPGP keys) is
 * refused by name, so that a Secret holding the wrong thing is a configuration error, not a key
 * that never verifies.
 *
 * The digest each key signs with is the one cosign uses for it (sigstore's
 * `LoadDefaultVerifier`): SHA-256 for P-256 and RSA (PKCS #1 v1.5), SHA-384 for P-384, with
 * SHA-256 also accepted for P-384 (cosign before v3.1.3 hashed with SHA-256 whatever the key);
 * Ed25519 signs the message itself. ECDSA signatures are ASN.1 DER, as cosign writes them.
 *
 * @module
 */
import nodeCrypto, { type KeyObject } from "node:crypto";
import { decodePem, encodePem, PemSyntaxError } from "../pem.ts";
import { InvalidKeyError, PUBLIC_KEY_PEM_LABEL } from "../signature/mod.ts";

/** The key types accepted. */
export type SigstoreKeyAlgorithm = "ecdsa-p256" | "ecdsa-p384" | "ed25519" | "rsa";

/** A public key that verifies sigstore signatures. */
export interface SigstorePublicKey {
  /** The key, for `node:crypto` (and `@sigstore/verify`). */
  readonly key: KeyObject;
  /** Its type. */
  readonly algorithm: SigstoreKeyAlgorithm;
  /** The RSA modulus length, in bits. */
  readonly bits?: number;
  /** `sha256:<hex>` of the DER SubjectPublicKeyInfo: names the key in messages and cache keys. */
  readonly id: string;
  /** The PEM text of the key, normalised (64-character lines). */
  readonly pem: string;
}

/** The smallest RSA modulus accepted, in bits. */
export const MIN_RSA_BITS = 2048;

/** The most keys one text may hold. */
export const MAX_PUBLIC_KEYS = 64;

/**
 * Whether `text` holds a PEM block that is not OpenPGP armour (a `PUBLIC KEY`, but also a
 * private key or certificate given by mistake): how the CLI tells a cosign key from a gpg one.
 */
export function isPemPublicKey(text: string | Uint8Array): boolean {
  const decoded = typeof text === "string"
    ? text
    : new TextDecoder().decode(text.subarray(0, 65536));
  return /-----BEGIN (?!PGP )[A-Z0-9 ]{1,40}-----/.test(decoded);
}

function describe(
  key: KeyObject,
): { algorithm?: SigstoreKeyAlgorithm; bits?: number; problem?: string } {
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  switch (type) {
    case "ec":
      if (details.namedCurve === "prime256v1") return { algorithm: "ecdsa-p256" };
      if (details.namedCurve === "secp384r1") return { algorithm: "ecdsa-p384" };
      return {
        problem: `ECDSA on ${details.namedCurve ?? "an unknown curve"} (use P-256 or P-384)`,
      };
    case "ed25519":
      return { algorithm: "ed25519" };
    case "rsa": {
      const bits = details.modulusLength ?? 0;
      return bits >= MIN_RSA_BITS
        ? { algorithm: "rsa", bits }
        : { problem: `RSA ${bits}-bit (too weak: at least ${MIN_RSA_BITS} bits)` };
    }
    default:
      return { problem: `a ${type ?? "unknown"} key (use ECDSA P-256/P-384, Ed25519 or RSA)` };
  }
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Reads one DER SubjectPublicKeyInfo.
 *
 * @throws {InvalidKeyError} when it is not one or the key type is not accepted.
 */
export async function sigstorePublicKeyFromDer(
  der: Uint8Array,
  where = "the key",
): Promise<SigstorePublicKey> {
  let key: KeyObject;
  try {
    key = nodeCrypto.createPublicKey({ key: der as Uint8Array, format: "der", type: "spki" });
  } catch (error) {
    throw new InvalidKeyError(`Cannot read ${where}: not a PKIX public key`, { cause: error });
  }
  const { algorithm, bits, problem } = describe(key);
  if (algorithm === undefined) throw new InvalidKeyError(`Cannot use ${where}: ${problem}`);
  // The DER as the runtime re-encodes it: the same key always has the same id.
  const canonical = new Uint8Array(key.export({ type: "spki", format: "der" }));
  return {
    key,
    algorithm,
    ...(bits === undefined ? {} : { bits }),
    id: `sha256:${await sha256Hex(canonical)}`,
    pem: encodePem(PUBLIC_KEY_PEM_LABEL, canonical),
  };
}

/**
 * Reads every PEM `PUBLIC KEY` block of `text` (text around the blocks is ignored; the same key
 * given twice counts once).
 *
 * @throws {InvalidKeyError} when there is no block, a block is not a `PUBLIC KEY` (a private key,
 * a certificate, an OpenPGP key), does not decode, or holds a key type that is not accepted; the
 * message says which block.
 */
export async function readSigstorePublicKeys(text: string): Promise<SigstorePublicKey[]> {
  if (text.includes("-----BEGIN PGP")) {
    throw new InvalidKeyError(
      "Cannot read public keys: this is an OpenPGP key, not a PEM public key (-----BEGIN PUBLIC KEY-----)",
    );
  }
  let blocks;
  try {
    blocks = decodePem(text, { maxBlocks: MAX_PUBLIC_KEYS });
  } catch (error) {
    if (!(error instanceof PemSyntaxError)) throw error;
    throw new InvalidKeyError(
      error.message.includes("no PEM block")
        ? "Cannot read public keys: no PEM block (-----BEGIN PUBLIC KEY-----) found"
        : `Cannot read public keys: ${error.message}`,
      { cause: error },
    );
  }
  const keys: SigstorePublicKey[] = [];
  for (const [index, block] of blocks.entries()) {
    const where = `PEM block ${index + 1}`;
    if (block.label !== PUBLIC_KEY_PEM_LABEL) {
      throw new InvalidKeyError(
        `Cannot use ${where}: it is a ${block.label}, not a PUBLIC KEY${
          block.label.includes("PRIVATE") ? " (never give a private key to verify)" : ""
        }`,
      );
    }
    const key = await sigstorePublicKeyFromDer(block.bytes, where);
    if (!keys.some((k) => k.id === key.id)) keys.push(key);
  }
  return keys;
}

/** The digests a signature by a key of this type may be made over, preferred first. */
export function signatureDigests(algorithm: SigstoreKeyAlgorithm): readonly (string | null)[] {
  switch (algorithm) {
    case "ecdsa-p256":
    case "rsa":
      return ["sha256"];
    case "ecdsa-p384":
      return ["sha384", "sha256"];
    case "ed25519":
      return [null];
  }
}

/**
 * Whether `signature` (DER for ECDSA, PKCS #1 v1.5 for RSA, raw for Ed25519) is a signature of
 * `data` by `key`, over one of the digests cosign uses for the key's type. A key of a type that
 * is not accepted verifies nothing.
 */
export function verifyWithKey(key: KeyObject, data: Uint8Array, signature: Uint8Array): boolean {
  const algorithm = keyAlgorithm(key);
  if (algorithm === undefined) return false;
  return signatureDigests(algorithm).some((digest) => {
    try {
      return nodeCrypto.verify(digest, data, key, signature);
    } catch {
      return false;
    }
  });
}

/** The accepted type of a key from elsewhere (a certificate's), or undefined when not accepted. */
export function keyAlgorithm(key: KeyObject): SigstoreKeyAlgorithm | undefined {
  return describe(key).algorithm;
}
