/**
 * Test fixtures for sigstore verification, made on the spot: a Fulcio-like CA (a root and an
 * intermediate, ECDSA P-384 like public-good's, certificates with @peculiar/x509 and WebCrypto)
 * that issues ten-minute signing certificates with the subject alternative name and the Fulcio
 * issuer extensions, a Rekor-like log key that signs entries' signed entry timestamps (the
 * hashedrekord and dsse entry kinds, as Rekor v1 canonicalises them), the `trusted_root.json`
 * naming both, and cosign signatures in both storage formats (a legacy `.sig` layer with its
 * annotations, a v3 bundle with a DSSE in-toto statement), keyed or keyless.
 *
 * These stand in for Fulcio and Rekor, which cannot run here; the formats follow sigstore's
 * protobuf-specs (`trusted_root.json`, bundle v0.3), Rekor's `hashedrekord` 0.0.1 and `dsse`
 * 0.0.1 entry types and its signed entry timestamp (a signature over the canonical JSON of body,
 * integratedTime, logIndex and logID), and cosign's `SIGNATURE_SPEC.md`.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import nodeCrypto, { type KeyObject } from "node:crypto";
import { x509 } from "../../lib/x509.ts";
import { dsse, json as canonicalJson } from "@sigstore/core";
import { encodeBase64 } from "../../lib/base64.ts";
import {
  COSIGN_BUNDLE_ANNOTATION,
  COSIGN_CERTIFICATE_ANNOTATION,
  COSIGN_CHAIN_ANNOTATION,
  COSIGN_SIGNATURE_ANNOTATION,
  IN_TOTO_PAYLOAD_TYPE,
  SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
} from "../../lib/signature/cosign_media_types.ts";
import {
  cosignLegacyPayload,
  cosignStatement as cosignStatementOf,
} from "../../lib/signature/cosign_payloads.ts";
import type { StoredCosignSignature } from "../../lib/registry/mod.ts";

x509.cryptoProvider.set(crypto);

const FULCIO_ISSUER_V1 = "1.3.6.1.4.1.57264.1.1";
const FULCIO_ISSUER_V2 = "1.3.6.1.4.1.57264.1.8";
const CODE_SIGNING = "1.3.6.1.5.5.7.3.3";
const FULCIO_USERNAME = "1.3.6.1.4.1.57264.1.7";
const NAME_CONSTRAINTS = "2.5.29.30";

/** A key pair for signing in tests. */
export interface TestKeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** PEM `PUBLIC KEY`. */
  readonly publicPem: string;
}

/** Makes a key pair: ECDSA P-256 (cosign's default), P-384, Ed25519 or RSA. */
export function testKeyPair(
  type: "ecdsa-p256" | "ecdsa-p384" | "ed25519" | "rsa-2048" | "rsa-1024" | "ecdsa-p521" =
    "ecdsa-p256",
): TestKeyPair {
  const pair = type === "ed25519"
    ? nodeCrypto.generateKeyPairSync("ed25519")
    : type.startsWith("rsa")
    ? nodeCrypto.generateKeyPairSync("rsa", { modulusLength: Number(type.slice(4)) })
    : nodeCrypto.generateKeyPairSync("ec", {
      namedCurve: type === "ecdsa-p256" ? "P-256" : type === "ecdsa-p384" ? "P-384" : "P-521",
    });
  return {
    privateKey: pair.privateKey,
    publicKey: pair.publicKey,
    publicPem: pair.publicKey.export({ type: "spki", format: "pem" }) as string,
  };
}

/**
 * Signs as cosign does: DER ECDSA over SHA-256 (SHA-384 for P-384, SHA-512 for P-521), Ed25519
 * pure, RSA PKCS #1.
 */
export function signBytes(key: KeyObject, data: Uint8Array): Uint8Array {
  const type = key.asymmetricKeyType;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const digest = type === "ed25519"
    ? null
    : curve === "secp384r1"
    ? "sha384"
    : curve === "secp521r1"
    ? "sha512"
    : "sha256";
  return new Uint8Array(nodeCrypto.sign(digest, data, key));
}

function der(key: KeyObject): Uint8Array {
  return new Uint8Array(key.export({ type: "spki", format: "der" }));
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function sha256(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(nodeCrypto.createHash("sha256").update(bytes).digest());
}

function utf8String(text: string): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > 127) throw new TypeError("issuer too long for this fixture");
  return Uint8Array.of(0x0c, bytes.length, ...bytes);
}

