/**
 * A small Kubernetes REST client for one kubeconfig context: typed errors, JSON bodies, API
 * discovery (to tell OpenShift from plain Kubernetes) and optional throttling.
 *
 * ```ts
 * const client = await connectCluster({ env: { KUBECONFIG: "/tmp/kubeconfig" } });
 * const cm = await client.read(CONFIG_MAPS, "tools", "dashboard-config");
 * client.close();
 * ```
 *
 * @module
 */
import { isStatus, KubeApiError, type KubeStatus, NoClusterContextError } from "./errors.ts";
import { type KubeconfigOptions, loadContext, type ResolvedContext } from "./kubeconfig.ts";
import {
  apiVersionOf,
  describeObject,
  type KubeList,
  type KubeObject,
  resourcePath,
  type ResourceType,
} from "./resources.ts";
import { unauthorized } from "./auth_errors.ts";
import { fetchTransport, fetchUnsupportedReason, type KubeTransport } from "./transport.ts";
import { USER_AGENT } from "../version.ts";

/** How to connect: the kubeconfig options plus transport and throttling choices. */
export interface ConnectOptions extends KubeconfigOptions {
  /**
   * `fetch`, `client-node`, or `auto` (the default: `fetch` unless the context needs what
   * only `@kubernetes/client-node` does). `$TOOLKIT_KUBE_CLIENT` in `env` overrides `auto`.
   */
  readonly transport?: "auto" | "fetch" | "client-node";
  /** At most this many requests per second (igc's `--throttle` is 2). */
  readonly requestsPerSecond?: number;
}

/** A request through {@linkcode KubeClient.request}. */
export interface KubeRequestOptions {
  /** Query parameters. */
  readonly query?: Readonly<Record<string, string | undefined>>;
  /** A JSON body. */
  readonly body?: unknown;
  /** The body's content type (default `application/json`). */
  readonly contentType?: string;
  /** What is being done, for the error message: `create ConfigMap "dev/x"`. */
  readonly action?: string;
}

/** Label and field selectors of a list. */
export interface ListOptions {
  /** `group=catalyst-tools`. */
  readonly labelSelector?: string;
  /** `type=kubernetes.io/dockerconfigjson`. */
  readonly fieldSelector?: string;
}

/** A client for the API server of one context. */
export class KubeClient {
  /** The context in use. */
  readonly context: ResolvedContext;
  /** The transport in use. */
  readonly transport: KubeTransport;
  #groups?: Promise<ReadonlySet<string>>;
  #minIntervalMs: number;
  #next = 0;

  /** Wraps a transport; prefer {@linkcode connectCluster}. */
  constructor(context: ResolvedContext, transport: KubeTransport, requestsPerSecond?: number) {
    this.context = context;
    this.transport = transport;
    this.#minIntervalMs = requestsPerSecond && requestsPerSecond > 0 ? 1000 / requestsPerSecond : 0;
  }

  /** The context's namespace, when it sets one. */
  get namespace(): string | undefined {
    return this.context.namespace;
  }

  async #throttle(): Promise<void> {
    if (this.#minIntervalMs === 0) return;
    const now = Date.now();
    const at = Math.max(now, this.#next);
    this.#next = at + this.#minIntervalMs;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  }

  /**
   * Sends a request and returns the parsed JSON body. An error status throws
   * {@linkcode KubeApiError}; 401 and network failures throw {@linkcode NoClusterContextError}.
   */
  async request<T>(method: string, path: string, options: KubeRequestOptions = {}): Promise<T> {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) query.set(k, v);
    const qs = query.size > 0 ? `?${query}` : "";
    const headers: Record<string, string> = {
      Accept: "application/json",
      "User-Agent": USER_AGENT,
    };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers["Content-Type"] = options.contentType ?? "application/json";
      body = JSON.stringify(options.body);
    }
    await this.#throttle();
    const response = await this.transport.send({
      method,
      url: `${this.context.cluster.server}${path}${qs}`,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    let parsed: unknown;
    try {
      parsed = response.text === "" ? undefined : JSON.parse(response.text);
    } catch {
      parsed = undefined;
    }
    if (response.status === 401) throw unauthorized(this.context);
    if (response.status >= 400) {
      const status = typeof parsed === "object" && parsed !== null
        ? parsed as KubeStatus
        : { message: response.text.trim() || undefined };
      throw new KubeApiError(
        options.action ?? `${method} "${path}"`,
        { method, path },
        response.status,
        status,
      );
    }
    return parsed as T;
  }

  /** Reads an object; undefined when it does not exist. */
  async read<T extends KubeObject = KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
  ): Promise<T | undefined> {
    try {
      return withKind(
        type,
        await this.request<T>("GET", resourcePath(type, namespace, name), {
          action: `read ${describeObject(type, namespace, name)}`,
        }),
      );
    } catch (error) {
      if (isStatus(error, 404)) return undefined;
      throw error;
    }
  }

  /** Lists objects (with `apiVersion` and `kind` filled in). */
  async list<T extends KubeObject = KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    options: ListOptions = {},
  ): Promise<T[]> {
    const where = type.namespaced && namespace ? ` in namespace "${namespace}"` : "";
    const list = await this.request<KubeList<T>>("GET", resourcePath(type, namespace), {
      query: { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector },
      action: `list ${type.kind}s${where}`,
    });
    return (list?.items ?? []).map((item) => withKind(type, item));
  }

