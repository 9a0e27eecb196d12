/**
 * Verification of one stored attestation (an in-toto statement in a DSSE envelope), in either
 * storage format, against what an `attestation` requirement trusts:
 *
 * 1. **The signature over the envelope's pre-authentication encoding** (PAE of
 *    `application/vnd.in-toto+json` and the payload bytes), before the statement is read.
 *    - A sigstore bundle (an OCI referrer, cosign v3): `verify.ts`'s bundle verification (the
 *      requirement's PEM keys, or keyless: the Fulcio certificate, its identity, the log and
 *      timestamp evidence of the trust root). OpenPGP keys do not sign bundles.
 *    - A legacy `.att` layer (its blob the envelope): one of the envelope's signatures verifies
 *      with a PEM key of the requirement (cosign's: ASN.1 DER over the key type's digest of the
 *      PAE), or is an OpenPGP binary detached signature over the PAE by one of its OpenPGP keys
 *      (toolkit's simple-signing keys). Keyless, and keyed with `tlog: required`, the layer is
 *      verified as strictly as a legacy `.sig` signature (`verify.ts`'s
 *      `verifyLegacyAttestationSignature`): the envelope's one signature, the certificate of the
 *      `dev.sigstore.cosign/certificate` annotation and its identity, the Rekor entry of the
 *      `dev.sigstore.cosign/bundle` annotation (an `intoto` or `dsse` entry of this envelope,
 *      naming this certificate or key, its signed entry timestamp by a log of the trust root)
 *      and the `dev.sigstore.cosign/rfc3161timestamp` annotation (over the envelope).
 * 2. **The statement**: strict JSON, an in-toto Statement v1 or v0.1, one subject's digest the
 *    digest being admitted. The predicate type is returned for the requirement to compare (an
 *    image's attestations of every type verified with one trust are what conditions see).
 *
 * @module
 */
import {
  type DsseEnvelope,
  dssePae,
  IN_TOTO_PAYLOAD_TYPE,
  InvalidPayloadError,
  type JsonValue,
  parseAttestationStatement,
  parseDsseEnvelope,
  type PublicKey,
  verifyDetachedOpenPgp,
} from "../signature/mod.ts";
import type { StoredCosignSignature } from "../registry/mod.ts";
import { decodeBase64 } from "../base64.ts";
import { JsonShapeError, parseJsonWithin } from "../json_shape.ts";
import {
  BUNDLE_JSON_LIMITS,
  type SigstoreTrust,
  verifyLegacyAttestationSignature,
  verifySigstoreBundle,
} from "./verify.ts";
import { verifyWithKey } from "./public_keys.ts";

/** What an `attestation` requirement trusts. */
export interface AttestationTrust {
  /** PEM keys or keyless (cosign); undefined when the requirement has OpenPGP keys only. */
  readonly sigstore?: SigstoreTrust | undefined;
  /** OpenPGP public keys (toolkit's simple-signing keys). */
  readonly openpgp?: readonly PublicKey[];
  /** The time OpenPGP signatures and keys must be valid at. */
  readonly clock: () => Date;
}

/** An accepted attestation. */
export interface VerifiedAttestation {
  readonly format: StoredCosignSignature["format"];
  readonly where: string;
  /** Who signed: a PEM key's id, an OpenPGP fingerprint, or the certificate's subject. */
  readonly signer: string;
  readonly predicateType: string;
  /** The statement (objects without prototype). */
  readonly statement: { readonly [key: string]: JsonValue };
  /** OpenPGP: when the signature or its key expires, if either does. */
  readonly validUntil?: Date;
}

/** The outcome for one stored attestation. */
export type AttestationVerification =
  | { readonly verified: true; readonly attestation: VerifiedAttestation }
  | { readonly verified: false; readonly reason: string };

/** Why an attestation is refused. */
class Refusal extends Error {}

function refuse(reason: string): never {
  throw new Refusal(reason);
}

/** The envelope of a stored bundle (JSON form), before the bundle's signature is verified. */
function bundleEnvelope(bytes: Uint8Array): DsseEnvelope {
  let json: unknown;
  try {
    json = parseJsonWithin(bytes, BUNDLE_JSON_LIMITS, "the bundle");
  } catch (error) {
    refuse(error instanceof JsonShapeError ? error.message : "the bundle is not JSON");
  }
  const envelope = (json as { dsseEnvelope?: unknown } | null)?.dsseEnvelope;
  if (typeof envelope !== "object" || envelope === null) {
    refuse("the bundle holds no DSSE envelope");
  }
  const { payload, payloadType } = envelope as Record<string, unknown>;
  if (payloadType !== IN_TOTO_PAYLOAD_TYPE) {
    refuse(`its DSSE payload type ${JSON.stringify(payloadType ?? null)} is not in-toto's`);
  }
  if (typeof payload !== "string") refuse("its DSSE envelope has no payload");
  let decoded: Uint8Array;
  try {
    decoded = decodeBase64(payload);
  } catch {
    refuse("its DSSE payload is not base64");
  }
  return {
    payloadType,
    payload: decoded,
    // The bundle's signature is verified from the bundle itself.
    signatures: [],
  };
}

