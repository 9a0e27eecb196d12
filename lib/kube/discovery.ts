/**
 * API discovery: which group versions and resources the API server serves (`/api`, `/apis`,
 * `/apis/<group>/<version>`), read once per client and kept, and the newest served version of a
 * group from a preference list (Tekton: `v1`, else `v1beta1`, else `v1alpha1`). OpenShift is
 * told from plain Kubernetes by its groups.
 *
 * @module
 */
import { isStatus } from "./errors.ts";
import type { ResourceType } from "./resources.ts";

/** A group the server serves: `""` for the core group. */
export interface ServedGroup {
  /** `apps`, `tekton.dev`; `""` for the core group. */
  readonly name: string;
  /** Its served versions, the server's preferred one first. */
  readonly versions: readonly string[];
}

/** A resource of a group version, as discovery lists it. */
export interface ServedResource {
  /** `pipelineruns`, `deployments/scale`. */
  readonly name: string;
  /** `PipelineRun`. */
  readonly kind: string;
  /** Whether its objects live in a namespace. */
  readonly namespaced: boolean;
  /** `get`, `list`, `watch`, `create`, `patch`, … */
  readonly verbs: readonly string[];
}

/** The groups that make a cluster OpenShift. */
export const OPENSHIFT_GROUPS: readonly string[] = ["project.openshift.io", "route.openshift.io"];

/**
 * The first version of `preference` that is served, or undefined when none is:
 * `pickServedVersion(["v1beta1"], ["v1", "v1beta1", "v1alpha1"])` is `v1beta1`.
 */
export function pickServedVersion(
  served: readonly string[],
  preference: readonly string[],
): string | undefined {
  return preference.find((version) => served.includes(version));
}

interface GroupList {
  groups?: Array<{
    name?: string;
    versions?: Array<{ version?: string }>;
    preferredVersion?: { version?: string };
  }>;
}

interface ResourceList {
  resources?: Array<{ name?: string; kind?: string; namespaced?: boolean; verbs?: string[] }>;
}

/**
 * What discovery needs of a client: its JSON requests (the `KubeClient` of `client.ts`, which
 * keeps one `ApiDiscovery` of itself; named here so that the two modules do not import each other).
 */
export interface DiscoveryClient {
  /** Sends a request and returns the parsed JSON body; an error status throws. */
  request<T>(method: string, path: string, options?: { readonly action?: string }): Promise<T>;
}

/** What the API server of one client serves; each answer is read once and kept. */
export class ApiDiscovery {
  readonly #client: DiscoveryClient;
  #groups?: Promise<ReadonlyMap<string, ServedGroup>>;
  readonly #resources = new Map<string, Promise<readonly ServedResource[] | undefined>>();

  /** Discovery through `client`. */
  constructor(client: DiscoveryClient) {
    this.#client = client;
  }

  /** The served groups by name (`""` for the core group), from `/api` and `/apis`. */
  groups(): Promise<ReadonlyMap<string, ServedGroup>> {
    this.#groups ??= this.#readGroups();
    this.#groups.catch(() => (this.#groups = undefined)); // a failure is not kept
    return this.#groups;
  }

  async #readGroups(): Promise<ReadonlyMap<string, ServedGroup>> {
    const [core, list] = await Promise.all([
      this.#client.request<{ versions?: string[] }>("GET", "/api", {
        action: "discover the core API versions",
      }),
      this.#client.request<GroupList>("GET", "/apis", { action: "discover the API groups" }),
    ]);
    const groups = new Map<string, ServedGroup>();
    groups.set("", { name: "", versions: core?.versions ?? [] });
    for (const group of list?.groups ?? []) {
      if (!group.name) continue;
      const versions = (group.versions ?? []).flatMap((v) => (v.version ? [v.version] : []));
      const preferred = group.preferredVersion?.version;
      groups.set(group.name, {
        name: group.name,
        versions: preferred && versions.includes(preferred)
          ? [preferred, ...versions.filter((v) => v !== preferred)]
          : versions,
      });
    }
    return groups;
  }

  /** The served versions of a group, the preferred one first; empty when it is not served. */
  async servedVersions(group: string): Promise<readonly string[]> {
    return (await this.groups()).get(group)?.versions ?? [];
  }

  /** The first version of `preference` the server serves for `group`, or undefined. */
  async newestServedVersion(
    group: string,
    preference: readonly string[],
  ): Promise<string | undefined> {
    return pickServedVersion(await this.servedVersions(group), preference);
  }

  /** The resources of a group version, or undefined when it is not served. */
  resources(group: string, version: string): Promise<readonly ServedResource[] | undefined> {
    const id = group === "" ? version : `${group}/${version}`;
    let pending = this.#resources.get(id);
    if (pending === undefined) {
      pending = this.#readResources(id);
      this.#resources.set(id, pending);
      pending.catch(() => this.#resources.delete(id));
    }
    return pending;
  }

  /**
   * The resource type of objects of `apiVersion` and `kind` (`apps/v1`, `Deployment`), from the
   * served resources of that group version; undefined when the server does not serve it.
   */
  async resourceTypeOf(apiVersion: string, kind: string): Promise<ResourceType | undefined> {
    const [group, version] = apiVersion.includes("/")
      ? apiVersion.split("/", 2) as [string, string]
      : ["", apiVersion];
    const found = (await this.resources(group, version))?.find((r) =>
      r.kind === kind && !r.name.includes("/")
    );
    return found && { group, version, plural: found.name, kind, namespaced: found.namespaced };
  }

  async #readResources(id: string): Promise<readonly ServedResource[] | undefined> {
    const path = id.includes("/") ? `/apis/${id}` : `/api/${id}`;
    let list: ResourceList | undefined;
    try {
      list = await this.#client.request<ResourceList>("GET", path, {
        action: `discover the resources of ${id}`,
      });
    } catch (error) {
      if (isStatus(error, 404)) return undefined;
      throw error;
    }
    return (list?.resources ?? []).flatMap((r) =>
      r.name && r.kind
        ? [{ name: r.name, kind: r.kind, namespaced: r.namespaced ?? false, verbs: r.verbs ?? [] }]
        : []
    );
  }

  /** True when the server serves the group of `type` (the core group always is). */
  async servesGroup(type: ResourceType): Promise<boolean> {
    return type.group === "" || (await this.groups()).has(type.group);
  }

  /** True when the server serves the resource of `type` in its group version. */
  async servesResource(type: ResourceType): Promise<boolean> {
    const versions = await this.servedVersions(type.group);
    if (!versions.includes(type.version)) return false;
    const resources = await this.resources(type.group, type.version);
    return resources?.some((r) => r.name === type.plural) ?? false;
  }

  /** True on OpenShift: the server serves `route.openshift.io` or `project.openshift.io`. */
  async isOpenShift(): Promise<boolean> {
    const groups = await this.groups();
    return OPENSHIFT_GROUPS.some((group) => groups.has(group));
  }
}