/** A Fulcio-like CA. */
export interface TestFulcio {
  /** The root and intermediate, as the trust root lists them (intermediate first). */
  readonly chain: readonly x509.X509Certificate[];
  /** Issues a signing certificate for `publicKey`. */
  issue(options: {
    publicKey: KeyObject;
    subject: string;
    issuer: string;
    notBefore?: Date;
    minutes?: number;
    /** Leave out the Fulcio issuer extensions. */
    withoutIssuer?: boolean;
    /**
     * The subject as a Fulcio username (an otherName SAN of type 1.3.6.1.4.1.57264.1.7, e.g.
     * `foo!oidc.local`) instead of a URI or e-mail.
     */
    username?: boolean;
    /** The extended key usages (OIDs); default code signing; empty: no such extension. */
    extendedKeyUsages?: readonly string[];
    /** Extensions added after the usual ones. */
    extraExtensions?: readonly x509.Extension[];
  }): Promise<x509.X509Certificate>;
}

/** Name constraints of a test CA (RFC 5280 §4.2.1.10), by name form. */
export interface TestNameConstraints {
  readonly permitted?: {
    readonly email?: string[];
    readonly uri?: string[];
    readonly dns?: string[];
  };
  readonly excluded?: {
    readonly email?: string[];
    readonly uri?: string[];
    readonly dns?: string[];
  };
}

/** DER type-length-value. */
function tlv(tag: number, content: Uint8Array): Uint8Array {
  const n = content.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Uint8Array.of(tag, ...length, ...content);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}

function oidDer(oid: string): Uint8Array {
  const [a, b, ...rest] = oid.split(".").map(Number);
  const bytes = [a! * 40 + b!];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let v = arc >>> 7; v > 0; v >>>= 7) groups.unshift((v & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return tlv(0x06, Uint8Array.from(bytes));
}

/** The DER of a NameConstraints extension value. */
function nameConstraintsDer(constraints: TestNameConstraints): Uint8Array {
  const subtrees = (forms: TestNameConstraints["permitted"], tag: number) => {
    if (forms === undefined) return [];
    const names = [
      ...(forms.email ?? []).map((v) => tlv(0x81, new TextEncoder().encode(v))),
      ...(forms.dns ?? []).map((v) => tlv(0x82, new TextEncoder().encode(v))),
      ...(forms.uri ?? []).map((v) => tlv(0x86, new TextEncoder().encode(v))),
    ];
    return [tlv(tag, concat(names.map((name) => tlv(0x30, name))))];
  };
  return tlv(
    0x30,
    concat([...subtrees(constraints.permitted, 0xa0), ...subtrees(constraints.excluded, 0xa1)]),
  );
}

/** The DER of a subject alternative name extension holding one Fulcio username. */
function usernameSanDer(username: string): Uint8Array {
  const value = tlv(0xa0, tlv(0x0c, new TextEncoder().encode(username)));
  return tlv(0x30, tlv(0xa0, concat([oidDer(FULCIO_USERNAME), value])));
}

async function ecKeys(curve: "P-256" | "P-384"): Promise<CryptoKeyPair> {
  return await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: curve }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
}

