/**
 * Verification of one stored cosign signature, in either storage format, against what a
 * `sigstoreSigned` requirement trusts. The X.509, DSSE, transparency-log and timestamp work is
 * `@sigstore/verify`'s (with `@sigstore/bundle` and `@sigstore/core`); this module decides what
 * is handed to it and what its answer must also satisfy. A signature is accepted only when every
 * step holds, and each refusal says which step failed:
 *
 * 1. **The signature over the exact bytes.** Legacy: the layer's payload blob, with the
 *    `dev.cosignproject.cosign/signature` annotation. Bundle: the DSSE pre-authentication encoding
 *    of the envelope's payload (which must be an in-toto statement, with one signature). A legacy
 *    `.att` layer (an attestation, {@linkcode verifyLegacyAttestationSignature}): the layer blob is
 *    a DSSE envelope whose one signature, over its pre-authentication encoding, stands for the
 *    payload's; every other step is the legacy `.sig` layer's, from the same annotations.
 *    - Keyed: one of the key Secret's keys verifies it (the digest the key's type signs with, see
 *      `public_keys.ts`). Nothing a signature carries is ever used as a key: not a certificate,
 *      not a public key in a bundle or in the certificate annotation (GHSA-fx35-mq7g-6g98).
 *    - Keyless: the certificate (the `dev.sigstore.cosign/certificate` annotation, or the
 *      bundle's) must be an X.509 certificate that chains to a Fulcio CA of the trust root,
 *      every certificate of the chain valid at a verified signing time, with a verified SCT when
 *      the trust root lists CT logs; its key of an accepted type (refused as such before the
 *      signature is checked) verifies the signature; the path passes cosign's checks that the
 *      library leaves out (`certificate_path.ts`: critical extensions understood, code signing
 *      in every extended key usage, names within the CAs' name constraints); its subject (URI,
 *      e-mail, or Fulcio username otherName) and issuer are one of the accepted identities.
 * 2. **Evidence of the signing time and of the log** (checked against the trust root's keys):
 *    Rekor entries (the legacy `dev.sigstore.cosign/bundle` signed entry timestamp, or the
 *    bundle's inclusion promise or proof) and RFC 3161 timestamps. Keyless always needs at least
 *    one verified time (an entry with an inclusion promise, or a timestamp), and a log entry when
 *    `tlog: required` (the default for keyless). Keyed with `tlog: required` needs a log entry
 *    verified by a log key of the requirement's trust root, every entry naming the key or
 *    certificate the signature is verified with (`log_entry_verifier.ts`; no Rekor v2 `dsse`
 *    entry). A legacy `.att` layer's entries are `intoto` (0.0.1, whose inclusion promise is
 *    verified here as the library verifies the others', 0.0.2) or `dsse` entries whose hash of
 *    the whole envelope is the layer blob's (cosign's check), and its RFC 3161 timestamps are over
 *    the envelope (cosign's). Keyed with `tlog: optional` (the default for keyed) ignores log
 *    entries and timestamps, as `cosign verify --insecure-ignore-tlog` does.
 * 3. **The image.** Legacy: the payload (strict JSON, `critical.type` cosign's) names the digest
 *    being admitted, and its `docker-reference` meets the `signedIdentity` rule (by default
 *    `matchRepository`: a cosign signature names only a repository). Bundle: the statement's
 *    predicate type is cosign's signature predicate and one subject is the digest being admitted;
 *    a bundle names no repository, so it meets no explicit `signedIdentity` rule.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createPublicKey, type KeyObject } from "node:crypto";
import { type Bundle, bundleFromJSON } from "@sigstore/bundle";
import { crypto as coreCrypto, dsse, json as canonicalJson, X509Certificate } from "@sigstore/core";
import {
  type SignedEntity,
  toSignedEntity,
  type TrustMaterial,
  VerificationError,
  Verifier,
  type VerifierOptions,
} from "@sigstore/verify";
import { decodeBase64, encodeBase64 } from "../base64.ts";
import { decodePem, PemSyntaxError } from "../pem.ts";
import type { ImageReference } from "../image/mod.ts";
import {
  COSIGN_BUNDLE_ANNOTATION,
  COSIGN_CERTIFICATE_ANNOTATION,
  COSIGN_PAYLOAD_TYPE,
  COSIGN_RFC3161_TIMESTAMP_ANNOTATION,
  COSIGN_SIGNATURE_ANNOTATION,
  type IdentityRule,
  IN_TOTO_PAYLOAD_TYPE,
  InvalidPayloadError,
  matchIdentity,
  parseCosignStatement,
  parsePayload,
} from "../signature/mod.ts";
import type { DsseEnvelope } from "../signature/mod.ts";
import { installNodeDefaultDigest } from "./_node_default_digest.ts";
import { JsonShapeError, parseJsonWithin } from "../json_shape.ts";

/**
 * The shape of a bundle (or an envelope in it), bounded before it is parsed: a bundle has about
 * 100 values (its inclusion proof's hashes, at most 64, are most of them) and is 6 levels deep.
 */
