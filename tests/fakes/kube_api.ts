/**
 * An in-memory Kubernetes API server, for in-process tests of the commands (`ctx.kube`): a
 * {@linkcode KubeClient} made by `lib/kube` as the CLI makes it, whose transport answers from a
 * store of objects here instead of the network. Not a stand-in for a service that cannot run
 * (the real API server runs in the end-to-end tests); a fake that lets a command's flags, bad
 * input and per-item results be tested without the test environment. It answers as the API
 * server does, for what toolkit sends:
 *
 * - discovery: `GET /api`, `/apis` (preferred version first) and `/api/v1`, `/apis/<g>/<v>`
 *   (404 for a group version not served), from the resource types it is given;
 * - `GET` of an object (404 `NotFound`), `GET` of a collection (`labelSelector` with `=`, `==`,
 *   `!=`, `key`, `!key`; `fieldSelector` `metadata.name=`), in a namespace or across all of them;
 * - `GET …?watch=true`: a stream of `ADDED` for the objects there are (or of the events after
 *   `resourceVersion`), then every change, one JSON event a line, until the request is aborted;
 * - `POST` (create; `generateName`; 409 `AlreadyExists`; a namespaced object needs its Namespace,
 *   else 404), `PUT` (replace; 409 `Conflict` on a stale `resourceVersion`), `DELETE`, `PATCH`
 *   with `application/apply-patch+yaml` (server-side apply: 201 when it creates, else the merge of
 *   the applied fields into the live object, the `resourceVersion` unchanged when nothing did) or a
 *   JSON merge patch;
 * - CustomResourceDefinitions: established at once, their served versions served from then on;
 * - Secrets: `stringData` folded into `data`, `type` defaulting to `Opaque`; every object gets
 *   `uid`, `creationTimestamp` and a `resourceVersion` from one counter.
 * - With `openshift: true`: the OpenShift groups are served, and `POST projectrequests` makes the
 *   Namespace of the project, whose `projects` are read from the Namespaces.
 *
 * Simplifications, as no test here depends on them: apply merges maps and replaces lists (no
 * field ownership: a field toolkit stops applying stays); no admission, defaulting of other kinds,
 * finalizers or garbage collection (deleting a Namespace deletes what is in it at once).
 *
 * {@linkcode FakeKubeApi.refuse} makes chosen requests fail as a webhook or RBAC would, and
 * {@linkcode FakeKubeApi.on} answers what the fake does not know (subresources).
 *
 * @module
 */
import { encodeBase64 } from "../../lib/base64.ts";
import * as resources from "../../lib/kube/resources.ts";
import {
  KubeClient,
  type KubeObject,
  type KubeTransport,
  resolveConnectionContext,
  type ResourceType,
  type TransportRequest,
} from "../../lib/kube/mod.ts";
import type { KubeOptions } from "../../cli/command.ts";
import type { CliIO } from "../../cli/io.ts";

/** The groups only OpenShift serves. */
const OPENSHIFT_GROUPS = [
  "route.openshift.io",
  "project.openshift.io",
  "security.openshift.io",
  "build.openshift.io",
  "template.openshift.io",
];

/** Every resource type of `lib/kube/resources.ts`. */
const KNOWN_TYPES: readonly ResourceType[] = Object.values(resources).filter((
  value,
): value is ResourceType =>
  typeof value === "object" && value !== null && "plural" in value && "kind" in value
);

/** A request the fake received, as tests look at it. */
export interface FakeRequest {
  readonly method: string;
  /** The path without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly contentType: string | undefined;
  /** The parsed JSON body, if any. */
  readonly body: unknown;
  /** The resource type the path names, when it names one. */
  readonly type?: ResourceType;
  readonly namespace?: string;
  readonly name?: string;
  /** A subresource (`status`, `instantiate`, …). */
  readonly subresource?: string;
}

/** What {@linkcode FakeKubeApi.refuse} matches (every given field must match). */
export interface Refusal {
  readonly method?: string;
  readonly type?: ResourceType;
  readonly namespace?: string;
  readonly name?: string;
  /** The status to answer (default 403). */
  readonly status?: number;
  /** The message of the Status (default: a webhook's denial). */
  readonly message?: string;
}

