/**
 * OpenPGP public keys for simple signing: reading them (one or many, armoured or binary, also
 * several armoured blocks one after another) and checking each against toolkit's accepted
 * algorithms and bounds. Reading a private key is the signing side's (`lib/signing`).
 *
 * @module
 */

import * as openpgp from "openpgp";
import { InvalidKeyError } from "./key_errors.ts";
import {
  checkKeyTextSize,
  type KeyBounds,
  KeyNotAcceptedError,
  MAX_OPENPGP_KEYS,
  rsaKeyProblem,
} from "./key_bounds.ts";
import { OPENPGP_CONFIG, OPENPGP_FULL_CONFIG } from "./_config.ts";

/** An OpenPGP public key (an openpgp.js key object), as {@linkcode readPublicKeys} returns. */
export type PublicKey = openpgp.PublicKey;

/** An OpenPGP private key (an openpgp.js key object), decrypted and ready to sign. */
export type PrivateKey = openpgp.PrivateKey;

export { InvalidKeyError, KeyGenerationError } from "./key_errors.ts";

const ARMOR_BLOCK_REGEXP = /-----BEGIN PGP ([A-Z ]+?)-----[\s\S]*?-----END PGP \1-----/g;
const ARMOR_BEGIN_REGEXP = /-----BEGIN PGP ([A-Z ,/0-9]+?)-----/;

/** Returns the upper-case hex fingerprint of a key's primary key (40 characters for v4). */
export function keyFingerprint(key: PublicKey): string {
  return key.getFingerprint().toUpperCase();
}

/**
 * When `key` stops verifying signatures: the expiry of its primary key or of the subkey it signs
 * with at `date` (the one openpgp.js picks), whichever is first — a past time once the primary
 * key has expired; undefined when nothing of it expires, or it is revoked or invalid.
 */
export async function keyExpiry(
  key: PublicKey,
  date: Date = new Date(),
): Promise<Date | undefined> {
  const times: number[] = [];
  try {
    const primary = await key.getExpirationTime(undefined, OPENPGP_FULL_CONFIG);
    if (primary instanceof Date) times.push(primary.getTime());
    const signing = await key.getSigningKey(undefined, date, undefined, OPENPGP_FULL_CONFIG);
    if (signing !== key) {
      const subkey = await signing.getExpirationTime(date, OPENPGP_FULL_CONFIG);
      if (subkey instanceof Date) times.push(subkey.getTime());
    }
  } catch {
    // No key valid for signing at `date`: nothing to expire.
  }
  return times.length > 0 ? new Date(Math.min(...times)) : undefined;
}

function errorDetail(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Decodes bytes that hold armoured OpenPGP text; undefined when they are binary. */
export function armouredText(input: Uint8Array): string | undefined {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(input);
    return text.includes("-----BEGIN PGP") ? text : undefined;
  } catch {
    return undefined;
  }
}

/** The smallest RSA modulus accepted: "2048-bit" keys sometimes have 2047 bits. */
const MIN_OPENPGP_RSA_BITS = 2047;

/**
 * The curves of ECDSA keys accepted: those openpgp.js verifies with the runtime's WebCrypto
 * (brainpool and secp256k1 would be JavaScript arithmetic, several milliseconds a check).
 */
const ECDSA_CURVES: ReadonlySet<string> = new Set(["nistP256", "nistP384", "nistP521"]);

/** The key algorithms that can make signatures (the others only encrypt). */
const SIGNING_ALGORITHMS: ReadonlySet<string> = new Set([
  "rsaEncryptSign",
  "rsaSign",
  "ecdsa",
  "eddsaLegacy",
  "ed25519",
]);

/** What the check reads of a key or subkey packet. */
type KeyPacket = Pick<openpgp.PublicKeyPacket, "getAlgorithmInfo" | "publicParams">;

/** What is wrong with a key or subkey packet; undefined when toolkit accepts it. */
function packetProblem(packet: KeyPacket, bounds: KeyBounds): string | undefined {
  const info = packet.getAlgorithmInfo();
  switch (info.algorithm) {
    case "rsaEncryptSign":
    case "rsaSign":
    case "rsaEncrypt": {
      const { e } = packet.publicParams as { e?: Uint8Array };
      return rsaKeyProblem(info.bits ?? 0, e ?? new Uint8Array(0), bounds, MIN_OPENPGP_RSA_BITS);
    }
    case "ecdsa":
      return ECDSA_CURVES.has(String(info.curve))
        ? undefined
        : `ECDSA on ${info.curve ?? "an unknown curve"} is not accepted (P-256, P-384 or P-521)`;
    case "eddsaLegacy":
      return info.curve === "ed25519Legacy"
        ? undefined
        : `EdDSA on ${info.curve ?? "an unknown curve"} is not accepted (Ed25519)`;
    case "ed25519":
    // Encryption keys never verify anything: any curve openpgp.js reads.
    case "ecdh":
    case "x25519":
    case "x448":
      return undefined;
    case "dsa":
      return "DSA keys are not accepted (use RSA, ECDSA or Ed25519)";
    case "elgamal":
      return "ElGamal keys are not accepted (use RSA, ECDSA or Ed25519)";
    case "ed448":
      return "Ed448 keys are not accepted (their checks are JavaScript arithmetic; use Ed25519)";
    default:
      return `${info.algorithm} keys are not accepted (use RSA, ECDSA or Ed25519)`;
  }
}