/** Whether `bytes` start with an OpenPGP packet header of tag 2 (a signature). */
function isOpenPgpSignaturePacket(bytes: Uint8Array): boolean {
  const first = bytes[0];
  if (first === undefined || (first & 0x80) === 0) return false;
  const tag = (first & 0x40) !== 0 ? first & 0x3f : (first >> 2) & 0x0f;
  return tag === 2;
}

/** Verifies a legacy envelope's signatures (the layer's blob and annotations); returns the signer. */
async function verifyEnvelope(
  envelope: DsseEnvelope,
  layer: Extract<StoredCosignSignature, { format: "legacy" }>,
  trust: AttestationTrust,
): Promise<{ signer: string; validUntil?: Date }> {
  const pae = dssePae(envelope.payloadType, envelope.payload);
  const sigstore = trust.sigstore;
  const reasons: string[] = [];
  if (sigstore !== undefined) {
    if ("keyless" in sigstore || sigstore.tlog === "required") {
      const who = await verifyLegacyAttestationSignature(
        layer.payload,
        layer.annotations,
        envelope,
        sigstore,
      );
      if (who.verified) return { signer: who.keyId ?? `${who.subject} (${who.issuer})` };
      reasons.push(who.reason);
    } else {
      for (const { sig } of envelope.signatures) {
        const key = sigstore.keys.find((k) => verifyWithKey(k.key, pae, sig));
        if (key !== undefined) return { signer: key.id };
      }
      reasons.push(
        `the envelope's signature does not verify with ${
          sigstore.keys.length === 1 ? "the PEM key" : `any of the ${sigstore.keys.length} PEM keys`
        } of the requirement`,
      );
    }
  }
  const openpgp = trust.openpgp ?? [];
  if (openpgp.length > 0) {
    for (const { sig } of envelope.signatures) {
      // What is not an OpenPGP signature packet (cosign's DER signature) was for the PEM keys.
      if (sigstore !== undefined && !isOpenPgpSignaturePacket(sig)) continue;
      const result = await verifyDetachedOpenPgp(pae, sig, openpgp, trust.clock());
      if (result.verified) {
        return {
          signer: result.keyFingerprint,
          ...(result.validUntil ? { validUntil: result.validUntil } : {}),
        };
      }
      reasons.push(`OpenPGP: ${result.reason}`);
    }
  }
  if (reasons.length === 0) refuse("the requirement has no key to verify it with");
  return refuse(reasons.join("; "));
}

/**
 * Verifies one stored attestation of the image `manifestDigest`; never throws for anything the
 * attestation holds.
 */
export async function verifyAttestation(
  stored: StoredCosignSignature,
  trust: AttestationTrust,
  manifestDigest: string,
): Promise<AttestationVerification> {
  try {
    let envelope: DsseEnvelope;
    let signer: string;
    let validUntil: Date | undefined;
    if (stored.format === "legacy") {
      envelope = parseDsseEnvelope(stored.payload);
      ({ signer, validUntil } = await verifyEnvelope(envelope, stored, trust));
    } else {
      if (trust.sigstore === undefined) {
        refuse(
          "a sigstore bundle is signed with X.509 or PEM key material, not the requirement's OpenPGP keys",
        );
      }
      envelope = bundleEnvelope(stored.bundle);
      const who = await verifySigstoreBundle(stored.bundle, trust.sigstore);
      if (!who.verified) refuse(who.reason);
      signer = who.keyId ?? `${who.subject} (${who.issuer})`;
    }
    const parsed = parseAttestationStatement(envelope.payload);
    if (!parsed.subjectDigests.includes(manifestDigest)) {
      refuse(
        `its statement's subject is ${parsed.subjectDigests.join(", ")}, not ${manifestDigest}`,
      );
    }
    return {
      verified: true,
      attestation: {
        format: stored.format,
        where: stored.where,
        signer,
        predicateType: parsed.predicateType,
        statement: parsed.statement,
        ...(validUntil ? { validUntil } : {}),
      },
    };
  } catch (error) {
    const reason = error instanceof Refusal
      ? error.message
      : error instanceof InvalidPayloadError
      ? error.detail
      : `it cannot be verified (${error instanceof Error ? error.message : String(error)})`;
    return { verified: false, reason: `${stored.where}: ${reason}` };
  }
}

/**
 * The predicate type an attestation's statement claims, unverified (for denials: whether an
 * attestation of the type exists at all); undefined when it cannot be read.
 */
export function claimedPredicateType(stored: StoredCosignSignature): string | undefined {
  try {
    const envelope = stored.format === "legacy"
      ? parseDsseEnvelope(stored.payload)
      : bundleEnvelope(stored.bundle);
    return parseAttestationStatement(envelope.payload).predicateType;
  } catch {
    return undefined;
  }
}
