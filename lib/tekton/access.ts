/**
 * The `pipeline` ServiceAccount and what the EventListener needs to run as it. OpenShift
 * Pipelines makes the account in every namespace and grants it; plain Kubernetes has neither, and
 * igc assumed both. Where the account is missing, toolkit creates it (labelled as its own) with a
 * Role in the namespace (read the Triggers objects and ConfigMaps, create PipelineRuns and
 * TaskRuns, impersonate ServiceAccounts, record Events) and a binding to one ClusterRole (read
 * ClusterTriggerBindings, ClusterInterceptors and Interceptors), as Tekton Triggers documents for
 * an EventListener's account. An account toolkit did not make is left as its owner made it.
 *
 * @module
 */
import {
  applyObject,
  type ApplyResult,
  CLUSTER_ROLE_BINDINGS,
  CLUSTER_ROLES,
  type KubeClient,
  type KubeObject,
  type ResourceType,
  ROLE_BINDINGS,
  ROLES,
  SERVICE_ACCOUNTS,
} from "../kube/mod.ts";
import { PIPELINE_SERVICE_ACCOUNT } from "./triggers.ts";

/** The name of toolkit's Role, RoleBinding and ClusterRole for the EventListener. */
export const LISTENER_ROLE = "toolkit-tekton-eventlistener";
/** The label that marks what toolkit made. */
export const MANAGED_BY = { "app.kubernetes.io/managed-by": "toolkit" } as const;

const READ = ["get", "list", "watch"];

/** The namespaced rules of the EventListener's account. */
export const LISTENER_RULES = [
  {
    apiGroups: ["triggers.tekton.dev"],
    resources: [
      "eventlisteners",
      "triggerbindings",
      "triggertemplates",
      "triggers",
      "interceptors",
    ],
    verbs: READ,
  },
  { apiGroups: [""], resources: ["configmaps"], verbs: READ },
  { apiGroups: ["tekton.dev"], resources: ["pipelineruns", "taskruns"], verbs: ["create"] },
  { apiGroups: [""], resources: ["serviceaccounts"], verbs: ["impersonate"] },
  { apiGroups: ["", "events.k8s.io"], resources: ["events"], verbs: ["create", "patch"] },
] as const;

/** The cluster-wide rules of the EventListener's account. */
export const LISTENER_CLUSTER_RULES = [
  {
    apiGroups: ["triggers.tekton.dev"],
    resources: ["clustertriggerbindings", "clusterinterceptors", "interceptors"],
    verbs: READ,
  },
] as const;

/** The objects that give the EventListener of `namespace` what it needs. */
export function listenerAccessObjects(namespace: string): [ResourceType, KubeObject][] {
  const subject = { kind: "ServiceAccount", name: PIPELINE_SERVICE_ACCOUNT, namespace };
  const rbac = "rbac.authorization.k8s.io";
  return [
    [SERVICE_ACCOUNTS, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: PIPELINE_SERVICE_ACCOUNT, namespace, labels: { ...MANAGED_BY } },
    }],
    [ROLES, {
      apiVersion: `${rbac}/v1`,
      kind: "Role",
      metadata: { name: LISTENER_ROLE, namespace, labels: { ...MANAGED_BY } },
      rules: LISTENER_RULES,
    }],
    [ROLE_BINDINGS, {
      apiVersion: `${rbac}/v1`,
      kind: "RoleBinding",
      metadata: { name: LISTENER_ROLE, namespace, labels: { ...MANAGED_BY } },
      roleRef: { apiGroup: rbac, kind: "Role", name: LISTENER_ROLE },
      subjects: [subject],
    }],
    [CLUSTER_ROLES, {
      apiVersion: `${rbac}/v1`,
      kind: "ClusterRole",
      metadata: { name: LISTENER_ROLE, labels: { ...MANAGED_BY } },
      rules: LISTENER_CLUSTER_RULES,
    }],
    [CLUSTER_ROLE_BINDINGS, {
      apiVersion: `${rbac}/v1`,
      kind: "ClusterRoleBinding",
      // One per namespace: the name says whose it is.
      metadata: { name: `${LISTENER_ROLE}-${namespace}`, labels: { ...MANAGED_BY } },
      roleRef: { apiGroup: rbac, kind: "ClusterRole", name: LISTENER_ROLE },
      subjects: [subject],
    }],
  ];
}

/**
 * Whether toolkit keeps the EventListener's account of `namespace`: it is missing (toolkit will
 * make it), or toolkit made it.
 */
export async function ownsListenerAccess(client: KubeClient, namespace: string): Promise<boolean> {
  const account = await client.read(SERVICE_ACCOUNTS, namespace, PIPELINE_SERVICE_ACCOUNT);
  return !account || account.metadata.labels?.["app.kubernetes.io/managed-by"] === "toolkit";
}

/**
 * Makes sure the EventListener of `namespace` can run as `pipeline`: creates the account and its
 * grants when the account is missing, keeps toolkit's own up to date, and leaves an account made
 * by someone else alone (`undefined` then).
 */
export async function ensureListenerAccess(
  client: KubeClient,
  namespace: string,
): Promise<ApplyResult[] | undefined> {
  if (!await ownsListenerAccess(client, namespace)) return undefined;
  const results: ApplyResult[] = [];
  for (const [type, object] of listenerAccessObjects(namespace)) {
    results.push(await applyObject(client, type, object));
  }
  return results;
}