/** How the fake is set up. */
export interface FakeKubeOptions {
  /** Resource types served besides those of `lib/kube/resources.ts` (Tekton, CRDs, …). */
  readonly types?: readonly ResourceType[];
  /** Serve the OpenShift groups (else they are not served, as on Kubernetes). */
  readonly openshift?: boolean;
  /** The server URL of the clients (default `https://kube.fake:6443`). */
  readonly server?: string;
}

interface WatchEvent {
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  readonly object: KubeObject;
  readonly rv: number;
  readonly key: string;
}

function status(code: number, reason: string, message: string): Response {
  return Response.json(
    { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code },
    { status: code },
  );
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Maps merge key by key, anything else is replaced; `null` removes (JSON merge patch). */
function merge(live: unknown, patch: unknown, nullRemoves: boolean): unknown {
  if (!isMap(live) || !isMap(patch)) return clone(patch);
  const out: Record<string, unknown> = { ...live };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null && nullRemoves) delete out[key];
    else out[key] = merge(live[key], value, nullRemoves);
  }
  return out;
}

function sameContent(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { resourceVersion: _rv, managedFields: _mf, ...metadata } = o.metadata;
    return JSON.stringify({ ...o, metadata });
  };
  return strip(a) === strip(b);
}

function matchesLabels(object: KubeObject, selector: string | null): boolean {
  if (!selector) return true;
  const labels = object.metadata.labels ?? {};
  return selector.split(",").map((s) => s.trim()).filter((s) => s !== "").every((term) => {
    const ne = term.match(/^([^!=]+)!=(.*)$/);
    if (ne) return labels[ne[1]!.trim()] !== ne[2]!.trim();
    const eq = term.match(/^([^!=]+)==?(.*)$/);
    if (eq) return labels[eq[1]!.trim()] === eq[2]!.trim();
    if (term.startsWith("!")) return !(term.slice(1).trim() in labels);
    return term in labels;
  });
}

function matchesFields(object: KubeObject, selector: string | null): boolean {
  if (!selector) return true;
  return selector.split(",").every((term) => {
    const [field, value] = term.split("=", 2);
    if (field === "metadata.name") return object.metadata.name === value;
    if (field === "metadata.namespace") return object.metadata.namespace === value;
    return true;
  });
}

function foldSecret(object: KubeObject): KubeObject {
  const { stringData, ...rest } = object;
  const data: Record<string, string> = isMap(object.data)
    ? { ...(object.data as Record<string, string>) }
    : {};
  if (isMap(stringData)) {
    for (const [k, v] of Object.entries(stringData)) data[k] = encodeBase64(String(v));
  }
  return { ...rest, type: object.type ?? "Opaque", data } as KubeObject;
}

/** An in-memory API server; see the module documentation. */
export class FakeKubeApi {
  /** Every request received, in order. */
  readonly requests: FakeRequest[] = [];
  /** The options of every `ctx.kube(...)` call, in order (`--kubeconfig`, `--context`, `--throttle`). */
  readonly connects: KubeOptions[] = [];
  /** The server URL of the clients. */
  readonly server: string;
  #types: readonly ResourceType[];
  readonly #objects = new Map<string, KubeObject>();
  readonly #events: WatchEvent[] = [];
  readonly #watchers = new Set<(event: WatchEvent) => void>();
  readonly #refusals: Refusal[] = [];
  readonly #handlers: ((request: FakeRequest) => Response | undefined)[] = [];
  readonly #openshift: boolean;
  #rv = 100;

  /** A fake serving the types of `lib/kube/resources.ts` (OpenShift's with `openshift`). */
  constructor(options: FakeKubeOptions = {}) {
    this.#openshift = options.openshift ?? false;
    this.server = options.server ?? "https://kube.fake:6443";
    const all = [...KNOWN_TYPES, ...(options.types ?? [])];
    this.#types = all.filter((t) => this.#openshift || !OPENSHIFT_GROUPS.includes(t.group));
  }