  /** Creates an object. */
  async create<T extends KubeObject = KubeObject>(type: ResourceType, object: T): Promise<T> {
    const { namespace, name } = object.metadata;
    return withKind(
      type,
      await this.request<T>("POST", resourcePath(type, namespace), {
        body: { apiVersion: apiVersionOf(type), kind: type.kind, ...object },
        query: { fieldManager: FIELD_MANAGER },
        action: `create ${describeObject(type, namespace, name)}`,
      }),
    );
  }

  /** Replaces an object (its `metadata.resourceVersion` guards against lost updates). */
  async replace<T extends KubeObject = KubeObject>(type: ResourceType, object: T): Promise<T> {
    const { namespace, name } = object.metadata;
    return withKind(
      type,
      await this.request<T>("PUT", resourcePath(type, namespace, name), {
        body: { apiVersion: apiVersionOf(type), kind: type.kind, ...object },
        query: { fieldManager: FIELD_MANAGER },
        action: `update ${describeObject(type, namespace, name)}`,
      }),
    );
  }

  /** Deletes an object; false when it did not exist. */
  async delete(type: ResourceType, namespace: string | undefined, name: string): Promise<boolean> {
    try {
      await this.request("DELETE", resourcePath(type, namespace, name), {
        action: `delete ${describeObject(type, namespace, name)}`,
      });
      return true;
    } catch (error) {
      if (isStatus(error, 404)) return false;
      throw error;
    }
  }

  /** The API groups the server serves (from `/apis`), fetched once. */
  apiGroups(): Promise<ReadonlySet<string>> {
    this.#groups ??= this.request<{ groups?: Array<{ name?: string }> }>("GET", "/apis", {
      action: "discover the API groups",
    }).then((r) => new Set((r?.groups ?? []).flatMap((g) => (g.name ? [g.name] : []))));
    return this.#groups;
  }

  /** True when the server serves the group of `type`. */
  async serves(type: ResourceType): Promise<boolean> {
    return type.group === "" || (await this.apiGroups()).has(type.group);
  }

  /** True on OpenShift: `/apis` lists `route.openshift.io` or `project.openshift.io`. */
  async isOpenShift(): Promise<boolean> {
    const groups = await this.apiGroups();
    return groups.has("project.openshift.io") || groups.has("route.openshift.io");
  }

  /** Releases connections. */
  close(): void {
    this.transport.close();
  }

  /** Closes the client at the end of a `using` block. */
  [Symbol.dispose](): void {
    this.close();
  }
}

/** The field manager toolkit writes as. */
export const FIELD_MANAGER = "toolkit";

function withKind<T extends KubeObject>(type: ResourceType, object: T): T {
  if (object && typeof object === "object") {
    object.apiVersion ??= apiVersionOf(type);
    object.kind ??= type.kind;
  }
  return object;
}

/** Which transport to use for a context: `fetch` unless it needs `@kubernetes/client-node`. */
export function chooseTransport(
  context: ResolvedContext,
  requested: ConnectOptions["transport"],
  env: KubeconfigOptions["env"],
): "fetch" | "client-node" {
  const fromEnv = env.TOOLKIT_KUBE_CLIENT;
  const choice = requested && requested !== "auto"
    ? requested
    : fromEnv === "fetch" || fromEnv === "client-node"
    ? fromEnv
    : "auto";
  const reason = fetchUnsupportedReason(context);
  if (choice === "fetch" && reason) {
    throw new NoClusterContextError(
      `context "${context.name}" cannot be used with fetch: ${reason}`,
    );
  }
  if (choice === "auto") return reason ? "client-node" : "fetch";
  return choice;
}

/**
 * Loads the kubeconfig, resolves the context and makes a client for it. Throws
 * {@linkcode NoClusterContextError} when there is no usable context. Nothing is sent yet: an
 * API server that cannot be reached shows on the first request, with the same error.
 */
export async function connectCluster(options: ConnectOptions): Promise<KubeClient> {
  const context = await loadContext(options);
  const kind = chooseTransport(context, options.transport, options.env);
  const transport = kind === "fetch"
    ? await fetchTransport(context)
    : await (await import("./client_node_transport.ts")).clientNodeTransport(context);
  return new KubeClient(context, transport, options.requestsPerSecond);
}
