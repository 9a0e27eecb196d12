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
import {
  isStatus,
  KubeAnswerError,
  KubeApiError,
  type KubeStatus,
  NoClusterContextError,
} from "./errors.ts";
import { type KubeconfigOptions, loadContext, type ResolvedContext } from "./kubeconfig.ts";
import {
  apiVersionOf,
  describeObject,
  type KubeList,
  type KubeObject,
  resourcePath,
  type ResourceType,
} from "./resources.ts";
import {
  fetchTransport,
  fetchUnsupportedReason,
  type KubeTransport,
  type TransportRequest,
  unreachable,
} from "./transport.ts";
import { isNoLimit, RequestTimeoutError } from "../fetch.ts";
import { unauthorized } from "./auth_errors.ts";
import { ApiDiscovery } from "./discovery.ts";
import { inClusterContext } from "./in_cluster.ts";
import { USER_AGENT } from "../version.ts";
import { checkJsonShape, jsonLimitsForLength } from "../json_shape.ts";

/**
 * How deep an answer of the API server may nest: objects are a few dozen levels deep, but a
 * CustomResourceDefinition's schema nests two levels for each of its own.
 */
export const KUBE_JSON_MAX_DEPTH = 256;
import { parseJson } from "../errors.ts";

/** How to connect: the kubeconfig options plus transport and throttling choices. */
export interface ConnectOptions extends KubeconfigOptions {
  /**
   * `fetch`, `client-node`, or `auto` (the default: `fetch` unless the context needs what
   * only `@kubernetes/client-node` does). `$TOOLKIT_KUBE_CLIENT` in `env` overrides `auto`.
   */
  readonly transport?: "auto" | "fetch" | "client-node";
  /** At most this many requests per second (igc's `--throttle` is 2). */
  readonly requestsPerSecond?: number;
  /**
   * How long one request may take, in ms, as kubectl's `--request-timeout`: the whole answer
   * of a request, and the start (headers) of a watch, whose stream then runs as long as it
   * runs. A request past it fails with a `KubeUnreachableError` caused by a
   * {@linkcode RequestTimeoutError}. 0, absent or `NO_TIMEOUT_MS`: no limit, no timer (the
   * webhook bounds its own).
   */
  readonly requestTimeoutMs?: number;
  /** Told of each request before it is sent (`-v`: what the command contacts). */
  readonly onRequest?: (method: string, url: string) => void;
  /**
   * Use the Pod's ServiceAccount when `$KUBERNETES_SERVICE_HOST` is set and no `kubeconfig`
   * is given (the webhook); otherwise the kubeconfig files. @default false
   */
  readonly inCluster?: boolean;
  /** The directory of the ServiceAccount mount (with `inCluster`). */
  readonly serviceAccountDir?: string | undefined;
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
  /** Aborts the request. */
  readonly signal?: AbortSignal;
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
  /** What the server serves, read once per client. */
  readonly discovery: ApiDiscovery = new ApiDiscovery(this);
  #minIntervalMs: number;
  #next = 0;
  #timeoutMs: number;
  #onRequest: ((method: string, url: string) => void) | undefined;

  /** Wraps a transport; prefer {@linkcode connectCluster}. */
  constructor(
    context: ResolvedContext,
    transport: KubeTransport,
    options: number | Pick<ConnectOptions, "requestsPerSecond" | "requestTimeoutMs" | "onRequest"> =
      {},
  ) {
    const { requestsPerSecond, requestTimeoutMs, onRequest } = typeof options === "number"
      ? { requestsPerSecond: options, requestTimeoutMs: 0, onRequest: undefined }
      : options;
    this.context = context;
    this.transport = transport;
    this.#minIntervalMs = requestsPerSecond && requestsPerSecond > 0 ? 1000 / requestsPerSecond : 0;
    // No limit (0, or NO_TIMEOUT_MS from the CLI's --request-timeout=0): no timer at all.
    this.#timeoutMs = requestTimeoutMs === undefined || isNoLimit(requestTimeoutMs)
      ? 0
      : requestTimeoutMs;
    this.#onRequest = onRequest;
  }

