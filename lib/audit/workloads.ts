/**
 * What an audit looks at: the running workloads of the cluster (or of some namespaces), each
 * reported once. Pods, and the Pod templates of Deployments, StatefulSets, DaemonSets, Jobs,
 * CronJobs and ReplicaSets are listed; an object whose controlling owner is listed too, and whose
 * images are all among its owner's, is left to its owner (a Deployment's ReplicaSets and their
 * Pods, a CronJob's Jobs, a StatefulSet's Pods): the owner is reported, once. An owned object
 * that runs other images (the Pods of an older ReplicaSet during a rollout) is reported itself,
 * and a ReplicaSet scaled to zero under a listed Deployment runs nothing and is left out.
 *
 * @module
 */
import {
  CRON_JOBS,
  DAEMON_SETS,
  DEPLOYMENTS,
  JOBS,
  type KubeClient,
  type KubeObject,
  PODS,
  REPLICA_SETS,
  type ResourceType,
  STATEFUL_SETS,
} from "../kube/mod.ts";
import { type AdmissionRequest, workloadImages } from "../admission/mod.ts";

/** The resource types an audit lists, owners before what they own. */
export const AUDITED_TYPES: readonly ResourceType[] = [
  CRON_JOBS,
  DEPLOYMENTS,
  STATEFUL_SETS,
  DAEMON_SETS,
  JOBS,
  REPLICA_SETS,
  PODS,
];

/** The part of a lib/kube client an audit uses. */
export type AuditKube = Pick<KubeClient, "list">;

/** One workload to evaluate. */
export interface AuditTarget {
  readonly type: ResourceType;
  readonly object: KubeObject;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The synthetic request of creating `object`, as the API server would send it to the webhook. */
export function createRequest(type: ResourceType, object: KubeObject): AdmissionRequest {
  const namespace = object.metadata.namespace ?? "";
  return {
    uid: `toolkit-audit-${uidOf(object) ?? `${namespace}/${object.metadata.name}`}`,
    kind: { group: type.group, version: type.version, kind: type.kind },
    resource: { group: type.group, version: type.version, resource: type.plural },
    subResource: "",
    name: object.metadata.name,
    namespace,
    operation: "CREATE",
    object,
    oldObject: undefined,
    dryRun: true,
  };
}

function imagesOf(target: AuditTarget): Set<string> {
  const images = workloadImages(createRequest(target.type, target.object));
  return new Set(images.sites?.map((s) => s.image) ?? []);
}

/** The object's `metadata.uid`, when the server gave one. */
export function uidOf(object: KubeObject): string | undefined {
  return typeof object.metadata.uid === "string" ? object.metadata.uid : undefined;
}

function controllerUid(object: KubeObject): string | undefined {
  const owners = (object.metadata as { ownerReferences?: unknown }).ownerReferences;
  if (!Array.isArray(owners)) return undefined;
  for (const owner of owners) {
    if (isObject(owner) && owner.controller === true && typeof owner.uid === "string") {
      return owner.uid;
    }
  }
  return undefined;
}

function scaledToZero(target: AuditTarget): boolean {
  if (target.type !== REPLICA_SETS) return false;
  const spec = (target.object as { spec?: unknown }).spec;
  return isObject(spec) && spec.replicas === 0;
}

/**
 * Lists the workloads of `namespaces` (all when undefined) and leaves out those their listed
 * owner stands for (see the module's comment). In listing order: owners first, by namespace
 * and name within a type.
 */
export async function listAuditTargets(
  kube: AuditKube,
  namespaces: readonly string[] | undefined,
  signal?: AbortSignal,
): Promise<AuditTarget[]> {
  const all: AuditTarget[] = [];
  for (const type of AUDITED_TYPES) {
    for (const namespace of namespaces ?? [undefined]) {
      signal?.throwIfAborted();
      const items = await kube.list(type, namespace);
      items.sort((a, b) =>
        (a.metadata.namespace ?? "").localeCompare(b.metadata.namespace ?? "") ||
        a.metadata.name.localeCompare(b.metadata.name)
      );
      for (const object of items) all.push({ type, object });
    }
  }
  const byUid = new Map<string, AuditTarget>();
  for (const t of all) {
    const uid = uidOf(t.object);
    if (uid !== undefined) byUid.set(uid, t);
  }
  const images = new Map<AuditTarget, Set<string>>();
  const imagesOnce = (t: AuditTarget) => {
    let set = images.get(t);
    if (set === undefined) images.set(t, set = imagesOf(t));
    return set;
  };
  return all.filter((target) => {
    const ownerUid = controllerUid(target.object);
    const owner = ownerUid === undefined ? undefined : byUid.get(ownerUid);
    if (owner === undefined) return true;
    if (scaledToZero(target)) return false;
    const ownerImages = imagesOnce(owner);
    for (const image of imagesOnce(target)) if (!ownerImages.has(image)) return true;
    return false;
  });
}
