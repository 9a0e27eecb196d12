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
import { decodeBase64, encodeBase64 } from "../base64.ts";
import type { CosignSigner } from "./cosign_keys.ts";
import {
  dssePae,
  IN_TOTO_PAYLOAD_TYPE,
  keyFingerprint,
  OPENPGP_CONFIG,
  type PrivateKey,
  SigningError,
} from "../signature/mod.ts";

/** A DSSE envelope as JSON. */
export interface DsseEnvelopeJson {
  readonly payloadType: string;
  /** The base64 payload (the statement's bytes). */
  readonly payload: string;
  readonly signatures: readonly { readonly keyid: string; readonly sig: string }[];
}

/** Signs `statement` (its JSON bytes) with a cosign key: a DSSE envelope, `keyid` empty. */
export async function signAttestationCosign(
  signer: CosignSigner,
  statement: Uint8Array,
): Promise<DsseEnvelopeJson> {
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
): Promise<DsseEnvelopeJson> {
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
export function encodeEnvelope(envelope: DsseEnvelopeJson): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({
    payloadType: envelope.payloadType,
    payload: envelope.payload,
    signatures: envelope.signatures.map((s) => ({ keyid: s.keyid, sig: s.sig })),
  }));
}

/**
 * Whether `envelope` (the JSON bytes of an `.att` layer) is a DSSE envelope of exactly
 * `statement` with a signature that `verify` accepts over its PAE: the same attestation signed
 * again. Anything unreadable is not.
 */
export async function envelopeSignsStatement(
  envelope: Uint8Array,
  statement: Uint8Array,
  verify: (pae: Uint8Array, signature: Uint8Array) => Promise<boolean>,
): Promise<boolean> {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(envelope));
  } catch {
    return false;
  }
  if (typeof doc !== "object" || doc === null) return false;
  const { payloadType, payload, signatures } = doc as Record<string, unknown>;
  if (
    payloadType !== IN_TOTO_PAYLOAD_TYPE || payload !== encodeBase64(statement) ||
    !Array.isArray(signatures)
  ) return false;
  const pae = dssePae(IN_TOTO_PAYLOAD_TYPE, statement);
  for (const signature of signatures) {
    const sig = (signature as Record<string, unknown> | null)?.sig;
    if (typeof sig !== "string") continue;
    let bytes: Uint8Array;
    try {
      bytes = decodeBase64(sig);
    } catch {
      continue;
    }
    if (await verify(pae, bytes)) return true;
  }
  return false;
}

/** Whether `signature` is an OpenPGP binary detached signature of `data` by `privateKey`. */
export async function openPgpSignatureVerifies(
  privateKey: PrivateKey,
  data: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  try {
    const result = await openpgp.verify({
      message: await openpgp.createMessage({ binary: data }),
      signature: await openpgp.readSignature({ binarySignature: signature }),
      verificationKeys: privateKey.toPublic(),
      config: OPENPGP_CONFIG,
    });
    return result.signatures.length > 0 &&
      (await Promise.all(result.signatures.map((s) => s.verified.then(() => true, () => false))))
        .some(Boolean);
  } catch {
    return false;
  }
}