export const BUNDLE_JSON_LIMITS = { maxValues: 4096, maxDepth: 16 };
import type { IdentityMatcher } from "./identities.ts";
import { keyAlgorithm, keyProblem, type SigstorePublicKey, verifyWithKey } from "./public_keys.ts";
import { certificatePathProblem, certificatePaths } from "./certificate_path.ts";
import { logEntryVerifierProblem } from "./log_entry_verifier.ts";
import type { StoredCosignSignature } from "../registry/mod.ts";
import type { TrustRoot } from "./trust_root.ts";

installNodeDefaultDigest();

/** A bundle's transparency log entry. */
type TransparencyLogEntry = Bundle["verificationMaterial"]["tlogEntries"][number];

/** Whether a transparency log entry must back the signature. */
export type TlogPolicy = "required" | "optional";

/** What a `sigstoreSigned` requirement trusts, ready to verify with. */
export type SigstoreTrust =
  | {
    /** Keyed: the keys of the key Secret (any one). */
    readonly keys: readonly SigstorePublicKey[];
    /** `required`: a log entry verified with a log key of `trustRoot`. */
    readonly tlog: TlogPolicy;
    /** The trust root whose logs back the signature (needed for `tlog: required`). */
    readonly trustRoot?: TrustRoot | undefined;
  }
  | {
    /** Keyless: Fulcio certificates of this trust root, for these identities. */
    readonly keyless: { readonly trustRoot: TrustRoot; readonly identities: IdentityMatcher };
    readonly tlog: TlogPolicy;
  };

/** The image a signature must be for. */
export interface CosignExpectedImage {
  /** The digest being admitted. */
  readonly manifestDigest: string;
  /** The image as referenced (with its tag, or `latest`), for the identity rule. */
  readonly reference: ImageReference;
  /** The `signedIdentity` rule; undefined: the default (`matchRepository`). */
  readonly identityRule?: IdentityRule | undefined;
}

/** An accepted signature. */
export interface VerifiedCosignSignature {
  /** `legacy` (a `.sig` layer) or `bundle` (a v3 sigstore bundle). */
  readonly format: StoredCosignSignature["format"];
  /** Where it was read. */
  readonly where: string;
  /** Who signed, for messages: the key id, or the certificate's subject. */
  readonly signer: string;
  /** Keyed: the id (`sha256:` of the DER public key) of the key that verified it. */
  readonly keyId?: string;
  /** Keyless: the certificate's subject (URI or e-mail). */
  readonly subject?: string;
  /** Keyless: the OIDC issuer the certificate names. */
  readonly issuer?: string;
  /** Legacy: the repository the payload names. */
  readonly dockerReference?: string;
  /** The earliest verified time of signing (a log's integrated time or a timestamp), if any. */
  readonly signedAt?: Date;
}

/** The outcome for one signature. */
export type CosignVerification =
  | { readonly verified: true; readonly signature: VerifiedCosignSignature }
  | { readonly verified: false; readonly reason: string };

/** The most bytes of a bundle or a Rekor bundle annotation parsed. */
export const MAX_BUNDLE_BYTES = 1024 * 1024;

/** The default `signedIdentity` of a cosign signature, which names only a repository. */
export const COSIGN_DEFAULT_IDENTITY_RULE: IdentityRule = Object.freeze({
  type: "matchRepository",
});

const BUNDLE_V01_MEDIA_TYPE = "application/vnd.dev.sigstore.bundle+json;version=0.1";

/** Why a signature is refused; caught per signature and turned into its reason. */
class Refusal extends Error {}

function refuse(reason: string): never {
  throw new Refusal(reason);
}

/** The reasons `@sigstore/verify`'s error codes stand for. */
const LIBRARY_REASONS: Readonly<Record<string, string>> = {
  CERTIFICATE_ERROR: "its certificate is not valid under the trust root at the signing time",
  TIMESTAMP_ERROR: "no verified signing time (a log entry's signed timestamp or an RFC 3161 " +
    "timestamp of the trust root)",
  TLOG_ERROR: "no transparency log entry that the trust root's logs sign",
  TLOG_INCLUSION_PROMISE_ERROR: "its transparency log entry's signed timestamp does not verify " +
    "with a log key of the trust root",
  TLOG_INCLUSION_PROOF_ERROR: "its transparency log inclusion proof does not verify",
  TLOG_MISSING_INCLUSION_ERROR:
    "its transparency log entry has neither inclusion promise nor proof",
  TLOG_BODY_ERROR: "its transparency log entry is for another signature",
  SIGNATURE_ERROR: "the signature does not verify",
  PUBLIC_KEY_ERROR: "its key is not trusted",
};

