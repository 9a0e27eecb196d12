/**
 * Who may call the webhook: the API server proves itself with a client certificate, and the
 * webhook (`--client-ca`) refuses at the TLS handshake every client without one from the client
 * CA. This module makes what that takes, as Kubernetes documents it ("Authenticate API servers",
 * in "Dynamic Admission Control"):
 *
 * - the client CA: made here (ECDSA P-256, like the serving CA of `tls.ts`) and kept in the
 *   Secret {@linkcode CLIENT_CA_SECRET_NAME} (`ca.crt`, `ca.key`), of which the webhook's Pods
 *   mount only `ca.crt`; or taken from the administrator (`ca.crt` only: they issue the API
 *   server's certificate themselves);
 * - the API server's client certificate, issued by that CA (extKeyUsage clientAuth);
 * - the `AdmissionConfiguration` file kube-apiserver reads with `--admission-control-config-file`,
 *   whose `WebhookAdmissionConfiguration` (for MutatingAdmissionWebhook and
 *   ValidatingAdmissionWebhook) names a kubeconfig;
 * - that kubeconfig: one user per name the API server calls the webhook by (the Service's
 *   `<service>.<namespace>.svc`, or for a webhook registered by URL its host, with the port
 *   unless 443), holding the client certificate and key files.
 *
 * Managed control planes differ in how these files reach kube-apiserver, so `enable` prints them
 * or writes them to a directory; the key is only ever written to a file (0600), never printed.
 *
 * @module
 */
import { decodeBase64Text, encodeBase64 } from "../base64.ts";
import type { KubeObject } from "../kube/mod.ts";
import { decodePem, encodePem } from "../pem.ts";
import { x509 } from "../x509.ts";
import { InstallError } from "./install_error.ts";
import { commonLabels, type InstallOptions, serviceDnsName, WEBHOOK_PORT } from "./options.ts";
import { RENEW_BEFORE_DAYS, TlsError, VALIDITY_DAYS } from "./tls.ts";

/** The Secret holding the client CA (`ca.crt`; `ca.key` when toolkit made it). */
export const CLIENT_CA_SECRET_NAME = "toolkit-webhook-client-ca";

/** Where the client CA's `ca.crt` is mounted in the webhook's container. */
export const CLIENT_CA_MOUNT_PATH = "/etc/toolkit/client-ca";

/**
 * The probe listener's port in the container (`--probe-port`): `/healthz`, `/readyz` and
 * `/metrics` without a client certificate, for the kubelet and Prometheus.
 */
export const PROBE_PORT = WEBHOOK_PORT + 1;

/** The common name of the API server's client certificate. */
export const API_SERVER_CLIENT_NAME = "kube-apiserver";

/** The files `enable --api-server-config-dir` writes, by role. */
export const API_SERVER_FILES = {
  admissionConfiguration: "admission-configuration.yaml",
  kubeconfig: "webhook-kubeconfig.yaml",
  cert: "client.crt",
  key: "client.key",
} as const;

const DAY_MS = 86_400_000;
const KEY_ALGORITHM = { name: "ECDSA", namedCurve: "P-256" } as const;
const SIGNING_ALGORITHM = { name: "ECDSA", hash: "SHA-256" } as const;

/** A client CA: its certificate and, when toolkit made it, its key (PKCS#8 PEM). */
export interface ClientCa {
  readonly caCertPem: string;
  /** Undefined for a CA the administrator gave: no client certificate is issued then. */
  readonly caKeyPem?: string;
}

/** A client certificate and its key, as PEM. */
export interface ClientCertificate {
  readonly certPem: string;
  readonly keyPem: string;
  readonly notAfter: Date;
}

function serialNumber(): string {
  const serial = crypto.getRandomValues(new Uint8Array(16));
  serial[0] = (serial[0]! & 0x7f) | 0x01;
  return serial.toHex();
}

function firstCertificate(pem: string, what: string): x509.X509Certificate {
  try {
    const der = decodePem(pem).find((block) => block.label === "CERTIFICATE");
    if (der === undefined) throw new TlsError("no CERTIFICATE block");
    return new x509.X509Certificate(der.bytes);
  } catch (error) {
    throw new TlsError(`Cannot read ${what}: not a PEM X.509 certificate`, { cause: error });
  }
}

