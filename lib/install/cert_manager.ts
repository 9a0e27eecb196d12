/**
 * TLS by cert-manager instead of toolkit: a self-signed Issuer, a Certificate for the Service
 * name written into the same Secret toolkit would use, and cert-manager's CA injector filling
 * the webhook configuration's `caBundle` from the `cert-manager.io/inject-ca-from` annotation.
 *
 * @module
 */
import type { KubeObject } from "../kube/mod.ts";
import {
  commonLabels,
  type InstallOptions,
  serviceDnsName,
  TLS_SECRET_NAME,
  WEBHOOK_NAME,
} from "./options.ts";

/** A self-signed cert-manager Issuer in the controller's namespace. */
export function issuerManifest(options: InstallOptions): KubeObject {
  return {
    apiVersion: "cert-manager.io/v1",
    kind: "Issuer",
    metadata: { name: WEBHOOK_NAME, namespace: options.namespace, labels: commonLabels() },
    spec: { selfSigned: {} },
  };
}

/** The Certificate for the webhook Service, stored in the TLS Secret. */
export function certificateManifest(options: InstallOptions): KubeObject {
  return {
    apiVersion: "cert-manager.io/v1",
    kind: "Certificate",
    metadata: { name: WEBHOOK_NAME, namespace: options.namespace, labels: commonLabels() },
    spec: {
      secretName: TLS_SECRET_NAME,
      commonName: serviceDnsName(options),
      dnsNames: [serviceDnsName(options), `${WEBHOOK_NAME}.${options.namespace}.svc.cluster.local`],
      duration: "8760h",
      renewBefore: "720h",
      privateKey: { algorithm: "ECDSA", size: 256, rotationPolicy: "Always" },
      issuerRef: { name: WEBHOOK_NAME, kind: "Issuer", group: "cert-manager.io" },
    },
  };
}