function libraryReason(error: unknown): string {
  if (error instanceof VerificationError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${LIBRARY_REASONS[error.code] ?? "it does not verify"} (${error.message}${cause})`;
  }
  return `it cannot be verified (${error instanceof Error ? error.message : String(error)})`;
}

function base64(value: string | undefined, what: string): Uint8Array {
  if (value === undefined || value === "") refuse(`it has no ${what}`);
  try {
    return decodeBase64(value.trim());
  } catch {
    return refuse(`its ${what} is not base64`);
  }
}

function jsonObject(text: string, what: string): Record<string, unknown> {
  if (text.length > MAX_BUNDLE_BYTES) {
    refuse(`its ${what} is larger than ${MAX_BUNDLE_BYTES} bytes`);
  }
  let value: unknown;
  try {
    value = parseJsonWithin(text, BUNDLE_JSON_LIMITS, `its ${what}`);
  } catch (error) {
    refuse(error instanceof JsonShapeError ? error.message : `its ${what} is not JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    refuse(`its ${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** The DER of the one PEM `CERTIFICATE` of a certificate annotation. */
function certificateDer(pem: string): Uint8Array {
  let blocks;
  try {
    blocks = decodePem(pem, { maxBlocks: 2 });
  } catch (error) {
    if (!(error instanceof PemSyntaxError)) throw error;
    return refuse(`its certificate annotation is not PEM (${error.message})`);
  }
  const first = blocks[0]!;
  if (first.label !== "CERTIFICATE") {
    // GHSA-fx35-mq7g-6g98: a key where a certificate belongs would skip every certificate check.
    refuse(`its certificate annotation holds a ${first.label}, not an X.509 certificate`);
  }
  if (blocks.length > 1) refuse("its certificate annotation holds more than one PEM block");
  return first.bytes;
}

/** Rekor's bundle of the legacy format → a bundle's transparency log entry (JSON form). */
function legacyTlogEntry(annotation: string): Record<string, unknown> {
  const rekor = jsonObject(annotation, "Rekor bundle annotation");
  const set = rekor.SignedEntryTimestamp;
  const payload = rekor.Payload;
  if (typeof set !== "string" || typeof payload !== "object" || payload === null) {
    refuse("its Rekor bundle annotation has no SignedEntryTimestamp and Payload");
  }
  const { body, integratedTime, logIndex, logID } = payload as Record<string, unknown>;
  if (
    typeof body !== "string" || typeof integratedTime !== "number" ||
    typeof logIndex !== "number" || typeof logID !== "string" || !/^[0-9a-f]{64}$/.test(logID)
  ) {
    refuse("its Rekor bundle annotation's Payload is incomplete");
  }
  const entry = jsonObject(
    new TextDecoder().decode(base64(body, "Rekor entry body")),
    "Rekor entry",
  );
  if (typeof entry.kind !== "string" || typeof entry.apiVersion !== "string") {
    refuse("its Rekor entry has no kind and apiVersion");
  }
  return {
    logIndex: String(logIndex),
    logId: { keyId: encodeBase64(Uint8Array.from(logID.match(/../g)!, (h) => parseInt(h, 16))) },
    kindVersion: { kind: entry.kind, version: entry.apiVersion },
    integratedTime: String(integratedTime),
    inclusionPromise: { signedEntryTimestamp: set },
    canonicalizedBody: body,
  };
}

/** The legacy RFC 3161 annotation → a bundle's timestamp (JSON form). */
function legacyTimestamp(annotation: string): Record<string, unknown> {
  const value = jsonObject(annotation, "RFC 3161 timestamp annotation");
  if (typeof value.SignedRFC3161Timestamp !== "string") {
    refuse("its RFC 3161 timestamp annotation has no SignedRFC3161Timestamp");
  }
  return { signedTimestamp: value.SignedRFC3161Timestamp };
}

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
}

/**
 * What a legacy layer signs: its payload blob (a `.sig` layer, the signature in the
 * `dev.cosignproject.cosign/signature` annotation), or the DSSE envelope the blob is (an `.att`
 * layer, whose one signature is over the envelope's pre-authentication encoding).
 */
type LegacyContent =
  | { readonly $case: "payload" }
  | { readonly $case: "envelope"; readonly envelope: DsseEnvelope };

/**
 * A legacy layer as a sigstore bundle v0.1 (a message signature over its payload, or its DSSE
 * envelope), so that the library checks it like any bundle. The key is a placeholder hint for
 * keyed trust (the keys come from the Secret, never from the signature) and the certificate
 * annotation for keyless.
 */
async function legacyBundle(
  signature: Extract<StoredCosignSignature, { format: "legacy" }>,
  keyless: boolean,
  content: LegacyContent = { $case: "payload" },
): Promise<Bundle> {
  const annotations = signature.annotations;
  const bundleAnnotation = annotations[COSIGN_BUNDLE_ANNOTATION];
  const timestampAnnotation = annotations[COSIGN_RFC3161_TIMESTAMP_ANNOTATION];
  const certificate = annotations[COSIGN_CERTIFICATE_ANNOTATION];
  let material: Record<string, unknown>;
  if (keyless) {
    if (certificate === undefined || certificate === "") refuse("it has no certificate (keyless)");
    material = {
      x509CertificateChain: {
        certificates: [{ rawBytes: encodeBase64(certificateDer(certificate)) }],
      },
    };
  } else {
    material = { publicKey: { hint: "" } };
  }
  let signed: Record<string, unknown>;
  if (content.$case === "payload") {
    const rawSignature = base64(annotations[COSIGN_SIGNATURE_ANNOTATION], "signature annotation");
    signed = {
      messageSignature: {
        messageDigest: {
          algorithm: "SHA2_256",
          digest: encodeBase64(await sha256(signature.payload)),
        },
        signature: encodeBase64(rawSignature),
      },
    };
  } else {
    const { envelope } = content;
    signed = {
      dsseEnvelope: {
        payload: encodeBase64(envelope.payload),
        payloadType: envelope.payloadType,
        signatures: envelope.signatures.map((s) => ({ sig: encodeBase64(s.sig), keyid: s.keyid })),
      },
    };
  }
  const json = {
    mediaType: BUNDLE_V01_MEDIA_TYPE,
    verificationMaterial: {
      ...material,
      tlogEntries: bundleAnnotation ? [legacyTlogEntry(bundleAnnotation)] : [],
      timestampVerificationData: {
        rfc3161Timestamps: timestampAnnotation ? [legacyTimestamp(timestampAnnotation)] : [],
      },
    },
    ...signed,
  };
  try {
    return bundleFromJSON(json);
  } catch (error) {
    return refuse(`its annotations do not make a valid bundle (${(error as Error).message})`);
  }
}

/** Parses a bundle's JSON bytes (at most {@linkcode MAX_BUNDLE_BYTES}). */
function parseBundle(bytes: Uint8Array): Bundle {
  if (bytes.byteLength > MAX_BUNDLE_BYTES) {
    refuse(`the bundle is larger than ${MAX_BUNDLE_BYTES} bytes`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return refuse("the bundle is not UTF-8 text");
  }
  const json = jsonObject(text, "bundle");
  try {
    return bundleFromJSON(json);
  } catch (error) {
    return refuse(`it is not a valid sigstore bundle (${(error as Error).message})`);
  }
}

/** A stored bundle: a DSSE envelope of an in-toto statement, with one signature. */
function storedBundle(signature: Extract<StoredCosignSignature, { format: "bundle" }>): Bundle {
  const bundle = parseBundle(signature.bundle);
  if (bundle.content.$case !== "dsseEnvelope") {
    refuse("the bundle holds no DSSE envelope (cosign signs images with an in-toto statement)");
  }
  const envelope = bundle.content.dsseEnvelope;
  if (envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE) {
    refuse(
      `its DSSE payload type ${
        JSON.stringify(envelope.payloadType)
      } is not ${IN_TOTO_PAYLOAD_TYPE}`,
    );
  }
  if (envelope.signatures.length !== 1) {
    refuse(`its DSSE envelope holds ${envelope.signatures.length} signatures, not one`);
  }
  return bundle;
}

/**
 * The bytes the signature is over: the DSSE pre-authentication encoding of the envelope, or the
 * signed message (a legacy payload, an artifact).
 */
function signedBytes(bundle: Bundle, message: Uint8Array | undefined): Uint8Array {
  if (bundle.content.$case === "dsseEnvelope") {
    const envelope = bundle.content.dsseEnvelope;
    return dsse.preAuthEncoding(envelope.payloadType, envelope.payload);
  }
  if (message === undefined) refuse("it signs a message that was not given");
  return message;
}

function signatureBytes(bundle: Bundle): Uint8Array {
  return bundle.content.$case === "dsseEnvelope"
    ? bundle.content.dsseEnvelope.signatures[0]!.sig
    : bundle.content.messageSignature.signature;
}

/**
 * The library's view of the bundle, with the signature checked over the digest cosign uses for
 * the key's type (the library would use SHA-256 for every ECDSA key). `timestamped`: the bytes
 * an RFC 3161 timestamp is over when they are not the signature (a legacy `.att` layer's: the
 * envelope, as cosign timestamps and verifies attestations).
 */
function signedEntity(
  bundle: Bundle,
  data: Uint8Array,
  key: SignedEntity["key"] | undefined,
  timestamped?: Uint8Array,
): SignedEntity {
  const entity = toSignedEntity(bundle, Buffer.from(data));
  const content = entity.signature;
  return {
    ...entity,
    ...(key ? { key } : {}),
    signature: {
      // What the library verifies timestamps over (and only that).
      signature: timestamped ? Buffer.from(timestamped) : content.signature,
      compareSignature: (s) => content.compareSignature(s),
      compareDigest: (d) => content.compareDigest(d),
      compareSignedDigest: (d) => content.compareSignedDigest(d),
      verifySignature: (k: KeyObject) => verifyWithKey(k, data, content.signature),
    },
  };
}

/** The earliest verified integrated time of the entity's log entries. */
function earliestLogTime(entity: SignedEntity): Date | undefined {
  const times = entity.tlogEntries
    .filter((e) => e.inclusionPromise !== undefined && e.integratedTime !== "0")
    .map((e) => new Date(Number(e.integratedTime) * 1000));
  return times.length === 0 ? undefined : new Date(Math.min(...times.map((t) => t.getTime())));
}

function runVerifier(material: TrustMaterial, options: VerifierOptions, entity: SignedEntity) {
  try {
    return new Verifier(material, options).verify(entity);
  } catch (error) {
    return refuse(libraryReason(error));
  }
}

/**
 * What a legacy `.att` layer's verification adds: the bytes its RFC 3161 timestamps are over (the
 * envelope), and the log entries whose inclusion promise and body were verified here (`intoto`
 * 0.0.1 entries, which the library does not read; see {@linkcode verifyLegacyAttestationSignature}).
 */
interface EvidenceOptions {
  readonly timestamped?: Uint8Array;
  readonly verifiedHere?: readonly object[];
}

/** The entity without the entries verified here, and the log threshold left for the library. */
function forLibrary(
  entity: SignedEntity,
  threshold: number,
  options: EvidenceOptions,
): { entity: SignedEntity; tlogThreshold: number } {
  const here = options.verifiedHere ?? [];
  if (here.length === 0) return { entity, tlogThreshold: threshold };
  return {
    // Their integrated times stay among the entity's (verified) timestamps.
    entity: { ...entity, tlogEntries: entity.tlogEntries.filter((e) => !here.includes(e)) },
    tlogThreshold: Math.max(0, threshold - here.length),
  };
}

function verifyKeyed(
  trust: Extract<SigstoreTrust, { keys: unknown }>,
  bundle: Bundle,
  data: Uint8Array,
  options: EvidenceOptions = {},
): { keyId: string; signedAt?: Date } {
  const signature = signatureBytes(bundle);
  const key = trust.keys.find((k) => verifyWithKey(k.key, data, signature));
  if (key === undefined) {
    refuse(
      `the signature does not verify with ${
        trust.keys.length === 1 ? "the key" : `any of the ${trust.keys.length} keys`
      } of the requirement`,
    );
  }
  if (trust.tlog === "optional") return { keyId: key.id };
  if (trust.trustRoot === undefined) {
    refuse("tlog: required needs a trust root with the transparency log's keys");
  }
  const entity = signedEntity(bundle, data, { $case: "public-key", hint: key.id });
  // Keys do not expire: only the log entry matters, not timestamps.
  const material: TrustMaterial = {
    ...trust.trustRoot.material,
    publicKey: () => ({ publicKey: key.key, validFor: () => true }),
  };
  const checked = forLibrary(entity, 1, options);
  runVerifier(material, {
    tlogThreshold: checked.tlogThreshold,
    ctlogThreshold: 0,
    timestampThreshold: 0,
  }, { ...checked.entity, timestamps: [] });
  checkLogEntryVerifiers(bundle, {
    der: new Uint8Array(key.key.export({ type: "spki", format: "der" })),
    what: "key",
  });
  const signedAt = earliestLogTime(entity);
  return { keyId: key.id, ...(signedAt ? { signedAt } : {}) };
}

async function verifyKeyless(
  trust: Extract<SigstoreTrust, { keyless: unknown }>,
  bundle: Bundle,
  data: Uint8Array,
  options: EvidenceOptions = {},
): Promise<{ subject: string; issuer: string; signedAt?: Date }> {
  const { trustRoot, identities } = trust.keyless;
  const material = bundle.verificationMaterial.content;
  if (material.$case === "publicKey") {
    refuse("it names a public key, not a certificate (keyless)");
  }
  const leaf = material.$case === "certificate"
    ? material.certificate
    : material.x509CertificateChain.certificates[0];
  if (leaf === undefined) refuse("it has no certificate (keyless)");
  let certificate: X509Certificate;
  try {
    certificate = X509Certificate.parse(Buffer.from(leaf.rawBytes));
  } catch (error) {
    return refuse(`its certificate is not an X.509 certificate (${(error as Error).message})`);
  }
  if (certificate.isCA) refuse("its certificate is a CA certificate, not a signing certificate");
  if (certificate.extKeyUsage && !certificate.extKeyUsage.digitalSignature) {
    refuse("its certificate's key usage does not allow signatures");
  }
  // Before the signature is checked: a key that is not accepted never verifies, and the reason
  // is its type, not the signature.
  const problem = certificateKeyProblem(certificate);
  if (problem !== undefined) refuse(`its certificate's key type is not accepted (${problem})`);
  const entity = signedEntity(bundle, data, undefined, options.timestamped);
  const checked = forLibrary(entity, trust.tlog === "required" ? 1 : 0, options);
  const signer = runVerifier(trustRoot.material, {
    tlogThreshold: checked.tlogThreshold,
    ctlogThreshold: trustRoot.counts.ctlogs > 0 ? 1 : 0,
    timestampThreshold: 1,
  }, checked.entity);
  if (keyAlgorithm(signer.key) === undefined) refuse("its certificate's key type is not accepted");
  checkCertificatePath(certificate, trustRoot);
  checkLogEntryVerifiers(bundle, { der: new Uint8Array(leaf.rawBytes), what: "certificate" });
  const subject = signer.identity?.subjectAlternativeName ?? fulcioUsername(certificate);
  const issuer = signer.identity?.extensions?.issuer;
  if (!await identities.matches(issuer, subject)) {
    refuse(
      `its certificate names subject ${JSON.stringify(subject ?? null)} issued by ${
        JSON.stringify(issuer ?? null)
      }, which is not an accepted identity (${identities.description})`,
    );
  }
  const signedAt = earliestLogTime(entity);
  return { subject: subject!, issuer: issuer!, ...(signedAt ? { signedAt } : {}) };
}

/** The type of the certificate's key, when it is not accepted. */
function certificateKeyProblem(certificate: X509Certificate): string | undefined {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: certificate.publicKey, format: "der", type: "spki" });
  } catch {
    return "its key cannot be read";
  }
  return keyProblem(key);
}