/** Makes a Fulcio-like CA: a root, an intermediate, valid from `notBefore` for ten years. */
export async function testFulcio(
  options: {
    name?: string;
    notBefore?: Date;
    /** Name constraints of the intermediate (critical, as RFC 5280 asks). */
    nameConstraints?: TestNameConstraints;
  } = {},
): Promise<TestFulcio> {
  const name = options.name ?? "fulcio.test";
  const notBefore = options.notBefore ?? new Date(Date.UTC(2020, 0, 1));
  const notAfter = new Date(notBefore.getTime() + 10 * 365 * 86400_000);
  const signingAlgorithm = { name: "ECDSA", hash: "SHA-384" };
  const rootKeys = await ecKeys("P-384");
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: `CN=${name} root, O=toolkit tests`,
    notBefore,
    notAfter,
    keys: rootKeys,
    signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 1, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
    ],
  });
  const intermediateKeys = await ecKeys("P-384");
  const intermediate = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: `CN=${name} intermediate, O=toolkit tests`,
    issuer: root.subject,
    notBefore,
    notAfter,
    publicKey: intermediateKeys.publicKey,
    signingKey: rootKeys.privateKey,
    signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(intermediateKeys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(rootKeys.publicKey),
      ...(options.nameConstraints
        ? [
          new x509.Extension(
            NAME_CONSTRAINTS,
            true,
            nameConstraintsDer(options.nameConstraints) as BufferSource,
          ),
        ]
        : []),
    ],
  });
  let serial = 16;
  return {
    chain: [intermediate, root],
    async issue(leaf) {
      const start = leaf.notBefore ?? new Date();
      // Any key type (P-521, RSA…): the generator takes the SubjectPublicKeyInfo as it is.
      const publicKey = der(leaf.publicKey) as BufferSource;
      const san = leaf.username
        ? new x509.Extension("2.5.29.17", true, usernameSanDer(leaf.subject) as BufferSource)
        : new x509.SubjectAlternativeNameExtension([
          leaf.subject.includes("://")
            ? { type: "url" as const, value: leaf.subject }
            : { type: "email" as const, value: leaf.subject },
        ], true);
      const usages = leaf.extendedKeyUsages ?? [CODE_SIGNING];
      return await x509.X509CertificateGenerator.create({
        serialNumber: (serial++).toString(16).padStart(2, "0"),
        subject: "",
        issuer: intermediate.subject,
        notBefore: start,
        notAfter: new Date(start.getTime() + (leaf.minutes ?? 10) * 60_000),
        publicKey,
        signingKey: intermediateKeys.privateKey,
        signingAlgorithm,
        extensions: [
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          ...(usages.length > 0 ? [new x509.ExtendedKeyUsageExtension([...usages])] : []),
          san,
          await x509.AuthorityKeyIdentifierExtension.create(intermediateKeys.publicKey),
          ...(leaf.withoutIssuer ? [] : [
            new x509.Extension(FULCIO_ISSUER_V1, false, new TextEncoder().encode(leaf.issuer)),
            new x509.Extension(FULCIO_ISSUER_V2, false, utf8String(leaf.issuer) as BufferSource),
          ]),
          ...(leaf.extraExtensions ?? []),
        ],
      });
    },
  };
}

/** A Rekor-like log: its key and id, and signed entry timestamps. */
export interface TestRekor {
  readonly key: TestKeyPair;
  /** `sha256` of the log key's DER, hex. */
  readonly logId: string;
  /**
   * An entry for a signature with its signed entry timestamp, as cosign's legacy
   * `dev.sigstore.cosign/bundle` annotation holds it.
   */
  entry(body: Record<string, unknown>, integratedTime: Date): RekorBundle;
  /**
   * An inclusion proof of the entry `body` (base64 canonical JSON) in a checkpoint the log signs:
   * the entry is the only leaf of a tree of size one, so the root is its leaf hash.
   */
  inclusionProof(body: string): Record<string, unknown>;
}

/** cosign's Rekor bundle (`{SignedEntryTimestamp, Payload}`). */
export interface RekorBundle {
  readonly SignedEntryTimestamp: string;
  readonly Payload: {
    readonly body: string;
    readonly integratedTime: number;
    readonly logIndex: number;
    readonly logID: string;
  };
}

/** Makes a Rekor-like log with its own ECDSA P-256 key. */
export function testRekor(): TestRekor {
  const key = testKeyPair("ecdsa-p256");
  const logId = hex(sha256(der(key.publicKey)));
  let index = 1000;
  return {
    key,
    logId,
    entry(body, integratedTime) {
      const payload = {
        body: encodeBase64(new TextEncoder().encode(canonicalJson.canonicalize(body))),
        integratedTime: Math.floor(integratedTime.getTime() / 1000),
        logIndex: index++,
        logID: logId,
      };
      const set = signBytes(
        key.privateKey,
        new TextEncoder().encode(canonicalJson.canonicalize(payload)),
      );
      return { SignedEntryTimestamp: encodeBase64(set), Payload: payload };
    },
    inclusionProof(body) {
      const leaf = Uint8Array.of(0, ...Uint8Array.from(Buffer.from(body, "base64")));
      const root = encodeBase64(sha256(leaf));
      const note = `rekor.test - 1\n1\n${root}\n`;
      const signature = signBytes(key.privateKey, new TextEncoder().encode(note));
      const hint = sha256(der(key.publicKey)).subarray(0, 4);
      return {
        logIndex: "0",
        rootHash: root,
        treeSize: "1",
        hashes: [],
        checkpoint: {
          envelope: `${note}\n\u2014 rekor.test ${
            encodeBase64(Uint8Array.of(...hint, ...signature))
          }\n`,
        },
      };
    },
  };
}

