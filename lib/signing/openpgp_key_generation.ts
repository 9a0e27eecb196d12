/**
 * OpenPGP key pairs for simple signing, made in memory.
 *
 * @module
 */
import * as openpgp from "openpgp";
import { keyFingerprint, KeyGenerationError } from "../signature/mod.ts";

function errorDetail(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Options of {@linkcode generateKeyPair}. */
export interface GenerateKeyPairOptions {
  /** The user ID's name. */
  name: string;
  /** The user ID's e-mail address, if any. */
  email?: string;
  /**
   * `rsa`: RSA-3072. `ed25519`: a v4 EdDSA key on Curve25519 (with a Curve25519 encryption
   * subkey), the kind gpg 2.2 makes and can use. @default "ed25519"
   */
  type?: "rsa" | "ed25519";
  /** Protects the private key with this passphrase; unprotected when absent. */
  passphrase?: string;
  /** Seconds after creation when the key expires; it never expires when absent or 0. */
  keyExpirationTime?: number;
  /** The clock that gives the creation time. @default `() => new Date()` */
  clock?: () => Date;
}

/** A generated key pair. */
export interface GeneratedKeyPair {
  /** The primary key's fingerprint: 40 upper-case hex characters. */
  fingerprint: string;
  /** The public key as an armoured `PGP PUBLIC KEY BLOCK`. */
  publicKeyArmored: string;
  /** The private key as an armoured `PGP PRIVATE KEY BLOCK` (protected when a passphrase was given). */
  privateKeyArmored: string;
  /** An armoured revocation certificate for the key. */
  revocationCertificate: string;
}

/**
 * Generates an OpenPGP key pair for signing images. RFC 9580 Ed25519 keys are not used: gpg 2.2
 * and skopeo cannot use them.
 *
 * @throws {KeyGenerationError} when the user ID is not valid (e.g. a malformed e-mail address).
 */
export async function generateKeyPair(options: GenerateKeyPairOptions): Promise<GeneratedKeyPair> {
  const type = options.type ?? "ed25519";
  const userID = options.email === undefined
    ? { name: options.name }
    : { name: options.name, email: options.email };
  const label = options.email === undefined ? options.name : `${options.name} <${options.email}>`;
  if (typeof options.name !== "string" || options.name.trim() === "") {
    throw new KeyGenerationError(`Cannot generate a key pair for "${label}": the name is empty`);
  }
  if (type !== "rsa" && type !== "ed25519") {
    throw new KeyGenerationError(
      `Cannot generate a key pair for "${label}": unknown key type "${
        String(type)
      }" (rsa, ed25519)`,
    );
  }
  const date = (options.clock ?? (() => new Date()))();
  const algorithm: Pick<openpgp.KeyOptions, "type" | "curve" | "rsaBits"> = type === "rsa"
    ? { type: "rsa", rsaBits: 3072 }
    : { type: "ecc", curve: "curve25519Legacy" };
  try {
    const { privateKey, publicKey, revocationCertificate } = await openpgp.generateKey({
      ...algorithm,
      userIDs: [userID],
      date,
      keyExpirationTime: options.keyExpirationTime ?? 0,
      ...(options.passphrase === undefined ? {} : { passphrase: options.passphrase }),
      format: "object",
    });
    return {
      fingerprint: keyFingerprint(publicKey),
      publicKeyArmored: publicKey.armor(),
      privateKeyArmored: privateKey.armor(),
      revocationCertificate,
    };
  } catch (error) {
    throw new KeyGenerationError(
      `Cannot generate a key pair for "${label}": ${errorDetail(error)}`,
      { cause: error },
    );
  }
}