/** Makes a new client CA (valid {@linkcode VALIDITY_DAYS} days). */
export async function generateClientCa(now: Date = new Date()): Promise<Required<ClientCa>> {
  const keys = await crypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"]);
  const name: x509.JsonName = [{
    CN: [`toolkit-webhook-client-ca@${Math.floor(now.getTime() / 1000)}`],
  }];
  const ca = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: name,
    issuer: name,
    notBefore: new Date(now.getTime() - 5 * 60_000),
    notAfter: new Date(now.getTime() + VALIDITY_DAYS * DAY_MS),
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign |
          x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", keys.privateKey));
  return {
    caCertPem: encodePem("CERTIFICATE", new Uint8Array(ca.rawData)),
    caKeyPem: encodePem("PRIVATE KEY", pkcs8),
  };
}

/**
 * Issues the API server's client certificate (extKeyUsage clientAuth, common name
 * {@linkcode API_SERVER_CLIENT_NAME}) from a CA toolkit made; valid as long as the CA, at most
 * {@linkcode VALIDITY_DAYS} days.
 */
export async function issueClientCertificate(
  ca: ClientCa,
  now: Date = new Date(),
): Promise<ClientCertificate> {
  if (ca.caKeyPem === undefined) {
    throw new InstallError(
      "Cannot issue the API server's client certificate: the client CA was given without its key",
    );
  }
  const caCert = firstCertificate(ca.caCertPem, "the client CA");
  const caDer = decodePem(ca.caKeyPem).find((block) => block.label === "PRIVATE KEY");
  if (caDer === undefined) throw new TlsError("Cannot read the client CA's key: no PRIVATE KEY");
  const caKey = await crypto.subtle.importKey("pkcs8", caDer.bytes, KEY_ALGORITHM, false, [
    "sign",
  ]);
  const keys = await crypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"]);
  const notAfter = new Date(
    Math.min(now.getTime() + VALIDITY_DAYS * DAY_MS, caCert.notAfter.getTime()),
  );
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: [{ CN: [API_SERVER_CLIENT_NAME] }],
    issuer: caCert.subjectName,
    notBefore: new Date(now.getTime() - 5 * 60_000),
    notAfter,
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", keys.privateKey));
  return {
    certPem: encodePem("CERTIFICATE", new Uint8Array(leaf.rawData)),
    keyPem: encodePem("PRIVATE KEY", pkcs8),
    notAfter,
  };
}

/** The Secret of the client CA (`ca.key` only when toolkit made the CA). */
export function clientCaSecretManifest(namespace: string, ca: ClientCa): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: CLIENT_CA_SECRET_NAME, namespace, labels: commonLabels() },
    type: "Opaque",
    data: {
      "ca.crt": encodeBase64(ca.caCertPem),
      ...(ca.caKeyPem !== undefined ? { "ca.key": encodeBase64(ca.caKeyPem) } : {}),
    },
  };
}

/** The client CA the Secret holds, or undefined when it holds none. */
export function clientCaFromSecret(secret: KubeObject | undefined): ClientCa | undefined {
  const data = secret?.data as Record<string, string> | undefined;
  if (!data?.["ca.crt"]) return undefined;
  return {
    caCertPem: decodeBase64Text(data["ca.crt"]),
    ...(data["ca.key"] ? { caKeyPem: decodeBase64Text(data["ca.key"]) } : {}),
  };
}

/** The client CA to install, and why it is new (undefined: the Secret's is kept). */
export interface EnsuredClientCa {
  readonly ca: ClientCa;
  readonly renewed: string | undefined;
}

/**
 * The client CA: `given` (the administrator's, certificate only) when there is one; else the
 * Secret's, when valid for more than {@linkcode RENEW_BEFORE_DAYS} more days (or, given earlier
 * by the administrator, as it is: toolkit cannot renew it); else a new one.
 */
