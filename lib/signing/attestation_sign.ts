/**
 * Signing an in-toto statement as a DSSE envelope: the signature is over the pre-authentication
 * encoding `PAE("application/vnd.in-toto+json", statement bytes)`
 * (`DSSEv1 <len> <type> <len> <payload>`).
 *
 * - With a cosign key: the ASN.1 DER ECDSA signature cosign makes, `keyid` empty (as cosign
 *   leaves it: go-securesystemslib skips a signature whose keyid is not the verifier's). Stored
 *   in the `.att` tag ({@linkcode encodeEnvelope}) or as a sigstore bundle
 *   ({@linkcode signDsseBundle}).
 * - With an OpenPGP key (toolkit's simple-signing keys): `sig` is an OpenPGP *binary detached*
 *   signature over the PAE bytes, `keyid` the key's fingerprint (40 upper-case hex). cosign
 *   cannot verify these; toolkit's verifier can.
 *
 * @module
 */
import * as openpgp from "openpgp";
import { Buffer } from "node:buffer";
import { dsse } from "@sigstore/core";
import { encodeBase64 } from "../base64.ts";
import type { CosignSigner } from "./cosign_keys.ts";
import {
  IN_TOTO_PAYLOAD_TYPE,
  keyFingerprint,
  OPENPGP_CONFIG,
  type PrivateKey,
  SigningError,
} from "../signature/mod.ts";

/** A DSSE envelope as JSON. */
export interface DsseEnvelope {
  readonly payloadType: string;
  /** The base64 payload (the statement's bytes). */
  readonly payload: string;
  readonly signatures: readonly { readonly keyid: string; readonly sig: string }[];
}

/** `PAE(payloadType, payload)` of DSSE v1: the bytes a DSSE signature signs. */
export function dssePae(payloadType: string, payload: Uint8Array): Uint8Array {
  return new Uint8Array(dsse.preAuthEncoding(payloadType, Buffer.from(payload)));
}

/** Signs `statement` (its JSON bytes) with a cosign key: a DSSE envelope, `keyid` empty. */
export async function signAttestationCosign(
  signer: CosignSigner,
  statement: Uint8Array,
): Promise<DsseEnvelope> {
  const signature = await signer.sign(dssePae(IN_TOTO_PAYLOAD_TYPE, statement));
  return {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    payload: encodeBase64(statement),
    signatures: [{ keyid: "", sig: encodeBase64(signature) }],
  };
}

/**
 * Signs `statement` (its JSON bytes) with an OpenPGP key: a DSSE envelope whose signature is a
 * binary detached OpenPGP signature over the PAE, `keyid` the key's fingerprint.
 *
 * @throws {SigningError} when the key cannot sign.
 */
export async function signAttestationOpenPgp(
  privateKey: PrivateKey,
  statement: Uint8Array,
  options: { clock?: () => Date } = {},
): Promise<DsseEnvelope> {
  const fingerprint = keyFingerprint(privateKey);
  const date = (options.clock ?? (() => new Date()))();
  let signature: Uint8Array;
  try {
    const message = await openpgp.createMessage({
      binary: dssePae(IN_TOTO_PAYLOAD_TYPE, statement),
      date,
    });
    signature = await openpgp.sign({
      message,
      signingKeys: privateKey,
      detached: true,
      format: "binary",
      date,
      config: OPENPGP_CONFIG,
    }) as Uint8Array;
  } catch (error) {
    throw new SigningError(
      `Cannot sign the attestation with key "${fingerprint}": ${
        error instanceof Error ? error.message : error
      }`,
      { cause: error },
    );
  }
  return {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    payload: encodeBase64(statement),
    signatures: [{ keyid: fingerprint, sig: encodeBase64(signature) }],
  };
}

/** The envelope's JSON bytes: the blob of an `.att` layer. */
export function encodeEnvelope(envelope: DsseEnvelope): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({
    payloadType: envelope.payloadType,
    payload: envelope.payload,
    signatures: envelope.signatures.map((s) => ({ keyid: s.keyid, sig: s.sig })),
  }));
}
