/**
 * The webhook's TLS material, made in TypeScript with WebCrypto (ECDSA P-256, no openssl at
 * run time) and toolkit's X.509 library (lib/x509.ts): a CA and a serving certificate for
 * `<service>.<namespace>.svc`, kept in a Secret (`tls.crt`, `tls.key`, `ca.crt`), renewed when
 * fewer than 30 days remain. The CA is what the MutatingWebhookConfiguration's `caBundle`
 * trusts; during a renewal the bundle holds the new CA and the old one while it is valid, so
 * replicas still serving the old certificate keep working until they reload the Secret.
 *
 * The CA: self-signed, basicConstraints CA (critical), keyUsage digitalSignature, keyCertSign
 * and cRLSign (critical), subject and authority key identifiers. The serving certificate:
 * basicConstraints not a CA (critical), keyUsage digitalSignature (critical), extKeyUsage
 * serverAuth, subjectAltName of the DNS names and IPv4 addresses, key identifiers. Both valid
 * from five minutes before `now` (clock skew), with a random positive 128-bit serial number.
 *
 * @module
 */
import { decodeBase64Text, encodeBase64 } from "../base64.ts";
import { ToolkitError } from "../errors.ts";
import type { KubeObject } from "../kube/mod.ts";
import { decodePem, encodePem } from "../pem.ts";
import { x509 } from "../x509.ts";
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

const KEY_ALGORITHM = { name: "ECDSA", namedCurve: "P-256" } as const;
const SIGNING_ALGORITHM = { name: "ECDSA", hash: "SHA-256" } as const;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** A random positive 128-bit serial number, in hex. */
function serialNumber(): string {
  const serial = crypto.getRandomValues(new Uint8Array(16));
  serial[0] = (serial[0]! & 0x7f) | 0x01;
  return serial.toHex();
}

function commonName(value: string): x509.JsonName {
  return [{ CN: [value] }];
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
  const [leafName] = options.dnsNames;
  if (leafName === undefined) {
    throw new TlsError(`Cannot make a serving certificate "": no DNS name given`);
  }
  const now = options.now ?? new Date();
  const notBefore = new Date(now.getTime() - 5 * 60_000);
  const notAfter = new Date(now.getTime() + (options.validityDays ?? VALIDITY_DAYS) * DAY_MS);
  const caKeys = await crypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"]);
  const leafKeys = await crypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"]);
  const caName = commonName(`toolkit-webhook-ca@${Math.floor(now.getTime() / 1000)}`);
  const authorityKeyId = await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey);
  const ca = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: caName,
    issuer: caName,
    notBefore,
    notAfter,
    publicKey: caKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign |
          x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
      authorityKeyId,
    ],
  });
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: commonName(leafName),
    issuer: caName,
    notBefore,
    notAfter,
    publicKey: leafKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey),
      authorityKeyId,
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(
        options.dnsNames.map((name): x509.JsonGeneralName => ({
          type: IPV4.test(name) ? "ip" : "dns",
          value: name,
        })),
      ),
    ],
  });
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", leafKeys.privateKey));
  return {
    caCertPem: encodePem("CERTIFICATE", new Uint8Array(ca.rawData)),
    certPem: encodePem("CERTIFICATE", new Uint8Array(leaf.rawData)),
    keyPem: encodePem("PRIVATE KEY", pkcs8),
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
    const der = decodePem(certPem).find((block) => block.label === "CERTIFICATE");
    if (der === undefined) throw new TlsError("no CERTIFICATE block");
    const cert = new x509.X509Certificate(der.bytes);
    const names = cert.getExtension(x509.SubjectAlternativeNameExtension)?.names.items
      .filter((name) => name.type === "dns" || name.type === "ip")
      .map((name) => name.value) ?? [];
    return { notAfter: cert.notAfter, notBefore: cert.notBefore, names };
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
