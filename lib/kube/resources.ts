/**
 * The Kubernetes objects toolkit reads and writes, and the REST paths of their resources.
 *
 * @module
 */

/** The metadata of an object. Server-assigned fields may be present when read back. */
export interface ObjectMeta {
  /** The object's name. */
  name: string;
  /** The namespace, for namespaced objects. */
  namespace?: string;
  /** Labels. */
  labels?: Record<string, string>;
  /** Annotations. */
  annotations?: Record<string, string>;
  /** Set by the server; sent back on update for optimistic concurrency. */
  resourceVersion?: string;
  /** Everything else the server sends (uid, creationTimestamp, managedFields, …). */
  [key: string]: unknown;
}

/** Any Kubernetes object. */
export interface KubeObject {
  /** `v1`, `networking.k8s.io/v1`, … */
  apiVersion?: string;
  /** `ConfigMap`, `Secret`, … */
  kind?: string;
  /** The metadata. */
  metadata: ObjectMeta;
  /** `data`, `spec`, `type`, … */
  [key: string]: unknown;
}

/** A list of objects as the API server returns it. */
export interface KubeList<T extends KubeObject = KubeObject> {
  /** The objects (without `apiVersion`/`kind` for built-in types). */
  items: T[];
}

/** A kind of object and where the API serves it. */
export interface ResourceType {
  /** API group; "" for the core group. */
  readonly group: string;
  /** Version, e.g. `v1`. */
  readonly version: string;
  /** The resource name in URLs, e.g. `configmaps`. */
  readonly plural: string;
  /** The kind, e.g. `ConfigMap`. */
  readonly kind: string;
  /** Whether objects live in a namespace. */
  readonly namespaced: boolean;
}

function type(group: string, version: string, plural: string, kind: string, namespaced = true) {
  return { group, version, plural, kind, namespaced } as const satisfies ResourceType;
}

/** Namespaces. */
export const NAMESPACES: ResourceType = type("", "v1", "namespaces", "Namespace", false);
/** ConfigMaps. */
export const CONFIG_MAPS: ResourceType = type("", "v1", "configmaps", "ConfigMap");
/** Secrets. */
export const SECRETS: ResourceType = type("", "v1", "secrets", "Secret");
/** ServiceAccounts. */
export const SERVICE_ACCOUNTS: ResourceType = type("", "v1", "serviceaccounts", "ServiceAccount");
/** Services. */
export const SERVICES: ResourceType = type("", "v1", "services", "Service");
/** RBAC Roles. */
export const ROLES: ResourceType = type("rbac.authorization.k8s.io", "v1", "roles", "Role");
/** RBAC RoleBindings. */
export const ROLE_BINDINGS: ResourceType = type(
  "rbac.authorization.k8s.io",
  "v1",
  "rolebindings",
  "RoleBinding",
);
/** Ingresses (`networking.k8s.io/v1`). */
export const INGRESSES: ResourceType = type("networking.k8s.io", "v1", "ingresses", "Ingress");
/** OpenShift Routes. */
export const ROUTES: ResourceType = type("route.openshift.io", "v1", "routes", "Route");
/** OpenShift Projects. */
export const PROJECTS: ResourceType = type(
  "project.openshift.io",
  "v1",
  "projects",
  "Project",
  false,
);
/** OpenShift ProjectRequests (create only). */
export const PROJECT_REQUESTS: ResourceType = type(
  "project.openshift.io",
  "v1",
  "projectrequests",
  "ProjectRequest",
  false,
);
/** OpenShift SecurityContextConstraints. */
export const SECURITY_CONTEXT_CONSTRAINTS: ResourceType = type(
  "security.openshift.io",
  "v1",
  "securitycontextconstraints",
  "SecurityContextConstraints",
  false,
);

