/**
 * Where the containers of a workload are: the pod spec of every kind the webhook intercepts,
 * with the JSON pointer of each image field (for the patch) and its field path (for messages).
 *
 * | Resource | Pod spec |
 * |---|---|
 * | Pod | `/spec` |
 * | Pod, subresource `ephemeralcontainers` | `/spec` (ephemeral containers only) |
 * | Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, ReplicationController, DeploymentConfig | `/spec/template/spec` |
 * | CronJob | `/spec/jobTemplate/spec/template/spec` |
 *
 * Nothing is skipped because of `replicas: 0` or an `ownerReference`: whatever a controller
 * creates from a template was checked when the template was, and a Pod is checked whoever
 * creates it.
 *
 * @module
 */
import type { AdmissionRequest } from "./review.ts";

/** The container lists of a pod spec, in the order they are reported. */
export const CONTAINER_LISTS = ["initContainers", "containers", "ephemeralContainers"] as const;

/** One of {@linkcode CONTAINER_LISTS}. */
export type ContainerList = typeof CONTAINER_LISTS[number];

/** One container image of a workload. */
export interface ContainerImage {
  /** The container's name. */
  readonly container: string;
  /** The list it is in. */
  readonly list: ContainerList;
  /** Its index in that list. */
  readonly index: number;
  /** The image as written. */
  readonly image: string;
  /** JSON pointer of the image field: `/spec/template/spec/containers/0/image`. */
  readonly pointer: string;
  /** Field path for messages: `spec.template.spec.containers[0]`. */
  readonly field: string;
}

/** The images of a workload and what is needed to pull them. */
export interface WorkloadImages {
  /** The workload kind, for messages and Events (`Deployment`). */
  readonly kind: string;
  /** JSON pointer of the pod spec. */
  readonly podSpecPointer: string;
  /** Every container with an image, in order: init, regular, ephemeral. */
  readonly containers: readonly ContainerImage[];
  /** Names of the pod spec's `imagePullSecrets`. */
  readonly imagePullSecrets: readonly string[];
  /** The pod spec's service account (`default` when it names none). */
  readonly serviceAccountName: string;
}

/** A request that carries no images to check, and why. */
export interface NoImages {
  readonly containers?: undefined;
  /** `subresource`: a subresource other than ephemeral containers; `unsupported`: a resource the webhook does not know. */
  readonly skip: "subresource" | "unsupported";
  /** A human explanation. */
  readonly reason: string;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

interface KindInfo {
  readonly kind: string;
  readonly path: readonly string[];
}

const TEMPLATE = ["spec", "template", "spec"];

/** Supported resources by `group/resource`. */
const RESOURCES: ReadonlyMap<string, KindInfo> = new Map<string, KindInfo>([
  ["/pods", { kind: "Pod", path: ["spec"] }],
  ["/replicationcontrollers", { kind: "ReplicationController", path: TEMPLATE }],
  ["apps/deployments", { kind: "Deployment", path: TEMPLATE }],
  ["extensions/deployments", { kind: "Deployment", path: TEMPLATE }],
  ["apps/replicasets", { kind: "ReplicaSet", path: TEMPLATE }],
  ["extensions/replicasets", { kind: "ReplicaSet", path: TEMPLATE }],
  ["apps/statefulsets", { kind: "StatefulSet", path: TEMPLATE }],
  ["apps/daemonsets", { kind: "DaemonSet", path: TEMPLATE }],
  ["extensions/daemonsets", { kind: "DaemonSet", path: TEMPLATE }],
  ["batch/jobs", { kind: "Job", path: TEMPLATE }],
  ["batch/cronjobs", {
    kind: "CronJob",
    path: ["spec", "jobTemplate", "spec", "template", "spec"],
  }],
  ["apps.openshift.io/deploymentconfigs", { kind: "DeploymentConfig", path: TEMPLATE }],
  // OpenShift 3's legacy API served DeploymentConfigs in the core group.
  ["/deploymentconfigs", { kind: "DeploymentConfig", path: TEMPLATE }],
]);

/** The `group/resource` keys the webhook supports (for documentation and rules). */
export function supportedResources(): string[] {
  return [...RESOURCES.keys()];
}

/** Reads the containers of a pod spec found at `path` (segments) in `object`. */
export function podSpecImages(
  object: unknown,
  path: readonly string[],
  kind: string,
  lists: readonly ContainerList[] = CONTAINER_LISTS,
): WorkloadImages {
  let spec: unknown = object;
  for (const segment of path) spec = isObject(spec) ? spec[segment] : undefined;
  const pointer = path.length === 0 ? "" : `/${path.join("/")}`;
  const field = path.join(".");
  const containers: ContainerImage[] = [];
  const pullSecrets: string[] = [];
  let serviceAccountName = "default";
  if (isObject(spec)) {
    for (const list of lists) {
      const items = spec[list];
      if (!Array.isArray(items)) continue;
      items.forEach((item: unknown, index: number) => {
        if (!isObject(item)) return;
        const image = typeof item.image === "string" ? item.image : "";
        // A blank image cannot run (OpenShift leaves it blank until an image trigger fills it).
        if (image.trim() === "") return;
        containers.push({
          container: typeof item.name === "string" ? item.name : "",
          list,
          index,
          image,
          pointer: `${pointer}/${list}/${index}/image`,
          field: `${field ? `${field}.` : ""}${list}[${index}]`,
        });
      });
    }
    if (Array.isArray(spec.imagePullSecrets)) {
      for (const ref of spec.imagePullSecrets) {
        if (isObject(ref) && typeof ref.name === "string" && ref.name !== "") {
          if (!pullSecrets.includes(ref.name)) pullSecrets.push(ref.name);
        }
      }
    }
    const sa = typeof spec.serviceAccountName === "string" && spec.serviceAccountName !== ""
      ? spec.serviceAccountName
      : typeof spec.serviceAccount === "string" && spec.serviceAccount !== ""
      ? spec.serviceAccount
      : "default";
    serviceAccountName = sa;
  }
  return {
    kind,
    podSpecPointer: pointer,
    containers,
    imagePullSecrets: pullSecrets,
    serviceAccountName,
  };
}

/**
 * The images of the object under review, or why there are none to check: a subresource that
 * carries no images (`status`, `scale`, …) or a resource the webhook does not support.
 */
export function workloadImages(request: AdmissionRequest): WorkloadImages | NoImages {
  const { group, resource, version } = request.resource;
  const info = RESOURCES.get(`${group}/${resource}`);
  if (info === undefined) {
    return {
      skip: "unsupported",
      reason: `The resource "${group}/${version}/${resource}" is not supported`,
    };
  }
  if (request.subResource !== "") {
    if (info.kind === "Pod" && request.subResource === "ephemeralcontainers") {
      const object = request.object;
      // Kubernetes 1.22 sent an EphemeralContainers object with a top-level list.
      if (isObject(object) && object.kind === "EphemeralContainers") {
        return podSpecImages(object, [], "Pod", ["ephemeralContainers"]);
      }
      return podSpecImages(object, info.path, "Pod", ["ephemeralContainers"]);
    }
    return {
      skip: "subresource",
      reason: `the subresource "${resource}/${request.subResource}" carries no images`,
    };
  }
  return podSpecImages(request.object, info.path, info.kind);
}

/** The image strings of an object's pod spec, in container order (for UPDATE comparisons). */
export function imageList(images: WorkloadImages): string[] {
  return images.containers.map((c) => `${c.pointer}=${c.image}`);
}