/**
 * The path checks cosign makes and the library does not (`certificate_path.ts`): with the
 * path through each trust root CA that issued the leaf, at least one passes.
 */
function checkCertificatePath(leaf: X509Certificate, trustRoot: TrustRoot): void {
  const chains = trustRoot.material.certificateAuthorities.map((ca) => ca.certChain);
  const paths = certificatePaths(leaf, chains);
  if (paths.length === 0) refuse("its certificate is not issued by a CA of the trust root");
  const problems = paths.map(certificatePathProblem);
  if (problems.some((p) => p === undefined)) return;
  refuse(problems[0]!);
}

/** Fulcio's username subject: the otherName SAN of type 1.3.6.1.4.1.57264.1.7 (one only). */
const FULCIO_USERNAME = "1.3.6.1.4.1.57264.1.7";

/**
 * The Fulcio username a certificate names as its subject alternative name (e.g.
 * `foo!oidc.local`), when it names neither a URI nor an e-mail address; undefined when it
 * names none, or several otherNames (as sigstore's `UnmarshalOtherNameSAN`).
 */
function fulcioUsername(certificate: X509Certificate): string | undefined {
  // The extension's value is an OCTET STRING holding the GeneralNames SEQUENCE.
  const names = certificate.extension("2.5.29.17")?.valueObj.subs[0]?.subs ?? [];
  const others = names.filter((name) => name.tag.isContextSpecific(0));
  if (others.length !== 1) return undefined;
  const [type, value] = others[0]!.subs;
  const utf8 = value?.subs[0];
  if (type?.toOID() !== FULCIO_USERNAME || utf8 === undefined || utf8.tag.number !== 0x0c) {
    return undefined;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(utf8.value);
  } catch {
    return undefined;
  }
}