/**
 * Checks every key and subkey of `key` against toolkit's accepted algorithms, curves and
 * {@linkcode KeyBounds}, and that one of them can verify signatures.
 *
 * @throws {KeyNotAcceptedError} naming the first key or subkey that is not accepted, by
 * fingerprint.
 */
export function checkPublicKey(key: openpgp.Key, bounds: KeyBounds = {}): void {
  const fingerprint = keyFingerprint(key);
  const primaryProblem = packetProblem(key.keyPacket, bounds);
  if (primaryProblem !== undefined) {
    throw new KeyNotAcceptedError(`key "${fingerprint}"`, primaryProblem);
  }
  for (const subkey of key.subkeys) {
    const problem = packetProblem(subkey.keyPacket, bounds);
    if (problem !== undefined) {
      throw new KeyNotAcceptedError(
        `key "${fingerprint}" subkey "${subkey.getFingerprint().toUpperCase()}"`,
        problem,
      );
    }
  }
  const algorithms = [key.keyPacket, ...key.subkeys.map((s) => s.keyPacket)].map((p) =>
    p.getAlgorithmInfo().algorithm
  );
  if (!algorithms.some((a) => SIGNING_ALGORITHMS.has(a))) {
    throw new KeyNotAcceptedError(
      `key "${fingerprint}"`,
      `it has no key that can verify signatures (${algorithms.join(", ")} only encrypt)`,
    );
  }
}

async function readBlock(block: string | Uint8Array, where: string): Promise<openpgp.Key[]> {
  try {
    return typeof block === "string"
      ? await openpgp.readKeys({ armoredKeys: block, config: OPENPGP_CONFIG })
      : await openpgp.readKeys({ binaryKeys: block, config: OPENPGP_CONFIG });
  } catch (error) {
    throw new InvalidKeyError(
      `Cannot read public keys from ${where}: not an OpenPGP public key (${errorDetail(error)})`,
      { cause: error },
    );
  }
}

/**
 * Reads every public key in `input`: an armoured `PGP PUBLIC KEY BLOCK` (which may hold several
 * keys), several such blocks one after the other (text around them is ignored), or binary key
 * packets (`gpg --export`). The same key given twice is merged into one. Every key and subkey
 * must be of an accepted algorithm and within `bounds` ({@linkcode checkPublicKey}), and each
 * key must have one that can verify signatures.
 *
 * @throws {KeyNotAcceptedError} naming the key or subkey that is not accepted (too large an RSA
 * modulus or exponent, DSA, ElGamal, a curve not accepted, no key that can verify);
 * {@linkcode InvalidKeyError} when the input is empty or larger than
 * `MAX_PUBLIC_KEY_BYTES`, holds no public key or more than
 * {@linkcode MAX_OPENPGP_KEYS}, holds a private key, or cannot be parsed.
 */
export async function readPublicKeys(
  input: string | Uint8Array,
  bounds: KeyBounds = {},
): Promise<PublicKey[]> {
  checkKeyTextSize(input);
  const text = typeof input === "string" ? input : armouredText(input);
  const blocks: Array<string | Uint8Array> = [];
  if (text === undefined) {
    if (input.length === 0) {
      throw new InvalidKeyError("Cannot read public keys: the input is empty");
    }
    blocks.push(input as Uint8Array);
  } else {
    if (text.trim() === "") {
      throw new InvalidKeyError("Cannot read public keys: the input is empty");
    }
    for (const match of text.matchAll(ARMOR_BLOCK_REGEXP)) {
      const type = match[1];
      if (type === "PRIVATE KEY BLOCK") {
        throw new InvalidKeyError(
          "Cannot read public keys: the input holds a private key; give the public key (gpg --armor --export)",
        );
      }
      if (type === "PUBLIC KEY BLOCK") blocks.push(match[0]);
    }
    if (blocks.length === 0) {
      const other = ARMOR_BEGIN_REGEXP.exec(text);
      throw new InvalidKeyError(
        other === null
          ? "Cannot read public keys: no armoured PGP PUBLIC KEY BLOCK found"
          : `Cannot read public keys: found a PGP ${other[1]}, not a complete PGP PUBLIC KEY BLOCK`,
      );
    }
  }

  const keys: PublicKey[] = [];
  const byFingerprint = new Map<string, number>();
  for (const [index, block] of blocks.entries()) {
    const where = blocks.length > 1 ? `armoured block ${index + 1}` : "the input";
    for (const key of await readBlock(block, where)) {
      if (key.isPrivate()) {
        throw new InvalidKeyError(
          "Cannot read public keys: the input holds a private key; give the public key (gpg --armor --export)",
        );
      }
      checkPublicKey(key, bounds);
      const fingerprint = keyFingerprint(key);
      const seen = byFingerprint.get(fingerprint);
      if (seen === undefined) {
        byFingerprint.set(fingerprint, keys.length);
        keys.push(key);
        continue;
      }
      try {
        // The same key twice (e.g. once more with a later revocation): keep everything of both.
        keys[seen] = await keys[seen]!.update(key, undefined, OPENPGP_FULL_CONFIG);
      } catch (error) {
        throw new InvalidKeyError(
          `Cannot read public key "${fingerprint}": it is given twice and the copies cannot be merged`,
          { cause: error },
        );
      }
    }
  }
  if (keys.length === 0) {
    throw new InvalidKeyError("Cannot read public keys: the input holds no key");
  }
  if (keys.length > MAX_OPENPGP_KEYS) {
    throw new InvalidKeyError(
      `Cannot read public keys: the input holds ${keys.length} keys, more than ${MAX_OPENPGP_KEYS}`,
    );
  }
  return keys;
}
