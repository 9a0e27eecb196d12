/**
 * Keyed cosign signatures of an image digest, in both of cosign's storage formats, made as
 * cosign v3.1.3 makes them with `cosign sign --key … --tlog-upload=false` (no transparency log:
 * nothing here reaches Rekor, and a verifier must be told to skip the tlog, as
 * `cosign verify --insecure-ignore-tlog` is):
 *
 * - legacy (`--new-bundle-format=false`): the simple-signing payload
 *   `{"critical":{"identity":{"docker-reference":…},"image":{"docker-manifest-digest":…},
 *   "type":"cosign container image signature"},"optional":null}` and the base64 ASN.1 DER
 *   signature over it, for a layer of the `sha256-<hex>.sig` manifest;
 * - bundle (the v3 default): the in-toto statement whose subject is the digest (predicate type
 *   `https://sigstore.dev/cosign/sign/v1`, empty predicate), signed as a DSSE envelope (over its
 *   pre-authentication encoding), in a sigstore bundle v0.3 whose verification material is the
 *   public key's hint (base64 SHA-256 of its DER). The bundle and the DSSE encoding are
 *   sigstore's own code (`@sigstore/bundle`, `@sigstore/core`).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { bundleToJSON, toDSSEBundle } from "@sigstore/bundle";
import { dsse } from "@sigstore/core";
import { encodeBase64 } from "../base64.ts";
import { type CosignSigner, publicKeySha256 } from "./cosign_keys.ts";
import { cosignLegacyPayload, cosignStatement, IN_TOTO_PAYLOAD_TYPE } from "../signature/mod.ts";

/** A legacy cosign signature: the payload of its layer and the layer's signature annotation. */
export interface CosignLegacySignature {
  /** The payload bytes (the layer's blob). */
  readonly payload: Uint8Array;
  /** The base64 ASN.1 DER signature (the `dev.cosignproject.cosign/signature` annotation). */
  readonly signatureBase64: string;
}

/** Signs `manifestDigest` in cosign's legacy format. */
export async function signCosignLegacy(
  signer: CosignSigner,
  options: { dockerReference: string; manifestDigest: string },
): Promise<CosignLegacySignature> {
  const payload = cosignLegacyPayload(options);
  return { payload, signatureBase64: encodeBase64(await signer.sign(payload)) };
}

/**
 * Signs `manifestDigest` as a cosign v3 bundle: the JSON bytes of a sigstore bundle v0.3 with a
 * DSSE envelope of {@linkcode cosignStatement}, without transparency-log entries.
 */
export async function signCosignBundle(
  signer: CosignSigner,
  manifestDigest: string,
): Promise<Uint8Array> {
  return await signDsseBundle(signer, cosignStatement(manifestDigest));
}

/**
 * Signs an in-toto statement (its JSON bytes) as a DSSE envelope (over its pre-authentication
 * encoding) in a sigstore bundle v0.3 whose verification material is the key's hint, without
 * transparency-log entries: a cosign v3 signature's or attestation's bundle.
 */
export async function signDsseBundle(
  signer: CosignSigner,
  statementBytes: Uint8Array,
): Promise<Uint8Array> {
  const statement = Buffer.from(statementBytes);
  const signature = await signer.sign(dsse.preAuthEncoding(IN_TOTO_PAYLOAD_TYPE, statement));
  const bundle = toDSSEBundle({
    artifact: statement,
    artifactType: IN_TOTO_PAYLOAD_TYPE,
    signature: Buffer.from(signature),
    keyHint: encodeBase64(await publicKeySha256(signer.publicKeyDer)),
  });
  // The hint names the key in the verification material only: a DSSE signature with a keyid
  // is skipped by go-securesystemslib's verifier (cosign's) unless the verifier's key id is the
  // same, which a key loaded from a file has not. cosign leaves the keyid out.
  for (const signature of bundle.content.dsseEnvelope.signatures) signature.keyid = "";
  return new TextEncoder().encode(JSON.stringify(bundleToJSON(bundle)));
}