/**
 * Each transparency log entry names the bundle's key or certificate (client spec §4.4; the
 * library compares only the signature and the digest).
 */
function checkLogEntryVerifiers(
  bundle: Bundle,
  expected: { readonly der: Uint8Array; readonly what: "key" | "certificate" },
): void {
  for (const entry of bundle.verificationMaterial.tlogEntries) {
    const problem = logEntryVerifierProblem(
      entry.kindVersion?.kind ?? "",
      entry.kindVersion?.version ?? "",
      entry.canonicalizedBody,
      expected,
    );
    if (problem !== undefined) refuse(problem);
  }
}

/** The digest and identity checks of a legacy payload. */
function checkPayload(payload: Uint8Array, expected: CosignExpectedImage): string {
  let parsed;
  try {
    parsed = parsePayload(payload, { type: COSIGN_PAYLOAD_TYPE });
  } catch (error) {
    return refuse(error instanceof InvalidPayloadError ? error.detail : String(error));
  }
  if (parsed.manifestDigest !== expected.manifestDigest) {
    refuse(
      `it is a signature of ${parsed.manifestDigest}, not of ${expected.manifestDigest}`,
    );
  }
  const rule = expected.identityRule ?? COSIGN_DEFAULT_IDENTITY_RULE;
  const match = matchIdentity(rule, expected.reference, parsed.dockerReference);
  if (!match.matches) refuse(match.reason);
  return parsed.dockerReference;
}