/** The hashedrekord 0.0.1 body of a signature over `data` by the key or certificate. */
export function hashedRekordBody(
  data: Uint8Array,
  signature: Uint8Array,
  verifier: string,
): Record<string, unknown> {
  return {
    apiVersion: "0.0.1",
    kind: "hashedrekord",
    spec: {
      data: { hash: { algorithm: "sha256", value: hex(sha256(data)) } },
      signature: {
        content: encodeBase64(signature),
        publicKey: { content: encodeBase64(new TextEncoder().encode(verifier)) },
      },
    },
  };
}

/** The dsse 0.0.1 body of a DSSE envelope signed by the key or certificate. */
export function dsseRekordBody(
  payload: Uint8Array,
  signature: Uint8Array,
  verifier: string,
): Record<string, unknown> {
  return {
    apiVersion: "0.0.1",
    kind: "dsse",
    spec: {
      payloadHash: { algorithm: "sha256", value: hex(sha256(payload)) },
      signatures: [{
        signature: encodeBase64(signature),
        verifier: encodeBase64(new TextEncoder().encode(verifier)),
      }],
    },
  };
}

/** A `trusted_root.json` naming the CA and the log (with validity from 2020 on). */
export function testTrustRoot(
  options: { fulcio?: TestFulcio; rekor?: TestRekor; start?: string } = {},
): string {
  const start = options.start ?? "2020-01-01T00:00:00Z";
  const root: Record<string, unknown> = {
    mediaType: "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
    tlogs: options.rekor
      ? [{
        baseUrl: "https://rekor.test",
        hashAlgorithm: "SHA2_256",
        publicKey: {
          rawBytes: encodeBase64(der(options.rekor.key.publicKey)),
          keyDetails: "PKIX_ECDSA_P256_SHA_256",
          validFor: { start },
        },
        logId: { keyId: encodeBase64(sha256(der(options.rekor.key.publicKey))) },
      }]
      : [],
    certificateAuthorities: options.fulcio
      ? [{
        subject: { organization: "toolkit tests", commonName: "fulcio.test" },
        uri: "https://fulcio.test",
        certChain: {
          certificates: options.fulcio.chain.map((c) => ({
            rawBytes: encodeBase64(new Uint8Array(c.rawData)),
          })),
        },
        validFor: { start },
      }]
      : [],
    ctlogs: [],
    timestampAuthorities: [],
  };
  return JSON.stringify(root, null, 2);
}

/** A legacy cosign payload for `digest`, naming `repository` (cosign's bytes). */
export function cosignPayload(repository: string, digest: string): Uint8Array {
  return cosignLegacyPayload({ dockerReference: repository, manifestDigest: digest });
}

/** The in-toto statement `cosign sign` (v3) makes, or one of another predicate (an attestation). */
export function cosignStatement(digest: string, predicateType?: string): Uint8Array {
  const statement = cosignStatementOf(digest);
  if (predicateType === undefined) return statement;
  return new TextEncoder().encode(
    JSON.stringify({ ...JSON.parse(new TextDecoder().decode(statement)), predicateType }),
  );
}

/** What signs a test signature: a key, or a key with its Fulcio certificate. */
export interface TestSigner {
  readonly key: TestKeyPair;
  readonly certificate?: x509.X509Certificate;
}

function certificatePem(certificate: x509.X509Certificate): string {
  return certificate.toString("pem");
}

/** A legacy `.sig` layer signed by `signer`, with a Rekor entry when `rekor` is given. */
export function legacySignature(options: {
  signer: TestSigner;
  payload: Uint8Array;
  rekor?: { log: TestRekor; at: Date };
  annotations?: Record<string, string>;
  where?: string;
  /** Another key or certificate (PEM) in the Rekor entry than the signer's. */
  entryVerifier?: string;
}): StoredCosignSignature {
  const { signer, payload } = options;
  const signature = signBytes(signer.key.privateKey, payload);
  const annotations: Record<string, string> = {
    [COSIGN_SIGNATURE_ANNOTATION]: encodeBase64(signature),
  };
  if (signer.certificate) {
    annotations[COSIGN_CERTIFICATE_ANNOTATION] = certificatePem(signer.certificate);
    annotations[COSIGN_CHAIN_ANNOTATION] = "";
  }
  if (options.rekor) {
    const verifier = options.entryVerifier ??
      (signer.certificate ? certificatePem(signer.certificate) : signer.key.publicPem);
    const entry = options.rekor.log.entry(
      hashedRekordBody(payload, signature, verifier),
      options.rekor.at,
    );
    annotations[COSIGN_BUNDLE_ANNOTATION] = JSON.stringify(entry);
  }
  return {
    format: "legacy",
    payload,
    annotations: { ...annotations, ...options.annotations },
    where: options.where ?? "layer sha256:test",
  };
}

