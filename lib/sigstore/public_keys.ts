/**
 * The public keys of keyed sigstore (cosign) signatures: PEM `PUBLIC KEY` blocks (PKIX
 * SubjectPublicKeyInfo), as `cosign generate-key-pair`, `toolkit image-security keygen --type
 * ecdsa-p256` and `openssl pkey -pubout` write them, one or several in one text (a key Secret's
 * `key` entry may hold several; any one of them satisfies the requirement).
 *
 * Accepted: ECDSA on P-256 or P-384, Ed25519, RSA from 2048 to 4096 bits (the most the
 * runtime's RSA takes; a smaller {@linkcode KeyBounds.maxRsaBits} lowers it) with an odd public
 * exponent from 3 to 2^32. Everything else (P-521, secp256k1, DSA, Ed448, RSA keys too short or
 * too large, private keys, certificates, OpenPGP keys) is refused by name, so that a Secret
 * holding the wrong thing is a configuration error, not a key that never verifies. An RSA key's
 * size and exponent are read from its DER before the runtime parses it, so that the message
 * names what is wrong rather than "malformed".
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
import {
  bitLength,
  checkKeyTextSize,
  InvalidKeyError,
  type KeyBounds,
  KeyNotAcceptedError,
  maxRsaBits,
  PUBLIC_KEY_PEM_LABEL,
  rsaKeyProblem,
} from "../signature/mod.ts";

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

/**
 * The largest RSA modulus the runtime's RSA (`node:crypto` and WebCrypto in Deno) takes, in
 * bits: larger keys are refused whatever {@linkcode KeyBounds.maxRsaBits} allows.
 */
export const MAX_NATIVE_RSA_BITS = 4096;

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

/** {@linkcode KeyBounds} as far as the runtime's RSA can follow them. */
function nativeBounds(bounds: KeyBounds): KeyBounds {
  return maxRsaBits(bounds) <= MAX_NATIVE_RSA_BITS ? bounds : {
    maxRsaBits: MAX_NATIVE_RSA_BITS,
    maxRsaBitsSetting: "the most the runtime's RSA verifies, for cosign keys",
  };
}

function describe(
  key: KeyObject,
  bounds: KeyBounds = {},
): { algorithm?: SigstoreKeyAlgorithm; bits?: number; problem?: string } {
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  switch (type) {
    case "ec":
      if (details.namedCurve === "prime256v1") return { algorithm: "ecdsa-p256" };
      if (details.namedCurve === "secp384r1") return { algorithm: "ecdsa-p384" };
      return {
        problem: `ECDSA on ${
          details.namedCurve ?? "an unknown curve"
        } is not accepted (P-256 or P-384)`,
      };
    case "ed25519":
      return { algorithm: "ed25519" };
    case "rsa": {
      const bits = details.modulusLength ?? 0;
      const problem = rsaKeyProblem(
        bits,
        details.publicExponent ?? 0n,
        nativeBounds(bounds),
        MIN_RSA_BITS,
      );
      return problem === undefined ? { algorithm: "rsa", bits } : { problem };
    }
    default:
      return { problem: `${type ?? "unknown"} keys are not accepted (use ECDSA, Ed25519 or RSA)` };
  }
}

const RSA_ENCRYPTION_OID = "2a864886f70d010101";
const DSA_OID = "2a8648ce380401";

/** One DER element: its tag and where its contents are. */
interface DerElement {
  readonly tag: number;
  readonly start: number;
  readonly end: number;
}

/** The DER element at `offset` of `der`, within `limit`; undefined when it does not fit. */
function derElement(der: Uint8Array, offset: number, limit: number): DerElement | undefined {
  if (offset + 2 > limit) return undefined;
  const tag = der[offset]!;
  let length = der[offset + 1]!;
  let start = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4 || start + count > limit) return undefined;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + der[start + i]!;
    start += count;
  }
  return start + length > limit ? undefined : { tag, start, end: start + length };
}

/**
 * The algorithm OID (hex) of a SubjectPublicKeyInfo and, for RSA, its modulus's bits and its
 * exponent's bytes, read without parsing the key; undefined when the DER is not shaped so (the
 * runtime then says what is wrong).
 */