export async function ensureClientCa(
  existing: KubeObject | undefined,
  options: { readonly now: Date; readonly given?: string | undefined },
): Promise<EnsuredClientCa> {
  if (options.given !== undefined) {
    const certificate = firstCertificate(options.given, "the client CA given");
    if (certificate.getExtension(x509.BasicConstraintsExtension)?.ca !== true) {
      throw new InstallError(
        `Cannot use the client CA "${certificate.subject}": it is not a CA certificate`,
      );
    }
    return { ca: { caCertPem: options.given }, renewed: undefined };
  }
  const kept = clientCaFromSecret(existing);
  if (kept?.caKeyPem === undefined && kept !== undefined) return { ca: kept, renewed: undefined };
  let reason = "no client CA yet";
  if (kept !== undefined) {
    const notAfter = firstCertificate(kept.caCertPem, "the client CA").notAfter;
    const daysLeft = (notAfter.getTime() - options.now.getTime()) / DAY_MS;
    if (daysLeft >= RENEW_BEFORE_DAYS) return { ca: kept, renewed: undefined };
    reason = `the client CA expires on ${notAfter.toISOString()}`;
  }
  return { ca: await generateClientCa(options.now), renewed: reason };
}

/**
 * The names the API server calls the webhook by, as the kubeconfig's users must be named: the
 * Service's DNS name, or for a webhook registered by URL its host (with the port unless 443).
 */
export function webhookClientNames(
  options: Pick<InstallOptions, "namespace" | "webhookUrl">,
): string[] {
  if (!options.webhookUrl) return [serviceDnsName(options)];
  const url = new URL(options.webhookUrl);
  return [url.port && url.port !== "443" ? url.host : url.hostname];
}

/**
 * The `AdmissionConfiguration` kube-apiserver reads with `--admission-control-config-file`: both
 * webhook admission plugins use the kubeconfig at `kubeconfigPath` to reach webhooks.
 */
export function admissionConfiguration(kubeconfigPath: string): Record<string, unknown> {
  const plugin = (name: string) => ({
    name,
    configuration: {
      apiVersion: "apiserver.config.k8s.io/v1",
      kind: "WebhookAdmissionConfiguration",
      kubeConfigFile: kubeconfigPath,
    },
  });
  return {
    apiVersion: "apiserver.config.k8s.io/v1",
    kind: "AdmissionConfiguration",
    plugins: [plugin("ValidatingAdmissionWebhook"), plugin("MutatingAdmissionWebhook")],
  };
}

/**
 * The kubeconfig of the AdmissionConfiguration: one user per name of `names`, each with the
 * client certificate and key files at `certPath` and `keyPath`. (The API server picks the user
 * whose name is the webhook's host; no cluster or context is needed.)
 */
export function apiServerKubeconfig(
  names: readonly string[],
  certPath: string,
  keyPath: string,
): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Config",
    users: names.map((name) => ({
      name,
      user: { "client-certificate": certPath, "client-key": keyPath },
    })),
  };
}

/** The deployment's volume of the client CA: `ca.crt` only (never the CA's key). */
export function clientCaVolume(): Record<string, unknown> {
  return {
    name: "client-ca",
    secret: {
      secretName: CLIENT_CA_SECRET_NAME,
      items: [{ key: "ca.crt", path: "ca.crt" }],
    },
  };
}

/** The files of the control plane, with their paths as kube-apiserver will read them. */
export interface ApiServerConfiguration {
  /** The AdmissionConfiguration, naming `kubeconfigPath`. */
  readonly admissionConfiguration: Record<string, unknown>;
  /** The kubeconfig, naming the client certificate and key paths. */
  readonly kubeconfig: Record<string, unknown>;
  /** Where kube-apiserver reads each file. */
  readonly paths: Record<keyof typeof API_SERVER_FILES, string>;
}

/**
 * The AdmissionConfiguration and kubeconfig for a control plane that reads the files of
 * {@linkcode API_SERVER_FILES} from `directory`.
 */
export function apiServerConfiguration(
  options: Pick<InstallOptions, "namespace" | "webhookUrl">,
  directory: string,
): ApiServerConfiguration {
  const base = directory.replace(/\/+$/, "");
  const paths = {
    admissionConfiguration: `${base}/${API_SERVER_FILES.admissionConfiguration}`,
    kubeconfig: `${base}/${API_SERVER_FILES.kubeconfig}`,
    cert: `${base}/${API_SERVER_FILES.cert}`,
    key: `${base}/${API_SERVER_FILES.key}`,
  };
  return {
    admissionConfiguration: admissionConfiguration(paths.kubeconfig),
    kubeconfig: apiServerKubeconfig(webhookClientNames(options), paths.cert, paths.key),
    paths,
  };
}