/** A cosign v3 bundle (DSSE of `statement`) signed by `signer`, with a Rekor entry if given. */
export function bundleSignature(options: {
  signer: TestSigner;
  statement: Uint8Array;
  payloadType?: string;
  rekor?: { log: TestRekor; at: Date };
  where?: string;
  /** Another key or certificate (PEM) in the Rekor entry than the signer's. */
  entryVerifier?: string;
}): StoredCosignSignature {
  const { signer, statement } = options;
  const payloadType = options.payloadType ?? IN_TOTO_PAYLOAD_TYPE;
  const signature = signBytes(
    signer.key.privateKey,
    dsse.preAuthEncoding(payloadType, Buffer.from(statement)),
  );
  const tlogEntries = [];
  if (options.rekor) {
    const verifier = options.entryVerifier ??
      (signer.certificate ? certificatePem(signer.certificate) : signer.key.publicPem);
    const entry = options.rekor.log.entry(
      dsseRekordBody(statement, signature, verifier),
      options.rekor.at,
    );
    tlogEntries.push({
      logIndex: String(entry.Payload.logIndex),
      logId: { keyId: encodeBase64(Uint8Array.from(Buffer.from(entry.Payload.logID, "hex"))) },
      kindVersion: { kind: "dsse", version: "0.0.1" },
      integratedTime: String(entry.Payload.integratedTime),
      inclusionPromise: { signedEntryTimestamp: entry.SignedEntryTimestamp },
      inclusionProof: options.rekor.log.inclusionProof(entry.Payload.body),
      canonicalizedBody: entry.Payload.body,
    });
  }
  const bundle = {
    mediaType: SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
    verificationMaterial: {
      ...(signer.certificate
        ? { certificate: { rawBytes: encodeBase64(new Uint8Array(signer.certificate.rawData)) } }
        : { publicKey: { hint: encodeBase64(sha256(der(signer.key.publicKey))) } }),
      tlogEntries,
    },
    dsseEnvelope: {
      payload: encodeBase64(statement),
      payloadType,
      signatures: [{ sig: encodeBase64(signature), keyid: "" }],
    },
  };
  return {
    format: "bundle",
    bundle: new TextEncoder().encode(JSON.stringify(bundle)),
    where: options.where ?? "referrer sha256:test",
  };
}

/**
 * A sigstore bundle v0.3 of a message signature over `artifact` (what `cosign sign-blob
 * --bundle` writes), with a hashedrekord entry (inclusion promise and proof) of `rekor`.
 * `entryVerifier` puts another key or certificate (PEM) in the entry than the signer's.
 */
export function messageBundle(options: {
  signer: TestSigner;
  artifact: Uint8Array;
  rekor: { log: TestRekor; at: Date };
  entryVerifier?: string;
}): Uint8Array {
  const { signer, artifact, rekor } = options;
  const signature = signBytes(signer.key.privateKey, artifact);
  const verifier = options.entryVerifier ??
    (signer.certificate ? certificatePem(signer.certificate) : signer.key.publicPem);
  const entry = rekor.log.entry(hashedRekordBody(artifact, signature, verifier), rekor.at);
  const bundle = {
    mediaType: SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
    verificationMaterial: {
      ...(signer.certificate
        ? { certificate: { rawBytes: encodeBase64(new Uint8Array(signer.certificate.rawData)) } }
        : { publicKey: { hint: encodeBase64(sha256(der(signer.key.publicKey))) } }),
      tlogEntries: [{
        logIndex: String(entry.Payload.logIndex),
        logId: { keyId: encodeBase64(Uint8Array.from(Buffer.from(entry.Payload.logID, "hex"))) },
        kindVersion: { kind: "hashedrekord", version: "0.0.1" },
        integratedTime: String(entry.Payload.integratedTime),
        inclusionPromise: { signedEntryTimestamp: entry.SignedEntryTimestamp },
        inclusionProof: rekor.log.inclusionProof(entry.Payload.body),
        canonicalizedBody: entry.Payload.body,
      }],
    },
    messageSignature: {
      messageDigest: { algorithm: "SHA2_256", digest: encodeBase64(sha256(artifact)) },
      signature: encodeBase64(signature),
    },
  };
  return new TextEncoder().encode(JSON.stringify(bundle));
}

