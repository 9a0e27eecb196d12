/**
 * Where the images of a workload are: the pod spec of every kind the webhook intercepts, and in
 * it every image site, a place that names an image the Pod would run or mount, with the JSON
 * pointer of its image field (for the patch) and its field path (for messages).
 *
 * | Resource | Pod spec |
 * |---|---|
 * | Pod | `/spec` |
 * | Pod, subresource `ephemeralcontainers` | `/spec` (ephemeral containers only) |
 * | Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, ReplicationController, DeploymentConfig | `/spec/template/spec` |
 * | CronJob | `/spec/jobTemplate/spec/template/spec` |
 *
 * | Image site | Image field | Named in messages as |
 * |---|---|---|
 * | `initContainers[i]`, `containers[i]`, `ephemeralContainers[i]` | `image` | `container "NAME" at spec.containers[0]` |
 * | `volumes[i]` with an `image` source (image volumes, Kubernetes 1.31+) | `image.reference` | `image volume "NAME" at spec.volumes[0].image.reference` |
 *
 * Nothing is skipped because of `replicas: 0` or an `ownerReference`: whatever a controller
 * creates from a template was checked when the template was, and a Pod is checked whoever
 * creates it.
 *
 * @module
 */
import type { AdmissionRequest } from "./review.ts";

/** The lists of a pod spec that name images, in the order their sites are reported. */
export const IMAGE_LISTS = [
  "initContainers",
  "containers",
  "ephemeralContainers",
  "volumes",
] as const;

/** One of {@linkcode IMAGE_LISTS}. */
export type ImageList = typeof IMAGE_LISTS[number];

/** What names the image at a site, as messages say it. */
export type ImageSiteType = "container" | "image volume";

/** One place in a workload's pod spec that names an image: a container or an image volume. */
export interface ImageSite {
  /** `container` (of any container list) or `image volume` (`volumes[].image`). */
  readonly type: ImageSiteType;
  /** The container's or the volume's name. */
  readonly name: string;
  /** The list it is in. */
  readonly list: ImageList;
  /** Its index in that list. */
  readonly index: number;
  /** The image as written. */
  readonly image: string;
  /**
   * JSON pointer of the image field: `/spec/template/spec/containers/0/image`,
   * `/spec/volumes/0/image/reference`.
   */
  readonly pointer: string;
  /**
   * Field path for messages: `spec.template.spec.containers[0]` (the container),
   * `spec.volumes[0].image.reference` (the volume's image field).
   */
  readonly field: string;
  /**
   * Whether an admitted image may be pinned here. False for the image volumes of a Pod on
   * UPDATE: the API server refuses any change to a Pod's volumes, so a patch there would make
   * the whole update fail.
   */
  readonly pinnable: boolean;
}

/** The images of a workload and what is needed to pull them. */
export interface WorkloadImages {
  /** The workload kind, for messages and Events (`Deployment`). */
  readonly kind: string;
  /** JSON pointer of the pod spec. */
  readonly podSpecPointer: string;
  /** Every site that names an image, in order: init, regular, ephemeral containers, volumes. */
  readonly sites: readonly ImageSite[];
  /** Names of the pod spec's `imagePullSecrets`. */
  readonly imagePullSecrets: readonly string[];
  /** The pod spec's service account (`default` when it names none). */
  readonly serviceAccountName: string;
}

/** A request that carries no images to check, and why. */
export interface NoImages {
  readonly sites?: undefined;
  /** `subresource`: a subresource other than ephemeral containers; `unsupported`: a resource the webhook does not know. */
  readonly skip: "subresource" | "unsupported";
  /** A human explanation. */
  readonly reason: string;
}

/** Which sites of a pod spec {@linkcode podSpecImages} reads, and whether they may be pinned. */
export interface PodSpecImagesOptions {
  /** The lists read. @default IMAGE_LISTS */
  readonly lists?: readonly ImageList[];
  /** Whether image volumes may be pinned (not in a Pod being updated). @default true */
  readonly pinVolumes?: boolean;
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

/** The image an entry of `list` names, and where its image field is below the entry. */
function siteImage(list: ImageList, item: Obj): { image: string; at: readonly string[] } {
  if (list === "volumes") {
    const source = item.image;
    const reference = isObject(source) && typeof source.reference === "string"
      ? source.reference
      : "";
    return { image: reference, at: ["image", "reference"] };
  }
  return { image: typeof item.image === "string" ? item.image : "", at: ["image"] };
}

/** Reads the image sites of a pod spec found at `path` (segments) in `object`. */
export function podSpecImages(
  object: unknown,
  path: readonly string[],
  kind: string,
  options: PodSpecImagesOptions = {},
): WorkloadImages {
  let spec: unknown = object;
  for (const segment of path) spec = isObject(spec) ? spec[segment] : undefined;
  const pointer = path.length === 0 ? "" : `/${path.join("/")}`;
  const field = path.length === 0 ? "" : `${path.join(".")}.`;
  const sites: ImageSite[] = [];
  const pullSecrets: string[] = [];
  let serviceAccountName = "default";
  if (isObject(spec)) {
    for (const list of options.lists ?? IMAGE_LISTS) {
      const items = spec[list];
      if (!Array.isArray(items)) continue;
      const volumes = list === "volumes";
      items.forEach((item: unknown, index: number) => {
        if (!isObject(item)) return;
        const { image, at } = siteImage(list, item);
        // A blank image cannot run (OpenShift leaves it blank until an image trigger fills it;
        // a template may leave an image volume's reference to be filled in later).
        if (image.trim() === "") return;
        sites.push({
          type: volumes ? "image volume" : "container",
          name: typeof item.name === "string" ? item.name : "",
          list,
          index,
          image,
          pointer: `${pointer}/${list}/${index}/${at.join("/")}`,
          field: `${field}${list}[${index}]${volumes ? `.${at.join(".")}` : ""}`,
          pinnable: !volumes || options.pinVolumes !== false,
        });
      });
    }
    if (Array.isArray(spec.imagePullSecrets)) {
      // Without repeats, in linear time: a request may name a great many.
      const seen = new Set<string>();
      for (const ref of spec.imagePullSecrets) {
        if (isObject(ref) && typeof ref.name === "string" && ref.name !== "") {
          if (!seen.has(ref.name)) pullSecrets.push(ref.name);
          seen.add(ref.name);
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
    sites,
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
      // The subresource changes ephemeral containers only (an ephemeral container may mount
      // the Pod's volumes, image volumes included, but those were checked with the Pod).
      const lists = ["ephemeralContainers"] as const;
      // Kubernetes 1.22 sent an EphemeralContainers object with a top-level list.
      if (isObject(object) && object.kind === "EphemeralContainers") {
        return podSpecImages(object, [], "Pod", { lists });
      }
      return podSpecImages(object, info.path, "Pod", { lists });
    }
    return {
      skip: "subresource",
      reason: `the subresource "${resource}/${request.subResource}" carries no images`,
    };
  }
  // A Pod's volumes cannot change after it is created: pinning one on UPDATE would fail it.
  const pinVolumes = !(info.kind === "Pod" && request.operation === "UPDATE");
  return podSpecImages(request.object, info.path, info.kind, { pinVolumes });
}

/** The image strings of an object's pod spec, in site order (for UPDATE comparisons). */
export function imageList(images: WorkloadImages): string[] {
  return images.sites.map((site) => `${site.pointer}=${site.image}`);
}
