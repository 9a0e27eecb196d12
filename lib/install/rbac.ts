/**
 * The webhook's identity and least-privilege permissions: a ServiceAccount and a ClusterRole
 * bound to it. It reads policies, key Secrets and pull Secrets in any namespace (workloads
 * name pull Secrets in their own namespace; ImagePolicies name key Secrets there), the
 * ConfigMaps that hold sigstore trust roots (`trustRootRef`), reads
 * ServiceAccounts (their `imagePullSecrets`) and records denials as Events. For the PolicyReport
 * controller (`lib/reports`) it lists and watches the workloads it audits, writes PolicyReports and,
 * through a Role in its own namespace only, holds its Lease. It writes nothing else: no CRDs, no webhook configurations, no policies.
 *
 * @module
 */
import { API_GROUP } from "../policy/mod.ts";
import { REPORTS_LEASE_NAME } from "../reports/mod.ts";
import type { KubeObject } from "../kube/mod.ts";
import { commonLabels, type InstallOptions, WEBHOOK_NAME } from "./options.ts";

/** The ServiceAccount the webhook's pods run as. */
export function serviceAccountManifest(options: InstallOptions): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: WEBHOOK_NAME, namespace: options.namespace, labels: commonLabels() },
  };
}

/** The ClusterRole: read policies, Secrets, ConfigMaps and ServiceAccounts; write Events. */
export function clusterRoleManifest(): KubeObject {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: WEBHOOK_NAME, labels: commonLabels() },
    rules: [
      {
        apiGroups: [API_GROUP],
        resources: ["clusterimagepolicies", "imagepolicies"],
        verbs: ["get", "list", "watch"],
      },
      { apiGroups: [""], resources: ["secrets"], verbs: ["get", "list", "watch"] },
      // Sigstore trust roots (trusted_root.json) named by sigstoreSigned requirements.
      { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "watch"] },
      { apiGroups: [""], resources: ["serviceaccounts"], verbs: ["get"] },
      // Namespace labels decide the exemptions the webhook applies itself.
      { apiGroups: [""], resources: ["namespaces"], verbs: ["get", "list", "watch"] },
      { apiGroups: ["", "events.k8s.io"], resources: ["events"], verbs: ["create", "patch"] },
      // The PolicyReport controller: the workloads it audits, its Lease, the reports it writes.
      { apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] },
      {
        apiGroups: ["apps"],
        resources: ["deployments", "replicasets", "statefulsets", "daemonsets"],
        verbs: ["get", "list", "watch"],
      },
      { apiGroups: ["batch"], resources: ["jobs", "cronjobs"], verbs: ["get", "list", "watch"] },
      {
        apiGroups: ["wgpolicyk8s.io"],
        resources: ["policyreports"],
        verbs: ["get", "list", "watch", "create", "patch", "update", "delete"],
      },
    ],
  };
}

/** Binds the ClusterRole to the ServiceAccount. */
export function clusterRoleBindingManifest(options: InstallOptions): KubeObject {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: WEBHOOK_NAME, labels: commonLabels() },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: WEBHOOK_NAME },
    subjects: [{ kind: "ServiceAccount", name: WEBHOOK_NAME, namespace: options.namespace }],
  };
}

/**
 * The Role of the PolicyReport controller's Lease, in the controller's namespace only: create a
 * Lease there (create cannot be limited to a name), read and update only its own.
 */
export function leaseRoleManifest(options: InstallOptions): KubeObject {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name: WEBHOOK_NAME, namespace: options.namespace, labels: commonLabels() },
    rules: [
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
      {
        apiGroups: ["coordination.k8s.io"],
        resources: ["leases"],
        resourceNames: [REPORTS_LEASE_NAME],
        verbs: ["get", "update"],
      },
    ],
  };
}

/** Binds the Lease Role to the ServiceAccount. */
export function leaseRoleBindingManifest(options: InstallOptions): KubeObject {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: WEBHOOK_NAME, namespace: options.namespace, labels: commonLabels() },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: WEBHOOK_NAME },
    subjects: [{ kind: "ServiceAccount", name: WEBHOOK_NAME, namespace: options.namespace }],
  };
}