/** The digest and identity checks of a bundle's statement. */
function checkStatement(bundle: Bundle, expected: CosignExpectedImage): void {
  if (bundle.content.$case !== "dsseEnvelope") return;
  let statement;
  try {
    statement = parseCosignStatement(bundle.content.dsseEnvelope.payload);
  } catch (error) {
    return refuse(error instanceof InvalidPayloadError ? error.detail : String(error));
  }
  if (!statement.subjectDigests.includes(expected.manifestDigest)) {
    refuse(
      `its statement's subject is ${
        statement.subjectDigests.join(", ")
      }, not ${expected.manifestDigest}`,
    );
  }
  if (expected.identityRule !== undefined) {
    refuse(
      `a sigstore bundle names no repository, so it cannot meet signedIdentity ${expected.identityRule.type}`,
    );
  }
}

/** Verifies one stored signature; never throws for anything the signature holds. */
export async function verifyCosignSignature(
  signature: StoredCosignSignature,
  trust: SigstoreTrust,
  expected: CosignExpectedImage,
): Promise<CosignVerification> {
  try {
    const keyless = "keyless" in trust;
    const bundle = signature.format === "legacy"
      ? await legacyBundle(signature, keyless)
      : storedBundle(signature);
    const data = signedBytes(bundle, signature.format === "legacy" ? signature.payload : undefined);
    const who = keyless
      ? await verifyKeyless(trust, bundle, data)
      : verifyKeyed(trust, bundle, data);
    const dockerReference = signature.format === "legacy"
      ? checkPayload(signature.payload, expected)
      : (checkStatement(bundle, expected), undefined);
    const verified: VerifiedCosignSignature = {
      format: signature.format,
      where: signature.where,
      signer: "keyId" in who ? who.keyId : `${who.subject} (${who.issuer})`,
      ...who,
      ...(dockerReference === undefined ? {} : { dockerReference }),
    };
    return { verified: true, signature: verified };
  } catch (error) {
    if (error instanceof Refusal) {
      return { verified: false, reason: `${signature.where}: ${error.message}` };
    }
    return {
      verified: false,
      reason: `${signature.where}: it cannot be verified (${
        error instanceof Error ? error.message : String(error)
      })`,
    };
  }
}

