/**
 * The webhook's TLS material, made in TypeScript with WebCrypto (ECDSA P-256, no openssl at
 * run time): a CA and a serving certificate for `<service>.<namespace>.svc`, kept in a Secret
 * (`tls.crt`, `tls.key`, `ca.crt`), renewed when fewer than 30 days remain. The CA is what the
 * MutatingWebhookConfiguration's `caBundle` trusts; during a renewal the bundle holds the new
 * CA and the old one while it is valid, so replicas still serving the old certificate keep
 * working until they reload the Secret.
 *
 * @module
 */
import { X509Certificate } from "node:crypto";
import { decodeBase64Text, encodeBase64 } from "../base64.ts";
import { ToolkitError } from "../errors.ts";
import type { KubeObject } from "../kube/mod.ts";
import {
  bitString,
  boolean,
  concatBytes,
  explicit,
  integer,
  integerFromBytes,
  octetString,
  oid,
  sequence,
  set,
  time,
  tlv,
  utf8String,
} from "./der.ts";
import { commonLabels, TLS_SECRET_NAME } from "./options.ts";

/** Renew when fewer than this many days of validity remain. */
export const RENEW_BEFORE_DAYS = 30;

/** How long new certificates are valid. */
export const VALIDITY_DAYS = 365;

const DAY_MS = 86_400_000;

/** A certificate could not be made or read. */
export class TlsError extends ToolkitError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "TlsError";
  }
}

/** A CA and a serving certificate signed by it, as PEM. */
export interface WebhookTls {
  /** The CA certificate. */
  readonly caCertPem: string;
  /** The serving certificate. */
  readonly certPem: string;
  /** The serving certificate's private key (PKCS#8). */
  readonly keyPem: string;
  /** When the serving certificate expires. */
  readonly notAfter: Date;
}

function pem(label: string, der: Uint8Array): string {
  const lines = encodeBase64(der).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

function name(commonName: string): Uint8Array {
  return sequence(set(sequence(oid("2.5.4.3"), utf8String(commonName))));
}

function extension(id: string, critical: boolean, value: Uint8Array): Uint8Array {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));
}

function ipBytes(ip: string): Uint8Array | undefined {
  const parts = ip.split(".");
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) {
    return undefined;
  }
  return Uint8Array.from(parts.map(Number));
}

/** ECDSA's raw `r || s` signature as the DER `Ecdsa-Sig-Value`. */
function ecdsaDer(raw: Uint8Array): Uint8Array {
  const half = raw.length / 2;
  return sequence(integerFromBytes(raw.subarray(0, half)), integerFromBytes(raw.subarray(half)));
}

const ECDSA_SHA256 = sequence(oid("1.2.840.10045.4.3.2"));
const KEY_ALGORITHM = { name: "ECDSA", namedCurve: "P-256" } as const;

async function subjectKeyId(spki: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-1", spki as BufferSource)).subarray(0, 20);
}

interface CertificateRequest {
  subject: string;
  issuer: string;
  spki: Uint8Array;
  signingKey: CryptoKey;
  issuerKeyId: Uint8Array;
  notBefore: Date;
  notAfter: Date;
  ca: boolean;
  sans: readonly string[];
}

async function certificate(request: CertificateRequest): Promise<Uint8Array> {
  const serial = crypto.getRandomValues(new Uint8Array(16));
  serial[0] = serial[0]! & 0x7f;
  const keyId = await subjectKeyId(request.spki);
  const extensions: Uint8Array[] = [
    extension("2.5.29.19", true, request.ca ? sequence(boolean(true)) : sequence()),
    // keyUsage: digitalSignature, keyCertSign and cRLSign for the CA; digitalSignature alone.
    extension(
      "2.5.29.15",
      true,
      request.ca ? bitString(Uint8Array.of(0x86), 1) : bitString(Uint8Array.of(0x80), 7),
    ),
    extension("2.5.29.14", false, octetString(keyId)),
    extension("2.5.29.35", false, sequence(tlv(0x80, request.issuerKeyId))),
  ];
  if (!request.ca) {
    extensions.push(extension("2.5.29.37", false, sequence(oid("1.3.6.1.5.5.7.3.1"))));
    const names = request.sans.map((san) => {
      const ip = ipBytes(san);
      return ip ? tlv(0x87, ip) : tlv(0x82, new TextEncoder().encode(san));
    });
    extensions.push(extension("2.5.29.17", false, sequence(...names)));
  }
  const tbs = sequence(
    explicit(0, integer(2)),
    integerFromBytes(serial),
    ECDSA_SHA256,
    name(request.issuer),
    sequence(time(request.notBefore), time(request.notAfter)),
    name(request.subject),
    request.spki,
    explicit(3, sequence(...extensions)),
  );
  const raw = new Uint8Array(
    await crypto.subtle.sign(
      { name: "ECDSA", hash: "SHA-256" },
      request.signingKey,
      tbs as BufferSource,
    ),
  );
  return sequence(tbs, ECDSA_SHA256, bitString(ecdsaDer(raw)));
}