  /**
   * Runs `send` with the request's deadline: its signal aborts when the time is up, and the
   * answer is given up at that moment even when the transport does not honour the signal.
   *
   * The same bound as `timedFetch(…, { bound: "request" })` (lib/fetch.ts) for a plain request,
   * but not over a fetch: the transport may be `@kubernetes/client-node`'s, `send` reads the
   * whole answer itself, and `open` (a watch) is bounded to its headers only, its stream then
   * running as long as it runs. So the deadline wraps the transport's call, not a fetch.
   */
  async #withDeadline<T>(
    request: TransportRequest,
    send: (request: TransportRequest) => Promise<T>,
  ): Promise<T> {
    this.#onRequest?.(request.method, request.url);
    if (this.#timeoutMs === 0) return await send(request);
    const controller = new AbortController();
    const signal = request.signal
      ? AbortSignal.any([request.signal, controller.signal])
      : controller.signal;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const timeout = new RequestTimeoutError(this.server, this.#timeoutMs);
        controller.abort(timeout);
        reject(unreachable(this.context, timeout));
      }, this.#timeoutMs);
    });
    try {
      return await Promise.race([send({ ...request, signal }), expired]);
    } catch (error) {
      if (controller.signal.aborted && !request.signal?.aborted) {
        throw unreachable(this.context, controller.signal.reason);
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The API server URL, without a trailing `/`. */
  get server(): string {
    return this.context.cluster.server.replace(/\/+$/, "");
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

  #target(path: string, query: KubeRequestOptions["query"]): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.set(k, v);
    return `${this.server}${path}${params.size > 0 ? `?${params}` : ""}`;
  }

  #prepare(
    method: string,
    path: string,
    options: KubeRequestOptions,
  ): TransportRequest {
    const headers: Record<string, string> = {
      Accept: "application/json",
      "User-Agent": USER_AGENT,
    };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers["Content-Type"] = options.contentType ?? "application/json";
      body = JSON.stringify(options.body);
    }
    return {
      method,
      url: this.#target(path, options.query),
      headers,
      ...(body !== undefined ? { body } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    };
  }

  /**
   * Sends a request and returns the parsed JSON body. An error status throws
   * {@linkcode KubeApiError}; 401 and network failures throw {@linkcode NoClusterContextError};
   * an answer that is not JSON throws {@linkcode KubeAnswerError}.
   */
  async request<T>(method: string, path: string, options: KubeRequestOptions = {}): Promise<T> {
    return (await this.#exchange<T>(method, path, options)).body;
  }

  async #exchange<T>(
    method: string,
    path: string,
    options: KubeRequestOptions,
  ): Promise<{ status: number; body: T }> {
    const request = this.#prepare(method, path, options);
    await this.#throttle();
    const response = await this.#withDeadline(request, (r) => this.transport.send(r));
    const body = this.#parse(method, path, options, response.status, response.text) as T;
    return { status: response.status, body };
  }

  /**
   * Sends a request and returns the answer with its body unread, for watches. Network failures
   * throw {@linkcode NoClusterContextError}; the status is left to the caller
   * ({@linkcode readAnswer} reads it as {@linkcode request} would).
   */
  async open(method: string, path: string, options: KubeRequestOptions = {}): Promise<Response> {
    const request = this.#prepare(method, path, options);
    await this.#throttle();
    return await this.#withDeadline(request, (r) => this.transport.open(r));
  }

  /** Reads an answer of {@linkcode open} as {@linkcode request} reads its own. */
  async readAnswer(
    response: Response,
    method: string,
    path: string,
    options: Pick<KubeRequestOptions, "action"> = {},
  ): Promise<unknown> {
    return this.#parse(method, path, options, response.status, await response.text());
  }

  #parse(
    method: string,
    path: string,
    options: Pick<KubeRequestOptions, "action">,
    status: number,
    text: string,
  ): unknown {
    const action = options.action ?? `${method} "${path}"`;
    if (status === 401) throw unauthorized(this.context);
    if (status >= 400) {
      let body: KubeStatus = { message: text.trim() || undefined };
      try {
        checkJsonShape(text, jsonLimitsForLength(text.length), "the error answer");
        const parsed = JSON.parse(text);
        if (typeof parsed === "object" && parsed !== null) body = parsed as KubeStatus;
      } catch {
        // not a Status: the text (bounded and scrubbed by KubeApiError) says what happened
      }
      throw new KubeApiError(action, { method, path }, status, body);
    }
    if (text === "") return undefined;
    try {
      // Counted before it is parsed (a value per 4 bytes at most, 256 deep: CRDs' schemas nest).
      checkJsonShape(text, jsonLimitsForLength(text.length, KUBE_JSON_MAX_DEPTH), "the answer");
      // A list of Secrets is secret: a body cut short must not be quoted by the parser's error.
      return parseJson(text);
    } catch (error) {
      throw new KubeAnswerError(`Cannot ${action}: ${(error as Error).message}`, { cause: error });
    }
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
  async create<T extends KubeObject = KubeObject>(
    type: ResourceType,
    object: T,
    options: Pick<KubeRequestOptions, "action"> = {},
  ): Promise<T> {
    const { namespace, name } = object.metadata;
    return withKind(
      type,
      await this.request<T>("POST", resourcePath(type, namespace), {
        body: { apiVersion: apiVersionOf(type), kind: type.kind, ...object },
        query: { fieldManager: FIELD_MANAGER },
        action: options.action ?? `create ${describeObject(type, namespace, name)}`,
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

  /**
   * Server-side applies an object as field manager {@linkcode FIELD_MANAGER}, taking over
   * fields others set (`force`): the server creates the object or merges it into the live one.
   * `created` is true when the server created it (201).
   */
  async apply<T extends KubeObject = KubeObject>(
    type: ResourceType,
    object: T,
  ): Promise<{ object: T; created: boolean }> {
    const { namespace, name } = object.metadata;
    const { resourceVersion: _rv, managedFields: _mf, ...metadata } = object.metadata;
    const { status, body } = await this.#exchange<T>(
      "PATCH",
      resourcePath(type, namespace, name),
      {
        body: { ...object, apiVersion: apiVersionOf(type), kind: type.kind, metadata },
        contentType: "application/apply-patch+yaml",
        query: { fieldManager: FIELD_MANAGER, force: "true" },
        action: `apply ${describeObject(type, namespace, name)}`,
      },
    );
    return { object: withKind(type, body), created: status === 201 };
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

  /** The API groups the server serves (from `/apis`), read once (see {@linkcode discovery}). */
  async apiGroups(): Promise<ReadonlySet<string>> {
    return new Set([...(await this.discovery.groups()).keys()].filter((name) => name !== ""));
  }

  /** True when the server serves the group of `type`. */
  serves(type: ResourceType): Promise<boolean> {
    return this.discovery.servesGroup(type);
  }

  /** True on OpenShift: `/apis` lists `route.openshift.io` or `project.openshift.io`. */
  isOpenShift(): Promise<boolean> {
    return this.discovery.isOpenShift();
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
 * The context to connect with: in-cluster when `options.inCluster` asks for it and the process
 * runs in a Pod (and no `kubeconfig` is given), else the kubeconfig's. Throws
 * {@linkcode NoClusterContextError} when there is no usable context.
 */
export async function resolveConnectionContext(options: ConnectOptions): Promise<ResolvedContext> {
  const inCluster = options.inCluster && !options.kubeconfig
    ? inClusterContext({ env: options.env, serviceAccountDir: options.serviceAccountDir })
    : undefined;
  return inCluster ?? await loadContext(options);
}

/** Makes a client for a resolved context (see {@linkcode connectCluster}). */
export async function connectContext(
  context: ResolvedContext,
  options: Pick<
    ConnectOptions,
    "transport" | "requestsPerSecond" | "env" | "requestTimeoutMs" | "onRequest"
  >,
): Promise<KubeClient> {
  const kind = chooseTransport(context, options.transport, options.env);
  const transport = kind === "fetch"
    ? await fetchTransport(context)
    : await (await import("./client_node_transport.ts")).clientNodeTransport(context);
  return new KubeClient(context, transport, {
    ...(options.requestsPerSecond !== undefined
      ? { requestsPerSecond: options.requestsPerSecond }
      : {}),
    ...(options.requestTimeoutMs !== undefined
      ? { requestTimeoutMs: options.requestTimeoutMs }
      : {}),
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
  });
}

/**
 * Loads the kubeconfig (or the in-cluster settings), resolves the context and makes a client
 * for it. Throws {@linkcode NoClusterContextError} when there is no usable context. Nothing is
 * sent yet: an API server that cannot be reached shows on the first request, with the same
 * error.
 */
export async function connectCluster(options: ConnectOptions): Promise<KubeClient> {
  return await connectContext(await resolveConnectionContext(options), options);
}