/** Who signed a bundle, as {@linkcode verifySigstoreBundle} found. */
export type SigstoreSigner =
  | {
    readonly verified: true;
    readonly keyId?: string;
    readonly subject?: string;
    readonly issuer?: string;
  }
  | { readonly verified: false; readonly reason: string };

/**
 * Verifies any sigstore bundle (a DSSE envelope, or a message signature over `artifact`) with
 * steps 1 and 2 only: the signature, the certificate and identity or the key, the log and
 * timestamp evidence. What the bundle signs is not looked at: for images,
 * {@linkcode verifyCosignSignature} is the check. Used for `sigstore-conformance` bundles.
 */
export async function verifySigstoreBundle(
  bytes: Uint8Array,
  trust: SigstoreTrust,
  artifact?: Uint8Array,
): Promise<SigstoreSigner> {
  try {
    const bundle = parseBundle(bytes);
    if (
      bundle.content.$case === "dsseEnvelope" &&
      bundle.content.dsseEnvelope.payloadType !== IN_TOTO_PAYLOAD_TYPE
    ) {
      // Client spec §4.5: a DSSE envelope is verified as an in-toto statement, nothing else.
      refuse(
        `its DSSE payload type ${
          JSON.stringify(bundle.content.dsseEnvelope.payloadType)
        } is not ${IN_TOTO_PAYLOAD_TYPE}`,
      );
    }
    const data = signedBytes(bundle, artifact);
    const who = "keyless" in trust
      ? await verifyKeyless(trust, bundle, data)
      : verifyKeyed(trust, bundle, data);
    return { verified: true, ...who };
  } catch (error) {
    return {
      verified: false,
      reason: error instanceof Error ? error.message : String(error),
    };
  }
}

/** A log entry's body, parsed (bounded). */
function entryBody(entry: TransparencyLogEntry): Record<string, unknown> {
  return jsonObject(
    new TextDecoder().decode(entry.canonicalizedBody),
    "transparency log entry body",
  );
}

function hashOf(value: unknown): { algorithm: unknown; value: unknown } | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { algorithm, value: hash } = value as Record<string, unknown>;
  return { algorithm, value: hash };
}

/**
 * Each log entry of a legacy `.att` layer is an `intoto` (0.0.1, 0.0.2) or `dsse` (0.0.1) entry
 * of this envelope: the hash it keeps of the whole envelope is the SHA-256 of the layer blob (as
 * cosign's `VerifyBundle` compares it), and an `intoto` 0.0.1 entry's payload hash, if it has
 * one, the payload's (the library compares the signature and payload hash of the others).
 */