/** Options of {@link generateWebhookTls}. */
export interface GenerateTlsOptions {
  /** The names the serving certificate is for; the first is its common name. */
  readonly dnsNames: readonly string[];
  /** The current time (default: now). */
  readonly now?: Date;
  /** Validity in days (default {@link VALIDITY_DAYS}). */
  readonly validityDays?: number;
}

/** Makes a new CA and a serving certificate for `dnsNames` (DNS names or IPv4 addresses). */
export async function generateWebhookTls(options: GenerateTlsOptions): Promise<WebhookTls> {
  const [commonName] = options.dnsNames;
  if (commonName === undefined) {
    throw new TlsError(`Cannot make a serving certificate "": no DNS name given`);
  }
  const now = options.now ?? new Date();
  const notBefore = new Date(now.getTime() - 5 * 60_000);
  const notAfter = new Date(now.getTime() + (options.validityDays ?? VALIDITY_DAYS) * DAY_MS);
  const caKeys = await crypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"]);
  const leafKeys = await crypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"]);
  const caSpki = new Uint8Array(await crypto.subtle.exportKey("spki", caKeys.publicKey));
  const leafSpki = new Uint8Array(await crypto.subtle.exportKey("spki", leafKeys.publicKey));
  const caName = `toolkit-webhook-ca@${Math.floor(now.getTime() / 1000)}`;
  const caKeyId = await subjectKeyId(caSpki);
  const caDer = await certificate({
    subject: caName,
    issuer: caName,
    spki: caSpki,
    signingKey: caKeys.privateKey,
    issuerKeyId: caKeyId,
    notBefore,
    notAfter,
    ca: true,
    sans: [],
  });
  const leafDer = await certificate({
    subject: commonName,
    issuer: caName,
    spki: leafSpki,
    signingKey: caKeys.privateKey,
    issuerKeyId: caKeyId,
    notBefore,
    notAfter,
    ca: false,
    sans: options.dnsNames,
  });
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", leafKeys.privateKey));
  return {
    caCertPem: pem("CERTIFICATE", caDer),
    certPem: pem("CERTIFICATE", leafDer),
    keyPem: pem("PRIVATE KEY", concatBytes(pkcs8)),
    notAfter,
  };
}

/** What a PEM certificate says about itself. */
export interface CertificateInfo {
  /** Expiry. */
  readonly notAfter: Date;
  /** Start of validity. */
  readonly notBefore: Date;
  /** Subject alternative names: DNS names and IP addresses. */
  readonly names: readonly string[];
}

/** Reads the validity and names of a PEM certificate (the first of a chain). */
export function readCertificate(certPem: string): CertificateInfo {
  try {
    const cert = new X509Certificate(certPem);
    const names = (cert.subjectAltName ?? "").split(", ").filter((s) => s !== "")
      .map((s) => s.replace(/^(DNS|IP Address):/, ""));
    return { notAfter: new Date(cert.validTo), notBefore: new Date(cert.validFrom), names };
  } catch (error) {
    throw new TlsError(
      `Cannot read the certificate "${certPem.slice(0, 40)}…": not a PEM X.509 certificate`,
      {
        cause: error,
      },
    );
  }
}