function spkiOutline(
  der: Uint8Array,
): { oid: string; rsa?: { bits: number; exponent: Uint8Array } } | undefined {
  const spki = derElement(der, 0, der.length);
  if (spki?.tag !== 0x30) return undefined;
  const algorithm = derElement(der, spki.start, spki.end);
  if (algorithm?.tag !== 0x30) return undefined;
  const oid = derElement(der, algorithm.start, algorithm.end);
  const bits = derElement(der, algorithm.end, spki.end);
  if (oid?.tag !== 0x06 || bits?.tag !== 0x03) return undefined;
  const outline = { oid: der.subarray(oid.start, oid.end).toHex() };
  if (outline.oid !== RSA_ENCRYPTION_OID || der[bits.start] !== 0) return outline;
  const sequence = derElement(der, bits.start + 1, bits.end);
  if (sequence?.tag !== 0x30) return outline;
  const n = derElement(der, sequence.start, sequence.end);
  const e = n && derElement(der, n.end, sequence.end);
  if (n?.tag !== 0x02 || e?.tag !== 0x02) return outline;
  const modulusBits = bitLength(der.subarray(n.start, n.end));
  return { ...outline, rsa: { bits: modulusBits, exponent: der.subarray(e.start, e.end) } };
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
  return new Uint8Array(digest).toHex();
}

/**
 * Reads one DER SubjectPublicKeyInfo (`where` names it in messages, e.g. `PEM block 2`).
 *
 * @throws {KeyNotAcceptedError} when the key type, curve, RSA size or exponent is not accepted
 * (checked before the runtime parses an RSA key), naming the key by the SHA-256 of its DER;
 * {@linkcode InvalidKeyError} when it is not a public key.
 */
export async function sigstorePublicKeyFromDer(
  der: Uint8Array,
  where = "the key",
  bounds: KeyBounds = {},
): Promise<SigstorePublicKey> {
  const refuse = async (problem: string): Promise<never> => {
    throw new KeyNotAcceptedError(`key "sha256:${await sha256Hex(der)}" (${where})`, problem);
  };
  const outline = spkiOutline(der);
  if (outline?.oid === DSA_OID) {
    await refuse("DSA keys are not accepted (use ECDSA, Ed25519 or RSA)");
  }
  if (outline?.rsa) {
    const { bits: modulusBits, exponent } = outline.rsa;
    const problem = rsaKeyProblem(modulusBits, exponent, nativeBounds(bounds), MIN_RSA_BITS);
    if (problem !== undefined) await refuse(problem);
  }
  let key: KeyObject;
  try {
    key = nodeCrypto.createPublicKey({ key: der as Uint8Array, format: "der", type: "spki" });
  } catch (error) {
    throw new InvalidKeyError(`Cannot read ${where}: not a PKIX public key`, { cause: error });
  }
  const { algorithm, bits, problem } = describe(key, bounds);
  if (algorithm === undefined) return await refuse(problem!);
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
 * given twice counts once), each within `bounds`.
 *
 * @throws {KeyNotAcceptedError} when a key's type, curve, RSA size or exponent is not accepted;
 * {@linkcode InvalidKeyError} when the text is larger than `MAX_PUBLIC_KEY_BYTES`, there is no
 * block, a block is not a `PUBLIC KEY` (a private key, a certificate, an OpenPGP key) or does
 * not decode; the message says which block.
 */
export async function readSigstorePublicKeys(
  text: string,
  bounds: KeyBounds = {},
): Promise<SigstorePublicKey[]> {
  checkKeyTextSize(text);
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
    const key = await sigstorePublicKeyFromDer(block.bytes, where, bounds);
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

/**
 * The accepted type of a key from elsewhere (a certificate's), within `bounds`, or undefined
 * when not accepted.
 */
export function keyAlgorithm(
  key: KeyObject,
  bounds: KeyBounds = {},
): SigstoreKeyAlgorithm | undefined {
  return describe(key, bounds).algorithm;
}

/**
 * Why a key from elsewhere (a certificate's) is not accepted within `bounds` (e.g. `ECDSA on
 * secp521r1 is not accepted (P-256 or P-384)`), or undefined when it is.
 */
export function keyProblem(key: KeyObject, bounds: KeyBounds = {}): string | undefined {
  return describe(key, bounds).problem;
}