  /** Stores objects as a create would (server fields added); a namespace is not required. */
  seed(type: ResourceType, ...objects: KubeObject[]): void {
    for (const object of objects) this.#store(type, this.#fresh(type, clone(object)), "ADDED");
  }

  /** Stores objects by their `apiVersion` and `kind`, as {@linkcode seed} does. */
  seedObjects(...objects: KubeObject[]): void {
    for (const object of objects) {
      const type = this.#types.find((t) =>
        t.kind === object.kind &&
        (t.group ? `${t.group}/${t.version}` : t.version) === object.apiVersion
      );
      if (!type) throw new Error(`the fake serves no ${object.apiVersion} ${object.kind}`);
      this.seed(type, object);
    }
  }

  /** An object as the server has it, or undefined. */
  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    const found = this.#objects.get(this.#key(type, namespace, name));
    return found && clone(found);
  }

  /** The objects of a type (in a namespace, or all), sorted by namespace and name. */
  list(type: ResourceType, namespace?: string): KubeObject[] {
    const prefix = `${type.group}/${type.plural}/`;
    return [...this.#objects.entries()]
      .filter(([key, o]) =>
        key.startsWith(prefix) && (namespace === undefined || o.metadata.namespace === namespace)
      )
      .map(([, o]) => clone(o))
      .sort((a, b) =>
        `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(
          `${b.metadata.namespace}/${b.metadata.name}`,
        )
      );
  }

  /** Makes the requests that match fail with a Status (as a webhook or RBAC would). */
  refuse(refusal: Refusal): void {
    this.#refusals.push(refusal);
  }

  /** Answers requests the fake does not understand itself (undefined: not this one). */
  on(handler: (request: FakeRequest) => Response | undefined): void {
    this.#handlers.push(handler);
  }

  /** The writes received (`POST`, `PUT`, `PATCH`, `DELETE`), as `METHOD path`. */
  writes(): string[] {
    return this.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
  }

  /** A transport that answers from this fake. */
  transport(): KubeTransport {
    const open = (request: TransportRequest) => Promise.resolve(this.#handle(request));
    return {
      kind: "fetch",
      streams: true,
      open,
      send: async (request) => {
        const response = await open(request);
        return { status: response.status, text: await response.text() };
      },
      close() {},
    };
  }

  /**
   * The `ctx.kube` of a command context: it resolves `--kubeconfig`/`--context` (with the
   * environment of `io`) as the real one does, and sends every request here.
   */
  connector(io: CliIO): (options: KubeOptions) => Promise<KubeClient> {
    return async (options) => {
      this.connects.push(options);
      const context = await resolveConnectionContext({
        kubeconfig: options.kubeconfig || undefined,
        context: options.context || undefined,
        env: io.env,
        cwd: io.cwd,
      });
      return new KubeClient(
        { ...context, cluster: { ...context.cluster, server: this.server } },
        this.transport(),
      );
    };
  }

  #key(type: ResourceType, namespace: string | undefined, name: string): string {
    return `${type.group}/${type.plural}/${type.namespaced ? namespace ?? "" : ""}/${name}`;
  }

  #fresh(type: ResourceType, object: KubeObject): KubeObject {
    const base = type.kind === "Secret" ? foldSecret(object) : object;
    return {
      ...base,
      apiVersion: type.group ? `${type.group}/${type.version}` : type.version,
      kind: type.kind,
      metadata: {
        ...base.metadata,
        uid: crypto.randomUUID(),
        creationTimestamp: new Date(0).toISOString(),
      },
    };
  }

  #store(type: ResourceType, object: KubeObject, event: WatchEvent["type"]): KubeObject {
    if (type.kind === "CustomResourceDefinition" && event !== "DELETED") this.#establish(object);
    const rv = ++this.#rv;
    object.metadata.resourceVersion = String(rv);
    const key = this.#key(type, object.metadata.namespace, object.metadata.name);
    if (event === "DELETED") this.#objects.delete(key);
    else this.#objects.set(key, object);
    const e: WatchEvent = { type: event, object: clone(object), rv, key };
    this.#events.push(e);
    for (const watcher of this.#watchers) watcher(e);
    return clone(object);
  }

  /** A CRD is established at once, and its served versions are served from then on. */
  #establish(crd: KubeObject): void {
    const spec = (crd as {
      spec?: {
        group?: string;
        scope?: string;
        names?: { plural?: string; kind?: string };
        versions?: { name?: string; served?: boolean }[];
      };
    }).spec;
    const { group, names } = spec ?? {};
    if (!group || !names?.plural || !names.kind) return;
    (crd as { status?: unknown }).status = {
      conditions: [{ type: "Established", status: "True" }],
    };
    for (const version of spec?.versions ?? []) {
      if (!version.served || !version.name || this.#typeOf(group, version.name, names.plural)) {
        continue;
      }
      this.#types = [...this.#types, {
        group,
        version: version.name,
        plural: names.plural,
        kind: names.kind,
        namespaced: spec?.scope === "Namespaced",
      }];
    }
  }

  #typeOf(group: string, version: string, plural: string): ResourceType | undefined {
    return this.#types.find((t) =>
      t.group === group && t.version === version && t.plural === plural
    );
  }

  #parse(request: TransportRequest): FakeRequest {
    const url = new URL(request.url);
    const contentType = request.headers["content-type"] ?? request.headers["Content-Type"];
    let body: unknown;
    if (request.body !== undefined && request.body !== "") {
      try {
        body = JSON.parse(request.body);
      } catch {
        body = request.body;
      }
    }
    const base = {
      method: request.method,
      path: url.pathname,
      query: url.searchParams,
      contentType,
      body,
    };
    const segments = url.pathname.split("/").filter((s) => s !== "");
    let group: string;
    let version: string;
    let rest: string[];
    if (segments[0] === "api" && segments.length >= 2) {
      [group, version, rest] = ["", segments[1]!, segments.slice(2)];
    } else if (segments[0] === "apis" && segments.length >= 3) {
      [group, version, rest] = [segments[1]!, segments[2]!, segments.slice(3)];
    } else return base;
    if (rest[0] === "namespaces" && rest.length >= 3) {
      const type = this.#typeOf(group, version, rest[2]!);
      if (type?.namespaced) {
        return {
          ...base,
          type,
          namespace: rest[1]!,
          ...(rest[3] ? { name: decodeURIComponent(rest[3]) } : {}),
          ...(rest[4] ? { subresource: rest.slice(4).join("/") } : {}),
        };
      }
    }
    const type = rest[0] ? this.#typeOf(group, version, rest[0]) : undefined;
    if (!type) return base;
    return {
      ...base,
      type,
      ...(rest[1] ? { name: decodeURIComponent(rest[1]) } : {}),
      ...(rest[2] ? { subresource: rest.slice(2).join("/") } : {}),
    };
  }

  #handle(transportRequest: TransportRequest): Response {
    const request = this.#parse(transportRequest);
    this.requests.push(request);
    for (const refusal of this.#refusals) {
      if (
        (refusal.method === undefined || refusal.method === request.method) &&
        (refusal.type === undefined ||
          (refusal.type.group === request.type?.group &&
            refusal.type.plural === request.type.plural)) &&
        (refusal.namespace === undefined || refusal.namespace === request.namespace) &&
        (refusal.name === undefined || refusal.name === this.#nameOf(request))
      ) {
        const code = refusal.status ?? 403;
        return status(
          code,
          code === 403 ? "Forbidden" : "Invalid",
          refusal.message ?? `admission webhook "deny.fake" denied the request`,
        );
      }
    }
    for (const handler of this.#handlers) {
      const answer = handler(request);
      if (answer) return answer;
    }
    const discovery = this.#discovery(request);
    if (discovery) return discovery;
    const { type } = request;
    if (!type || request.subresource) {
      return status(404, "NotFound", `the server could not find the requested resource`);
    }
    if (this.#openshift && type.group === "project.openshift.io") return this.#project(request);
    switch (request.method) {
      case "GET":
        if (request.name === undefined) {
          const watch = request.query.get("watch");
          return watch === "true" || watch === "1"
            ? this.#watch(request, transportRequest.signal)
            : this.#list(request);
        }
        return this.#read(request);
      case "POST":
        return this.#create(request);
      case "PUT":
        return this.#replace(request);
      case "PATCH":
        return this.#patch(request);
      case "DELETE":
        return this.#delete(request);
      default:
        return status(405, "MethodNotAllowed", `${request.method} is not supported`);
    }
  }

  #nameOf(request: FakeRequest): string | undefined {
    return request.name ??
      (isMap(request.body) && isMap(request.body.metadata)
        ? request.body.metadata.name as string | undefined
        : undefined);
  }

  #discovery(request: FakeRequest): Response | undefined {
    if (request.method !== "GET") return undefined;
    const groups = new Map<string, string[]>();
    for (const t of this.#types) {
      const versions = groups.get(t.group) ?? [];
      if (!versions.includes(t.version)) versions.push(t.version);
      groups.set(t.group, versions);
    }
    if (request.path === "/api") return Response.json({ kind: "APIVersions", versions: ["v1"] });
    if (request.path === "/apis") {
      return Response.json({
        kind: "APIGroupList",
        apiVersion: "v1",
        groups: [...groups.entries()].filter(([name]) => name !== "").map(([name, versions]) => ({
          name,
          versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
          preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
        })),
      });
    }
    const match = request.path.match(/^\/(?:api\/([^/]+)|apis\/([^/]+)\/([^/]+))\/?$/);
    if (!match) return undefined;
    const group = match[2] ?? "";
    const version = match[1] ?? match[3]!;
    const served = this.#types.filter((t) => t.group === group && t.version === version);
    if (served.length === 0) {
      return status(404, "NotFound", `the server could not find the requested resource`);
    }
    return Response.json({
      kind: "APIResourceList",
      apiVersion: "v1",
      groupVersion: group ? `${group}/${version}` : version,
      resources: served.map((t) => ({
        name: t.plural,
        singularName: t.kind.toLowerCase(),
        namespaced: t.namespaced,
        kind: t.kind,
        verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
      })),
    });
  }

  #missingNamespace(type: ResourceType, namespace: string | undefined): Response | undefined {
    if (!type.namespaced || namespace === undefined) return undefined;
    if (this.#objects.has(this.#key(resources.NAMESPACES, undefined, namespace))) return undefined;
    return status(404, "NotFound", `namespaces "${namespace}" not found`);
  }

  #notFound(type: ResourceType, name: string): Response {
    const what = type.group ? `${type.plural}.${type.group}` : type.plural;
    return status(404, "NotFound", `${what} "${name}" not found`);
  }

  #read(request: FakeRequest): Response {
    const type = request.type!;
    const found = this.#objects.get(this.#key(type, request.namespace, request.name!));
    return found ? Response.json(found) : this.#notFound(type, request.name!);
  }

  #list(request: FakeRequest): Response {
    const type = request.type!;
    const items = this.list(type, type.namespaced ? request.namespace : undefined).filter((o) =>
      matchesLabels(o, request.query.get("labelSelector")) &&
      matchesFields(o, request.query.get("fieldSelector"))
    ).map(({ apiVersion: _a, kind: _k, ...item }) => item);
    return Response.json({
      kind: `${type.kind}List`,
      apiVersion: type.group ? `${type.group}/${type.version}` : type.version,
      metadata: { resourceVersion: String(this.#rv) },
      items,
    });
  }

  #watch(request: FakeRequest, signal: AbortSignal | undefined): Response {
    const type = request.type!;
    const prefix = `${type.group}/${type.plural}/${
      type.namespaced && request.namespace ? `${request.namespace}/` : ""
    }`;
    const selector = request.query.get("labelSelector");
    const wanted = (e: WatchEvent) => e.key.startsWith(prefix) && matchesLabels(e.object, selector);
    const since = Number(request.query.get("resourceVersion") ?? "");
    const encoder = new TextEncoder();
    let watcher: ((e: WatchEvent) => void) | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        const send = (e: WatchEvent) =>
          controller.enqueue(
            encoder.encode(`${JSON.stringify({ type: e.type, object: e.object })}\n`),
          );
        const initial = Number.isFinite(since) && since > 0
          ? this.#events.filter((e) => e.rv > since)
          : [...this.#objects.entries()].map(([key, object]) => ({
            type: "ADDED" as const,
            object,
            rv: 0,
            key,
          }));
        for (const e of initial) if (wanted(e)) send(e);
        watcher = (e) => {
          if (wanted(e)) send(e);
        };
        this.#watchers.add(watcher);
        signal?.addEventListener("abort", () => {
          if (watcher) this.#watchers.delete(watcher);
          try {
            controller.close();
          } catch {
            // already closed
          }
        });
      },
      cancel: () => {
        if (watcher) this.#watchers.delete(watcher);
      },
    });
    return new Response(stream, { headers: { "content-type": "application/json" } });
  }

  #create(request: FakeRequest): Response {
    const type = request.type!;
    if (!isMap(request.body) || !isMap(request.body.metadata)) {
      return status(400, "BadRequest", "the body is not an object with metadata");
    }
    const object = clone(request.body) as KubeObject;
    if (type.namespaced) object.metadata.namespace = request.namespace;
    else delete object.metadata.namespace;
    if (!object.metadata.name && typeof object.metadata.generateName === "string") {
      object.metadata.name = `${object.metadata.generateName}${
        crypto.randomUUID().replaceAll("-", "").slice(0, 5)
      }`;
    }
    const name = object.metadata.name;
    if (!name) return status(422, "Invalid", `${type.kind}: metadata.name: Required value`);
    const missing = this.#missingNamespace(type, request.namespace);
    if (missing) return missing;
    if (this.#objects.has(this.#key(type, request.namespace, name))) {
      const what = type.group ? `${type.plural}.${type.group}` : type.plural;
      return status(409, "AlreadyExists", `${what} "${name}" already exists`);
    }
    return Response.json(this.#store(type, this.#fresh(type, object), "ADDED"), { status: 201 });
  }

  #replace(request: FakeRequest): Response {
    const type = request.type!;
    const key = this.#key(type, request.namespace, request.name!);
    const live = this.#objects.get(key);
    if (!live) return this.#notFound(type, request.name!);
    const object = clone(request.body) as KubeObject;
    const given = object.metadata?.resourceVersion;
    if (given !== undefined && given !== live.metadata.resourceVersion) {
      return status(
        409,
        "Conflict",
        `Operation cannot be fulfilled on ${type.plural} "${request.name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    const base = type.kind === "Secret" ? foldSecret(object) : object;
    const next: KubeObject = {
      ...base,
      apiVersion: live.apiVersion,
      kind: live.kind,
      metadata: {
        ...base.metadata,
        namespace: live.metadata.namespace,
        uid: live.metadata.uid,
        creationTimestamp: live.metadata.creationTimestamp,
      },
    };
    if (!type.namespaced) delete next.metadata.namespace;
    if (sameContent(live, { ...next, metadata: { ...next.metadata } })) return Response.json(live);
    return Response.json(this.#store(type, next, "MODIFIED"));
  }

  #patch(request: FakeRequest): Response {
    const type = request.type!;
    const apply = request.contentType?.startsWith("application/apply-patch") ?? false;
    const key = this.#key(type, request.namespace, request.name!);
    const live = this.#objects.get(key);
    if (!isMap(request.body)) return status(400, "BadRequest", "the patch is not an object");
    if (!live) {
      if (!apply) return this.#notFound(type, request.name!);
      const missing = this.#missingNamespace(type, request.namespace);
      if (missing) return missing;
      const object = clone(request.body) as KubeObject;
      object.metadata = { ...object.metadata, name: request.name! };
      if (type.namespaced) object.metadata.namespace = request.namespace;
      object.metadata.managedFields = [{
        manager: request.query.get("fieldManager") ?? "",
        operation: "Apply",
      }];
      return Response.json(this.#store(type, this.#fresh(type, object), "ADDED"), {
        status: 201,
      });
    }
    const patch = type.kind === "Secret" && apply
      ? foldSecret(request.body as KubeObject)
      : request.body;
    const { resourceVersion: _rv, ...patchMetadata } =
      (isMap(patch) && isMap(patch.metadata) ? patch.metadata : {}) as Record<string, unknown>;
    const merged = merge(live, { ...patch, metadata: patchMetadata }, !apply) as KubeObject;
    merged.metadata = {
      ...merged.metadata,
      name: live.metadata.name,
      uid: live.metadata.uid,
      creationTimestamp: live.metadata.creationTimestamp,
      resourceVersion: live.metadata.resourceVersion,
    };
    if (live.metadata.namespace !== undefined) merged.metadata.namespace = live.metadata.namespace;
    merged.apiVersion = live.apiVersion;
    merged.kind = live.kind;
    if (apply) {
      const manager = request.query.get("fieldManager") ?? "";
      const managers = Array.isArray(live.metadata.managedFields)
        ? live.metadata.managedFields as { manager?: string; operation?: string }[]
        : [];
      merged.metadata.managedFields = managers.some((m) =>
          m.manager === manager && m.operation === "Apply"
        )
        ? managers
        : [...managers, { manager, operation: "Apply" }];
    }
    if (sameContent(live, merged)) return Response.json(live);
    return Response.json(this.#store(type, merged, "MODIFIED"));
  }

  #delete(request: FakeRequest): Response {
    const type = request.type!;
    const key = this.#key(type, request.namespace, request.name!);
    const live = this.#objects.get(key);
    if (!live) return this.#notFound(type, request.name!);
    this.#store(type, clone(live), "DELETED");
    if (type.kind === "Namespace") {
      for (const [k, o] of [...this.#objects.entries()]) {
        if (o.metadata.namespace === request.name) {
          const t = this.#types.find((t) => k.startsWith(`${t.group}/${t.plural}/`));
          if (t) this.#store(t, clone(o), "DELETED");
        }
      }
    }
    return Response.json({ kind: "Status", apiVersion: "v1", status: "Success", metadata: {} });
  }

  /** OpenShift projects: views of the Namespaces; a ProjectRequest makes one. */
  #project(request: FakeRequest): Response {
    const type = request.type!;
    const asProject = (ns: KubeObject): KubeObject => ({
      ...ns,
      apiVersion: "project.openshift.io/v1",
      kind: "Project",
    });
    if (type.plural === "projectrequests" && request.method === "POST") {
      const name = this.#nameOf(request);
      if (!name) return status(422, "Invalid", "ProjectRequest: metadata.name: Required value");
      if (this.#objects.has(this.#key(resources.NAMESPACES, undefined, name))) {
        return status(
          409,
          "AlreadyExists",
          `project.project.openshift.io "${name}" already exists`,
        );
      }
      const ns = this.#store(
        resources.NAMESPACES,
        this.#fresh(resources.NAMESPACES, { metadata: { name } }),
        "ADDED",
      );
      return Response.json(asProject(ns), { status: 201 });
    }
    if (type.plural === "projects" && request.method === "GET") {
      if (request.name === undefined) {
        return Response.json({
          kind: "ProjectList",
          apiVersion: "project.openshift.io/v1",
          metadata: {},
          items: this.list(resources.NAMESPACES).map(asProject),
        });
      }
      const ns = this.get(resources.NAMESPACES, undefined, request.name);
      return ns
        ? Response.json(asProject(ns))
        : status(404, "NotFound", `projects.project.openshift.io "${request.name}" not found`);
    }
    return status(405, "MethodNotAllowed", `${request.method} ${type.plural} is not supported`);
  }
}

/**
 * Writes a kubeconfig with one context per entry (the first is current) for clusters at
 * `server`, and returns its path.
 */
export async function writeKubeconfig(
  dir: string,
  contexts: readonly { readonly name: string; readonly namespace?: string }[] = [{
    name: "fake",
  }],
  server = "https://kube.fake:6443",
): Promise<string> {
  const path = `${dir}/kubeconfig`;
  await Deno.writeTextFile(
    path,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      "current-context": contexts[0]?.name ?? "",
      clusters: [{ name: "fake", cluster: { server } }],
      users: [{ name: "fake", user: { token: "fake-token" } }],
      contexts: contexts.map((c) => ({
        name: c.name,
        context: {
          cluster: "fake",
          user: "fake",
          ...(c.namespace ? { namespace: c.namespace } : {}),
        },
      })),
    }),
  );
  return path;
}
