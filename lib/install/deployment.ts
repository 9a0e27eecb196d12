/**
 * The webhook's workload: the Namespace, the Deployment (three spread replicas, system-critical
 * priority, locked-down security context, HTTPS probes, the TLS Secret and registries.d mounted;
 * with client authentication, the client CA mounted and the probes on the probe port), a
 * PodDisruptionBudget selecting the pods' real labels, and the Service the API server calls.
 *
 * @module
 */
import { REPORTS_BYTES, webhookMemoryLimitQuantity } from "../admission/mod.ts";
import type { KubeObject } from "../kube/mod.ts";
import {
  commonLabels,
  type InstallOptions,
  selectorLabels,
  TLS_SECRET_NAME,
  WEBHOOK_NAME,
  WEBHOOK_PORT,
} from "./options.ts";
import { CLIENT_CA_MOUNT_PATH, clientCaVolume, PROBE_PORT } from "./client_auth.ts";
import {
  REGISTRIES_D_CHECKSUM_ANNOTATION,
  REGISTRIES_D_CONFIG_MAP_NAME,
  REGISTRIES_D_MOUNT_PATH,
  registriesDChecksum,
} from "./registries_d_config_map.ts";

/** Where the TLS Secret is mounted in the container. */
export const TLS_MOUNT_PATH = "/etc/toolkit/tls";

/** The controller's Namespace. */
export function namespaceManifest(options: InstallOptions): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: options.namespace, labels: commonLabels() },
  };
}

/** The webhook's command-line arguments. */
export function webhookArgs(options: InstallOptions): string[] {
  return [
    `--port=${WEBHOOK_PORT}`,
    `--tls-cert-file=${TLS_MOUNT_PATH}/tls.crt`,
    `--tls-key-file=${TLS_MOUNT_PATH}/tls.key`,
    `--namespace=${options.namespace}`,
    `--exempt-namespace-label=${
      options.exemptLabel ? `${options.exemptLabel.key}=${options.exemptLabel.value}` : ""
    }`,
    // Below the webhook's timeoutSeconds, so a slow registry yields a reasoned answer.
    `--budget=${Math.max(1, options.timeoutSeconds - 2)}s`,
    `--registries.d=${REGISTRIES_D_MOUNT_PATH}`,
    // One replica at a time (a Lease) keeps each namespace's PolicyReport current.
    "--policy-reports",
    "--reports-resync=10m",
    "--reports-registry-rate=5",
    `--reports-max-copy-bytes=${REPORTS_BYTES.workloadCopies}`,
    ...(options.clientAuth
      ? [`--client-ca=${CLIENT_CA_MOUNT_PATH}/ca.crt`, `--probe-port=${PROBE_PORT}`]
      : []),
  ];
}

/** The Deployment of the webhook. */
export function deploymentManifest(options: InstallOptions): KubeObject {
  // With client authentication the webhook's port refuses the kubelet (it has no client
  // certificate): the probes go to the probe listener, which serves only them and /metrics.
  const probePort = options.clientAuth ? "probes" : "https";
  const args = webhookArgs(options);
  const probe = (path: string) => ({
    httpGet: { path, port: probePort, scheme: "HTTPS" },
    initialDelaySeconds: 2,
    periodSeconds: 10,
    timeoutSeconds: 5,
    failureThreshold: 3,
  });
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: WEBHOOK_NAME,
      namespace: options.namespace,
      labels: { ...commonLabels(), ...selectorLabels() },
    },
    spec: {
      replicas: options.replicas,
      selector: { matchLabels: selectorLabels() },
      template: {
        metadata: {
          labels: { ...commonLabels(), ...selectorLabels() },
          // A changed registries.d ConfigMap rolls the pods: the webhook reads it at start.
          annotations: { [REGISTRIES_D_CHECKSUM_ANNOTATION]: registriesDChecksum(options) },
        },
        spec: {
          serviceAccountName: WEBHOOK_NAME,
          priorityClassName: "system-cluster-critical",
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [{
                weight: 100,
                podAffinityTerm: {
                  topologyKey: "kubernetes.io/hostname",
                  labelSelector: { matchLabels: selectorLabels() },
                },
              }],
            },
          },
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 65532,
            runAsGroup: 65532,
            seccompProfile: { type: "RuntimeDefault" },
          },
          containers: [{
            name: "webhook",
            image: options.image,
            imagePullPolicy: "IfNotPresent",
            args,
            env: [
              {
                name: "POD_NAMESPACE",
                valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } },
              },
              { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
            ],
            ports: [
              { name: "https", containerPort: WEBHOOK_PORT, protocol: "TCP" },
              ...(options.clientAuth
                ? [{ name: "probes", containerPort: PROBE_PORT, protocol: "TCP" }]
                : []),
            ],
            livenessProbe: probe("/healthz"),
            readinessProbe: probe("/readyz"),
            resources: {
              requests: { cpu: "50m", memory: "64Mi" },
              // The memory budget's limit (lib/admission/memory_budget.ts): 352Mi with the
              // PolicyReport controller's bounds, 288Mi without.
              limits: {
                cpu: "500m",
                memory: webhookMemoryLimitQuantity(
                  args.includes("--policy-reports"),
                ),
              },
            },
            securityContext: {
              allowPrivilegeEscalation: false,
              readOnlyRootFilesystem: true,
              capabilities: { drop: ["ALL"] },
            },
            volumeMounts: [
              { name: "tls", mountPath: TLS_MOUNT_PATH, readOnly: true },
              { name: "registries-d", mountPath: REGISTRIES_D_MOUNT_PATH, readOnly: true },
              { name: "tmp", mountPath: "/tmp" },
              ...(options.clientAuth
                ? [{ name: "client-ca", mountPath: CLIENT_CA_MOUNT_PATH, readOnly: true }]
                : []),
            ],
          }],
          volumes: [
            { name: "tls", secret: { secretName: TLS_SECRET_NAME } },
            { name: "registries-d", configMap: { name: REGISTRIES_D_CONFIG_MAP_NAME } },
            { name: "tmp", emptyDir: { sizeLimit: "64Mi" } },
            ...(options.clientAuth ? [clientCaVolume()] : []),
          ],
        },
      },
    },
  };
}

/** Keeps at least one replica through voluntary disruptions (drains, upgrades). */
export function podDisruptionBudgetManifest(options: InstallOptions): KubeObject {
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: WEBHOOK_NAME, namespace: options.namespace, labels: commonLabels() },
    spec: { minAvailable: 1, selector: { matchLabels: selectorLabels() } },
  };
}

/**
 * The Service the API server calls: 443 → the container's 8443; with client authentication also
 * the probe port (`/healthz`, `/readyz`, `/metrics` for Prometheus, no client certificate).
 */
export function serviceManifest(options: InstallOptions): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: WEBHOOK_NAME, namespace: options.namespace, labels: commonLabels() },
    spec: {
      type: "ClusterIP",
      selector: selectorLabels(),
      ports: [
        { name: "https", port: 443, targetPort: "https", protocol: "TCP" },
        ...(options.clientAuth
          ? [{ name: "probes", port: PROBE_PORT, targetPort: "probes", protocol: "TCP" }]
          : []),
      ],
    },
  };
}