/** Why the TLS in a Secret must be renewed, or undefined when it can be kept. */
export function renewalReason(
  secret: KubeObject | undefined,
  dnsNames: readonly string[],
  now: Date,
): string | undefined {
  const data = secret?.data as Record<string, string> | undefined;
  if (!data) return "no certificate yet";
  for (const entry of ["tls.crt", "tls.key", "ca.crt"]) {
    if (!data[entry]) return `the Secret has no ${entry}`;
  }
  let info: CertificateInfo;
  try {
    info = readCertificate(decodeBase64Text(data["tls.crt"]!));
  } catch {
    return "the certificate cannot be read";
  }
  const missing = dnsNames.filter((n) => !info.names.includes(n));
  if (missing.length > 0) return `the certificate is not for ${missing.join(", ")}`;
  const daysLeft = (info.notAfter.getTime() - now.getTime()) / DAY_MS;
  if (daysLeft < RENEW_BEFORE_DAYS) {
    return `the certificate expires on ${info.notAfter.toISOString()} (in fewer than ${RENEW_BEFORE_DAYS} days)`;
  }
  return undefined;
}

export { decodeBase64Text } from "../base64.ts";

/** The Secret that holds the serving certificate, its key and the CA. */
export function tlsSecretManifest(namespace: string, tls: WebhookTls): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: TLS_SECRET_NAME, namespace, labels: commonLabels() },
    type: "kubernetes.io/tls",
    data: {
      "tls.crt": encodeBase64(tls.certPem),
      "tls.key": encodeBase64(tls.keyPem),
      "ca.crt": encodeBase64(tls.caCertPem),
    },
  };
}

/** The TLS kept from a Secret. */
export function tlsFromSecret(secret: KubeObject): WebhookTls {
  const data = secret.data as Record<string, string>;
  const certPem = decodeBase64Text(data["tls.crt"] ?? "");
  return {
    certPem,
    keyPem: decodeBase64Text(data["tls.key"] ?? ""),
    caCertPem: decodeBase64Text(data["ca.crt"] ?? ""),
    notAfter: readCertificate(certPem).notAfter,
  };
}

/**
 * The `caBundle` for the webhook: the current CA, plus the previous CA while it is still
 * valid (so a rotation does not break replicas that have not reloaded yet).
 */
export function caBundle(
  current: WebhookTls,
  previousCaPem: string | undefined,
  now: Date,
): string {
  let bundle = current.caCertPem;
  if (previousCaPem && previousCaPem.trim() !== current.caCertPem.trim()) {
    try {
      if (readCertificate(previousCaPem).notAfter > now) bundle += previousCaPem;
    } catch {
      // An unreadable old CA is simply dropped.
    }
  }
  return encodeBase64(bundle);
}

/** Options of {@link ensureTls}. */
export interface EnsureTlsOptions {
  /** The names the serving certificate must be for. */
  readonly dnsNames: readonly string[];
  /** The current time. */
  readonly now: Date;
  /** Renew even if the current certificate is good. */
  readonly force?: boolean;
}

/** The TLS to install, and whether it is new. */
export interface EnsuredTls {
  /** The certificate to keep or install. */
  readonly tls: WebhookTls;
  /** Why it was renewed, or undefined when the Secret's is kept. */
  readonly renewed: string | undefined;
  /** The `caBundle` to put in the webhook configuration. */
  readonly caBundle: string;
}

/** Keeps the Secret's certificate when it is good, else makes a new one. */
export async function ensureTls(
  existing: KubeObject | undefined,
  options: EnsureTlsOptions,
): Promise<EnsuredTls> {
  const reason = options.force
    ? "renewal was asked for"
    : renewalReason(existing, options.dnsNames, options.now);
  if (reason === undefined && existing) {
    const tls = tlsFromSecret(existing);
    return { tls, renewed: undefined, caBundle: caBundle(tls, undefined, options.now) };
  }
  const tls = await generateWebhookTls({ dnsNames: options.dnsNames, now: options.now });
  const previous = existing
    ? (existing.data as Record<string, string> | undefined)?.["ca.crt"]
    : undefined;
  return {
    tls,
    renewed: reason,
    caBundle: caBundle(tls, previous ? decodeBase64Text(previous) : undefined, options.now),
  };
}