async function checkEnvelopeEntries(
  bundle: Bundle,
  blob: Uint8Array,
  envelope: DsseEnvelope,
): Promise<void> {
  const blobHash = (await sha256(blob)).toHex();
  for (const entry of bundle.verificationMaterial.tlogEntries) {
    const kind = `${entry.kindVersion?.kind ?? ""} ${entry.kindVersion?.version ?? ""}`;
    const body = entryBody(entry);
    const spec = body.spec as Record<string, unknown> | undefined;
    const content = (spec?.content ?? undefined) as Record<string, unknown> | undefined;
    const envelopeHash = kind === "dsse 0.0.1"
      ? hashOf(spec?.envelopeHash)
      : kind === "intoto 0.0.1" || kind === "intoto 0.0.2"
      ? hashOf(content?.hash)
      : refuse(
        `its transparency log entry is a ${kind} entry, not an intoto or dsse entry of the envelope`,
      );
    if (envelopeHash?.algorithm !== "sha256" || envelopeHash.value !== blobHash) {
      refuse(
        `its transparency log entry (${kind}) is for another envelope (its envelope hash is not the layer's)`,
      );
    }
    const payloadHash = hashOf(content?.payloadHash);
    if (
      kind === "intoto 0.0.1" && payloadHash !== undefined &&
      (payloadHash.algorithm !== "sha256" ||
        payloadHash.value !== (await sha256(envelope.payload)).toHex())
    ) {
      refuse("its transparency log entry (intoto 0.0.1) is for another payload");
    }
  }
}

/**
 * The inclusion promises of a legacy layer's `intoto` 0.0.1 entries (which the library refuses
 * to read), verified here as the library verifies the others': the signed entry timestamp over
 * the canonical JSON of body, integrated time, log index and log id, by a log of the trust root
 * with that id whose key was valid at the integrated time. Returns the entries verified.
 */
function verifyIntotoV001Promises(
  bundle: Bundle,
  trustRoot: TrustRoot | undefined,
): object[] {
  const entries = bundle.verificationMaterial.tlogEntries.filter((e) =>
    e.kindVersion?.kind === "intoto" && e.kindVersion.version === "0.0.1"
  );
  if (entries.length === 0) return [];
  if (trustRoot === undefined) {
    refuse("tlog: required needs a trust root with the transparency log's keys");
  }
  for (const entry of entries) {
    const promise = entry.inclusionPromise;
    if (promise === undefined) refuse("its transparency log entry has no inclusion promise");
    const at = new Date(Number(entry.integratedTime) * 1000);
    const data = new TextEncoder().encode(canonicalJson.canonicalize({
      body: Buffer.from(entry.canonicalizedBody).toString("base64"),
      integratedTime: Number(entry.integratedTime),
      logIndex: Number(entry.logIndex),
      logID: Buffer.from(entry.logId!.keyId).toString("hex"),
    }));
    const verified = trustRoot.material.tlogs.some((log) =>
      log.logID.equals(entry.logId!.keyId) && log.validFor.start <= at &&
      at <= log.validFor.end &&
      coreCrypto.verify(Buffer.from(data), log.publicKey, promise.signedEntryTimestamp)
    );
    if (!verified) refuse(LIBRARY_REASONS.TLOG_INCLUSION_PROMISE_ERROR!);
  }
  return entries;
}

/**
 * Verifies a legacy `.att` layer (its blob `blob` the DSSE envelope `envelope`, parsed) keyless,
 * or keyed with `tlog: required`, exactly as {@linkcode verifyCosignSignature} verifies a legacy
 * `.sig` layer (steps 1 and 2: the same certificate, identity, log and timestamp evidence from
 * the same annotations), with the envelope's one signature over its pre-authentication encoding
 * standing for the payload's signature, RFC 3161 timestamps over the envelope (cosign's), and
 * each log entry an `intoto` or `dsse` entry of this envelope ({@linkcode checkEnvelopeEntries})
 * naming the certificate or key. What the statement says is not looked at here. Keyed with
 * `tlog: optional`, log entries and timestamps are ignored.
 */
export async function verifyLegacyAttestationSignature(
  blob: Uint8Array,
  annotations: Readonly<Record<string, string>>,
  envelope: DsseEnvelope,
  trust: SigstoreTrust,
): Promise<SigstoreSigner> {
  try {
    if (envelope.signatures.length !== 1) {
      refuse(`its DSSE envelope holds ${envelope.signatures.length} signatures, not one`);
    }
    const keyless = "keyless" in trust;
    const layer = { format: "legacy", payload: blob, annotations, where: "" } as const;
    const bundle = await legacyBundle(layer, keyless, { $case: "envelope", envelope });
    const data = signedBytes(bundle, undefined);
    if (!keyless && trust.tlog === "optional") {
      return { verified: true, ...verifyKeyed(trust, bundle, data) };
    }
    await checkEnvelopeEntries(bundle, blob, envelope);
    const trustRoot = keyless ? trust.keyless.trustRoot : trust.trustRoot;
    const options = {
      timestamped: blob,
      verifiedHere: verifyIntotoV001Promises(bundle, trustRoot),
    };
    const who = keyless
      ? await verifyKeyless(trust, bundle, data, options)
      : verifyKeyed(trust, bundle, data, options);
    return { verified: true, ...who };
  } catch (error) {
    return {
      verified: false,
      reason: error instanceof Error ? error.message : String(error),
    };
  }
}