/** The Rekor entry kinds cosign logs a legacy `.att` attestation as. */
export type AttestationEntryKind = "dsse 0.0.1" | "intoto 0.0.1" | "intoto 0.0.2";

/**
 * The Rekor v1 body of the attestation `envelope` (its JSON bytes as uploaded), signed by
 * `verifier` (a PEM): `dsse` 0.0.1 (cosign v2's default, v3's), `intoto` 0.0.1 (older cosign,
 * `--rekor-entry-type intoto`) or `intoto` 0.0.2, as Rekor canonicalises each.
 */
export function attestationRekordBody(
  kind: AttestationEntryKind,
  envelope: Uint8Array,
  verifier: string,
): Record<string, unknown> {
  const parsed = JSON.parse(new TextDecoder().decode(envelope));
  const payload = Uint8Array.from(Buffer.from(parsed.payload, "base64"));
  const signature = Uint8Array.from(Buffer.from(parsed.signatures[0].sig, "base64"));
  const hash = (bytes: Uint8Array) => ({ algorithm: "sha256", value: hex(sha256(bytes)) });
  const pem = encodeBase64(new TextEncoder().encode(verifier));
  switch (kind) {
    case "dsse 0.0.1":
      return {
        apiVersion: "0.0.1",
        kind: "dsse",
        spec: {
          envelopeHash: hash(envelope),
          payloadHash: hash(payload),
          signatures: [{ signature: encodeBase64(signature), verifier: pem }],
        },
      };
    case "intoto 0.0.1":
      return {
        apiVersion: "0.0.1",
        kind: "intoto",
        spec: { content: { hash: hash(envelope), payloadHash: hash(payload) }, publicKey: pem },
      };
    case "intoto 0.0.2":
      return {
        apiVersion: "0.0.2",
        kind: "intoto",
        spec: {
          content: {
            envelope: {
              payloadType: parsed.payloadType,
              signatures: [{
                // Rekor keeps the signature base64 of its base64, and the verifier's PEM.
                sig: encodeBase64(new TextEncoder().encode(encodeBase64(signature))),
                publicKey: pem,
              }],
            },
            hash: hash(envelope),
            payloadHash: hash(payload),
          },
        },
      };
  }
}

/**
 * A legacy `.att` layer as cosign writes it: the blob a DSSE envelope of `statement` signed by
 * `signer` (with its certificate annotations when it has one), the empty signature annotation,
 * and, when `rekor` is given, the Rekor bundle annotation of an entry of `kind` (default
 * `dsse 0.0.1`) over the envelope. `entryVerifier` puts another key or certificate (PEM) in the
 * entry; `entryEnvelope` logs another envelope than the layer's.
 */
export function legacyAttestation(options: {
  signer: TestSigner;
  statement: Uint8Array;
  rekor?: { log: TestRekor; at: Date; kind?: AttestationEntryKind };
  entryVerifier?: string;
  entryEnvelope?: Uint8Array;
  where?: string;
}): Extract<StoredCosignSignature, { format: "legacy" }> {
  const { signer, statement } = options;
  const signature = signBytes(
    signer.key.privateKey,
    dsse.preAuthEncoding(IN_TOTO_PAYLOAD_TYPE, Buffer.from(statement)),
  );
  const envelope = new TextEncoder().encode(JSON.stringify({
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    payload: encodeBase64(statement),
    signatures: [{ keyid: "", sig: encodeBase64(signature) }],
  }));
  const annotations: Record<string, string> = { [COSIGN_SIGNATURE_ANNOTATION]: "" };
  if (signer.certificate) {
    annotations[COSIGN_CERTIFICATE_ANNOTATION] = certificatePem(signer.certificate);
    annotations[COSIGN_CHAIN_ANNOTATION] = "";
  }
  if (options.rekor) {
    const verifier = options.entryVerifier ??
      (signer.certificate ? certificatePem(signer.certificate) : signer.key.publicPem);
    const body = attestationRekordBody(
      options.rekor.kind ?? "dsse 0.0.1",
      options.entryEnvelope ?? envelope,
      verifier,
    );
    annotations[COSIGN_BUNDLE_ANNOTATION] = JSON.stringify(
      options.rekor.log.entry(body, options.rekor.at),
    );
  }
  return {
    format: "legacy",
    payload: envelope,
    annotations,
    where: options.where ?? "layer sha256:test of sha256-test.att",
  };
}
