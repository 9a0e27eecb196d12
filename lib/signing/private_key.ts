/**
 * Reading an OpenPGP private key to sign with: the signing side's, never loaded by the webhook
 * (`tools/layering.ts`, rule `webhook-signing`).
 *
 * @module
 */
import * as openpgp from "openpgp";
import {
  armouredText,
  InvalidKeyError,
  keyFingerprint,
  OPENPGP_CONFIG,
  type PrivateKey,
} from "../signature/mod.ts";

function errorDetail(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Options of {@linkcode readPrivateKey}. */
export interface ReadPrivateKeyOptions {
  /** The passphrase, when the key is protected by one. */
  passphrase?: string;
}

/**
 * Reads one private key (armoured `PGP PRIVATE KEY BLOCK` or binary `gpg --export-secret-keys`)
 * and decrypts it with the passphrase when it is protected.
 *
 * @throws {InvalidKeyError} when the input holds no private key or several, is protected and no
 * passphrase or a wrong one is given, or cannot be parsed.
 */
export async function readPrivateKey(
  input: string | Uint8Array,
  options: ReadPrivateKeyOptions = {},
): Promise<PrivateKey> {
  const text = typeof input === "string" ? input : armouredText(input);
  let keys: openpgp.PrivateKey[];
  try {
    keys = text === undefined
      ? await openpgp.readPrivateKeys({ binaryKeys: input as Uint8Array, config: OPENPGP_CONFIG })
      : await openpgp.readPrivateKeys({ armoredKeys: text, config: OPENPGP_CONFIG });
  } catch (error) {
    throw new InvalidKeyError(
      `Cannot read private key: not an OpenPGP private key (${errorDetail(error)})`,
      { cause: error },
    );
  }
  if (keys.length !== 1) {
    throw new InvalidKeyError(
      `Cannot read private key: the input holds ${keys.length} private keys, not one`,
    );
  }
  const key = keys[0]!;
  const fingerprint = keyFingerprint(key);
  if (key.isDecrypted()) return key;
  if (options.passphrase === undefined) {
    throw new InvalidKeyError(
      `Cannot read private key "${fingerprint}": it is protected by a passphrase and none was given`,
    );
  }
  try {
    return await openpgp.decryptKey({
      privateKey: key,
      passphrase: options.passphrase,
      config: OPENPGP_CONFIG,
    });
  } catch (error) {
    throw new InvalidKeyError(
      `Cannot read private key "${fingerprint}": the passphrase is wrong or the key is damaged (${
        errorDetail(error)
      })`,
      { cause: error, wrongSecret: true },
    );
  }
}