/** Events (`events.k8s.io/v1`). */
export const EVENTS: ResourceType = type("events.k8s.io", "v1", "events", "Event");
/** Deployments. */
export const DEPLOYMENTS: ResourceType = type("apps", "v1", "deployments", "Deployment");
/** Pods. */
export const PODS: ResourceType = type("", "v1", "pods", "Pod");
/** ReplicaSets. */
export const REPLICA_SETS: ResourceType = type("apps", "v1", "replicasets", "ReplicaSet");
/** StatefulSets. */
export const STATEFUL_SETS: ResourceType = type("apps", "v1", "statefulsets", "StatefulSet");
/** DaemonSets. */
export const DAEMON_SETS: ResourceType = type("apps", "v1", "daemonsets", "DaemonSet");
/** Jobs. */
export const JOBS: ResourceType = type("batch", "v1", "jobs", "Job");
/** CronJobs. */
export const CRON_JOBS: ResourceType = type("batch", "v1", "cronjobs", "CronJob");
/** PodDisruptionBudgets. */
export const POD_DISRUPTION_BUDGETS: ResourceType = type(
  "policy",
  "v1",
  "poddisruptionbudgets",
  "PodDisruptionBudget",
);
/** RBAC ClusterRoles. */
export const CLUSTER_ROLES: ResourceType = type(
  "rbac.authorization.k8s.io",
  "v1",
  "clusterroles",
  "ClusterRole",
  false,
);
/** RBAC ClusterRoleBindings. */
export const CLUSTER_ROLE_BINDINGS: ResourceType = type(
  "rbac.authorization.k8s.io",
  "v1",
  "clusterrolebindings",
  "ClusterRoleBinding",
  false,
);
/** CustomResourceDefinitions. */
export const CUSTOM_RESOURCE_DEFINITIONS: ResourceType = type(
  "apiextensions.k8s.io",
  "v1",
  "customresourcedefinitions",
  "CustomResourceDefinition",
  false,
);
/** MutatingWebhookConfigurations. */
export const MUTATING_WEBHOOK_CONFIGURATIONS: ResourceType = type(
  "admissionregistration.k8s.io",
  "v1",
  "mutatingwebhookconfigurations",
  "MutatingWebhookConfiguration",
  false,
);
/** cert-manager Issuers. */
export const ISSUERS: ResourceType = type("cert-manager.io", "v1", "issuers", "Issuer");
/** cert-manager Certificates. */
export const CERTIFICATES: ResourceType = type(
  "cert-manager.io",
  "v1",
  "certificates",
  "Certificate",
);

/** Leases (`coordination.k8s.io/v1`): leader election. */
export const LEASES: ResourceType = type("coordination.k8s.io", "v1", "leases", "Lease");
/** wg-policy PolicyReports (`wgpolicyk8s.io/v1alpha2`, the CRDs as Kyverno ships them). */
export const POLICY_REPORTS: ResourceType = type(
  "wgpolicyk8s.io",
  "v1alpha2",
  "policyreports",
  "PolicyReport",
);

/** wg-policy ClusterPolicyReports (`wgpolicyk8s.io/v1alpha2`): toolkit writes none. */
export const CLUSTER_POLICY_REPORTS: ResourceType = type(
  "wgpolicyk8s.io",
  "v1alpha2",
  "clusterpolicyreports",
  "ClusterPolicyReport",
  false,
);

/** ClusterImagePolicies of an API group (`toolkit.dev` or `portieris.cloud.ibm.com`). */
export function clusterImagePolicies(group: string): ResourceType {
  return type(group, "v1", "clusterimagepolicies", "ClusterImagePolicy", false);
}

/** ImagePolicies of an API group (`toolkit.dev` or `portieris.cloud.ibm.com`). */
export function imagePolicies(group: string): ResourceType {
  return type(group, "v1", "imagepolicies", "ImagePolicy");
}

/** `v1` or `group/version`. */
export function apiVersionOf(type: ResourceType): string {
  return type.group === "" ? type.version : `${type.group}/${type.version}`;
}

/**
 * The REST path of a resource: the collection when `name` is absent, else the object.
 * Namespaced types need `namespace` (except to list across namespaces).
 */
export function resourcePath(type: ResourceType, namespace?: string, name?: string): string {
  const root = type.group === "" ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const ns = type.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  const tail = name === undefined ? "" : `/${encodeURIComponent(name)}`;
  return `${root}${ns}/${type.plural}${tail}`;
}

/** `Kind "namespace/name"` or `Kind "name"`, for messages. */
export function describeObject(
  type: ResourceType,
  namespace: string | undefined,
  name: string,
): string {
  return `${type.kind} "${type.namespaced && namespace ? `${namespace}/` : ""}${name}"`;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why `name` is not a valid namespace name (RFC 1123 label), or undefined when it is. */
export function namespaceNameProblem(name: string): string | undefined {
  if (name.length === 0) return "it is empty";
  if (name.length > 63) return "it is longer than 63 characters";
  if (!DNS_LABEL.test(name)) {
    return "it must consist of lower case letters, digits and '-', and start and end with a letter or digit";
  }
  return undefined;
}

/** Why `name` is not a valid object name (RFC 1123 subdomain), or undefined when it is. */
export function objectNameProblem(name: string): string | undefined {
  if (name.length === 0) return "it is empty";
  if (name.length > 253) return "it is longer than 253 characters";
  if (!DNS_SUBDOMAIN.test(name)) {
    return "it must consist of lower case letters, digits, '-' and '.', and start and end with a letter or digit";
  }
  return undefined;
}
