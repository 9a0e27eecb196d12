/**
 * The key pair of a signing setup, held in memory: made new (an OpenPGP key for simple signing,
 * or an ECDSA P-256 key in cosign's format), or read back from the material a vault holds. What
 * the vault keeps is the private key's bytes (armoured OpenPGP, or cosign's encrypted PEM); what
 * enforcement trusts is the public half and its fingerprint, derived here from those bytes so
 * that a setup can always check that the two halves belong together.
 *
 * @module
 */
import { encodeBase64 } from "../base64.ts";
import {
  generateCosignKeyPair,
  isCosignPrivateKey,
  publicKeySha256,
  readCosignPrivateKey,
} from "./cosign_keys.ts";
import { InvalidKeyError, keyFingerprint, type PrivateKey } from "../signature/mod.ts";
import { readPrivateKey } from "./private_key.ts";
import { generateKeyPair } from "./openpgp_key_generation.ts";

/** The kinds of signing key: OpenPGP for simple signing, or a cosign key. */
export type SigningKeyFormat = "simple" | "cosign";

/** A signing key pair. */
export interface SigningKeyPair {
  readonly format: SigningKeyFormat;
  /** The private key as the vault keeps it (armoured OpenPGP, or cosign's encrypted PEM). */
  readonly privateKey: Uint8Array;
  /** The public key as a key Secret holds it (armoured OpenPGP, or PEM `PUBLIC KEY`). */
  readonly publicKey: string;
  /** OpenPGP: the fingerprint (40 upper-case hex digits); cosign: hex SHA-256 of the DER key. */
  readonly fingerprint: string;
  /** A short description: `RSA-3072 OpenPGP`, `ECDSA P-256 (cosign)`. */
  readonly description: string;
  /** The password the cosign private key is encrypted with. */
  readonly cosignPassword?: string;
}

/** The material is no key that can sign images. */
export class NotASigningKeyError extends InvalidKeyError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "NotASigningKeyError";
  }
}

/** How {@link makeSigningKeyPair} makes a key. */
export interface NewKeyOptions {
  readonly format: SigningKeyFormat;
  /** OpenPGP: RSA-3072 (the default: Portieris and gpg read it) or Ed25519. */
  readonly keyType?: "rsa" | "ed25519";
  /** OpenPGP: the user ID's name. */
  readonly name: string;
  /** OpenPGP: the user ID's e-mail address. */
  readonly email?: string | undefined;
}

/** Makes a key pair in memory (cosign: encrypted with a new random password). */
export async function makeSigningKeyPair(options: NewKeyOptions): Promise<SigningKeyPair> {
  if (options.format === "cosign") {
    const password = encodeBase64(crypto.getRandomValues(new Uint8Array(32)));
    const pair = await generateCosignKeyPair({ password });
    return {
      format: "cosign",
      privateKey: new TextEncoder().encode(pair.privateKeyPem),
      publicKey: pair.publicKeyPem,
      fingerprint: (await publicKeySha256(pair.publicKeyPem)).toHex(),
      description: "ECDSA P-256 (cosign)",
      cosignPassword: password,
    };
  }
  const type = options.keyType ?? "rsa";
  const pair = await generateKeyPair({
    name: options.name,
    type,
    ...(options.email ? { email: options.email } : {}),
  });
  return {
    format: "simple",
    privateKey: new TextEncoder().encode(pair.privateKeyArmored),
    publicKey: pair.publicKeyArmored,
    fingerprint: pair.fingerprint,
    description: type === "rsa" ? "RSA-3072 OpenPGP" : "Ed25519 OpenPGP",
  };
}

/**
 * The key pair of private key material read from a vault. `label` names it in errors; a cosign
 * key needs `cosignPassword`.
 *
 * @throws {NotASigningKeyError} when the material is neither an OpenPGP private key that can
 *   sign nor a cosign private key, or a cosign key's password is missing or wrong.
 */
export async function signingKeyPairOf(
  material: Uint8Array,
  label: string,
  options: { readonly cosignPassword?: string | undefined } = {},
): Promise<SigningKeyPair> {
  if (isCosignPrivateKey(material)) {
    if (options.cosignPassword === undefined) {
      throw new NotASigningKeyError(
        `${label} is a cosign private key: its password is needed (--passphrase-file or COSIGN_PASSWORD)`,
      );
    }
    try {
      const signer = await readCosignPrivateKey(material, options.cosignPassword);
      return {
        format: "cosign",
        privateKey: material,
        publicKey: signer.publicKeyPem,
        fingerprint: (await publicKeySha256(signer.publicKeyDer)).toHex(),
        description: `${signer.algorithm.toUpperCase()} (cosign)`,
        cosignPassword: options.cosignPassword,
      };
    } catch (error) {
      throw new NotASigningKeyError(
        `${label} cannot be read: ${error instanceof Error ? error.message : error}`,
        { cause: error },
      );
    }
  }
  const key = await readOpenPgpSigningKey(material, label);
  return {
    format: "simple",
    privateKey: material,
    publicKey: key.toPublic().armor(),
    fingerprint: keyFingerprint(key),
    description: `${key.getAlgorithmInfo().algorithm} OpenPGP`,
  };
}

/**
 * The OpenPGP private key of `material`, checked to be able to sign. `label` names it in errors.
 *
 * @throws {NotASigningKeyError} when it is no OpenPGP private key (a cosign key included), or
 *   has no key that may sign.
 * @throws {InvalidKeyError} when it is protected and the passphrase is missing or wrong.
 */
export async function readOpenPgpSigningKey(
  material: Uint8Array,
  label: string,
  options: { readonly passphrase?: string | undefined } = {},
): Promise<PrivateKey> {
  let key: PrivateKey;
  try {
    key = await readPrivateKey(
      material,
      options.passphrase === undefined ? {} : { passphrase: options.passphrase },
    );
  } catch (error) {
    if (!(error instanceof InvalidKeyError) || /passphrase/.test(error.message)) throw error;
    throw new NotASigningKeyError(
      `${label} is not a signing key: it holds neither an OpenPGP private key nor a cosign private key (${error.message})`,
      { cause: error },
    );
  }
  try {
    await key.getSigningKey();
  } catch (error) {
    throw new NotASigningKeyError(
      `${label} is not a signing key: the OpenPGP key ${
        keyFingerprint(key)
      } has no key that may sign`,
      { cause: error },
    );
  }
  return key;
}
