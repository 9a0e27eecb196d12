/**
 * Making simple-signing signatures: the payload of {@linkcode createPayload} wrapped in a
 * binary, non-detached OpenPGP signed message (one-pass signature, literal data, signature),
 * which gpg 2.2, gpgme and `skopeo standalone-verify` accept.
 *
 * @module
 */

import * as openpgp from "openpgp";
import { formatReference, parseDockerReference } from "../image/mod.ts";
import {
  createPayload,
  encodePayload,
  keyFingerprint,
  OPENPGP_CONFIG,
  type PrivateKey,
  SigningError,
} from "../signature/mod.ts";
import { readPrivateKey } from "./private_key.ts";

/** Options of {@linkcode signImage}. */
export interface SignImageOptions {
  /** The signing key: a decrypted key object, or an armoured or binary private key. */
  privateKey: PrivateKey | string | Uint8Array;
  /** The passphrase when `privateKey` is given as a protected armoured or binary key. */
  passphrase?: string;
  /**
   * The identity to sign, fully qualified with a tag or digest
   * (`docker.io/library/nginx:1.25`). It is stored as given.
   */
  dockerReference: string;
  /** The digest of the image's manifest (`sha256:<64 hex>`). */
  manifestDigest: string;
  /** The clock that gives the payload timestamp and the signature time. @default `() => new Date()` */
  clock?: () => Date;
}

function errorDetail(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Signs an image: returns the binary simple-signing signature (a non-detached OpenPGP signed
 * message whose literal data is the JSON payload), as stored in a lookaside directory or sent to
 * the registry signature API.
 *
 * @throws {SigningError} when the reference is not a fully qualified reference with a tag or
 * digest, the digest is not valid, or the key cannot sign.
 */
export async function signImage(options: SignImageOptions): Promise<Uint8Array> {
  const { dockerReference, manifestDigest } = options;
  try {
    const ref = parseDockerReference(dockerReference);
    if (ref.tag === undefined && ref.digest === undefined) {
      throw new SigningError(
        `Cannot sign "${formatReference(ref)}": the reference needs a tag or a digest`,
      );
    }
  } catch (error) {
    if (error instanceof SigningError) throw error;
    throw new SigningError(`Cannot sign "${dockerReference}": ${errorDetail(error)}`, {
      cause: error,
    });
  }
  let payload: Uint8Array;
  const clock = options.clock ?? (() => new Date());
  const date = clock();
  try {
    payload = encodePayload(createPayload({ dockerReference, manifestDigest, clock: () => date }));
  } catch (error) {
    throw new SigningError(`Cannot sign "${dockerReference}": ${errorDetail(error)}`, {
      cause: error,
    });
  }

  let key: PrivateKey;
  if (options.privateKey instanceof openpgp.PrivateKey) {
    key = options.privateKey;
  } else {
    try {
      key = await readPrivateKey(
        options.privateKey,
        options.passphrase === undefined ? {} : { passphrase: options.passphrase },
      );
    } catch (error) {
      throw new SigningError(`Cannot sign "${dockerReference}": ${errorDetail(error)}`, {
        cause: error,
      });
    }
  }

  try {
    const message = await openpgp.createMessage({ binary: payload, date });
    const signed = await openpgp.sign({
      message,
      signingKeys: key,
      format: "binary",
      date,
      config: OPENPGP_CONFIG,
    });
    return signed as Uint8Array;
  } catch (error) {
    throw new SigningError(
      `Cannot sign "${dockerReference}" with key "${keyFingerprint(key)}": ${errorDetail(error)}`,
      { cause: error },
    );
  }
}
