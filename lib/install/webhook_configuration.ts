/**
 * The MutatingWebhookConfiguration that sends workloads to the webhook: every kind that holds
 * a pod template, CREATE and UPDATE, failing closed within ten seconds, skipping exempt
 * namespaces and the controller's own (so the webhook can always restart itself).
 *
 * @module
 */
import type { KubeObject } from "../kube/mod.ts";
import {
  commonLabels,
  type InstallOptions,
  WEBHOOK_CONFIGURATION_NAME,
  WEBHOOK_NAME,
} from "./options.ts";

/** The name of the one webhook in the configuration. */
export const WEBHOOK_ENTRY_NAME = "image-security.toolkit.dev";

/** The path the webhook serves admission reviews on. */
export const ADMIT_PATH = "/admit";

/** The resources the webhook checks, by API group. */
export const WEBHOOK_RULES: readonly { apiGroups: string[]; resources: string[] }[] = [
  { apiGroups: [""], resources: ["pods", "pods/ephemeralcontainers", "replicationcontrollers"] },
  { apiGroups: ["apps"], resources: ["deployments", "replicasets", "statefulsets", "daemonsets"] },
  { apiGroups: ["batch"], resources: ["jobs", "cronjobs"] },
  { apiGroups: ["apps.openshift.io"], resources: ["deploymentconfigs"] },
];

/** The namespaces never sent to the webhook: the controller's own and the listed ones. */
export function exemptNamespaceNames(options: InstallOptions): string[] {
  return [...new Set([options.namespace, ...options.exemptNamespaces])];
}

/** The `namespaceSelector`: not labelled exempt, not an exempt namespace by name. */
export function webhookNamespaceSelector(options: InstallOptions): Record<string, unknown> {
  const expressions: Record<string, unknown>[] = [];
  if (options.exemptLabel) {
    expressions.push({
      key: options.exemptLabel.key,
      operator: "NotIn",
      values: [options.exemptLabel.value],
    });
  }
  expressions.push({
    key: "kubernetes.io/metadata.name",
    operator: "NotIn",
    values: exemptNamespaceNames(options),
  });
  return { matchExpressions: expressions };
}

/**
 * The MutatingWebhookConfiguration. `caBundle` is the base64 of the PEM CA(s) that signed the
 * serving certificate; with cert-manager it is left out and injected by cert-manager's
 * CA injector from the annotation.
 */
export function webhookConfigurationManifest(
  options: InstallOptions,
  caBundle: string | undefined,
): KubeObject {
  const clientConfig: Record<string, unknown> = options.webhookUrl ? { url: options.webhookUrl } : {
    service: { namespace: options.namespace, name: WEBHOOK_NAME, path: ADMIT_PATH, port: 443 },
  };
  if (caBundle !== undefined) clientConfig.caBundle = caBundle;
  const annotations = options.tlsMode === "cert-manager" && !options.webhookUrl
    ? { "cert-manager.io/inject-ca-from": `${options.namespace}/${WEBHOOK_NAME}` }
    : undefined;
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: {
      name: WEBHOOK_CONFIGURATION_NAME,
      labels: commonLabels(),
      ...(annotations ? { annotations } : {}),
    },
    webhooks: [{
      name: WEBHOOK_ENTRY_NAME,
      admissionReviewVersions: ["v1"],
      sideEffects: "None",
      failurePolicy: "Fail",
      matchPolicy: "Equivalent",
      reinvocationPolicy: "IfNeeded",
      timeoutSeconds: options.timeoutSeconds,
      clientConfig,
      namespaceSelector: webhookNamespaceSelector(options),
      rules: WEBHOOK_RULES.map((rule) => ({
        apiGroups: rule.apiGroups,
        apiVersions: ["*"],
        resources: rule.resources,
        operations: ["CREATE", "UPDATE"],
        scope: "Namespaced",
      })),
    }],
  };
}
