/**
 * The registry client shared by the CLI and the admission webhook: manifests by tag or digest
 * (HEAD and GET), digest resolution, the `/v2/` ping, and authenticated requests for API
 * extensions.
 *
 * ```ts
 * import { parseReference } from "../image/mod.ts";
 * import { createRegistryClient } from "./mod.ts";
 *
 * using client = createRegistryClient({ insecureRegistries: ["127.0.0.1:5000"] });
 * const digest = await client.resolveDigest(parseReference("127.0.0.1:5000/demo/app:1"));
 * ```
 *
 * - Every manifest request sends the full `Accept` list (OCI index and manifest, Docker manifest
 *   list and schema 2), so the registry never answers 404 for OCI content or down-converts to
 *   schema 1; a schema 1 answer is refused.
 * - A GET's bytes are checked against the reference's digest (when it has one) and against the
 *   `Docker-Content-Digest` header (when sent). A HEAD's header is checked against the
 *   reference's digest.
 * - Registry hosts are used in their canonical spelling (`canonicalDomain` of lib/image): the
 *   ping cache, the per-host authentication state and the insecure list see `REG:0443` as `reg`.
 * - `docker.io` is served at `registry-1.docker.io`.
 * - An insecure registry is reached over plain `http://` (Deno's `fetch` cannot skip TLS
 *   verification, so "insecure" means plain HTTP, like skopeo's `--tls-verify=false` for a
 *   registry without TLS). Custom CA certificates are the way to reach a TLS registry with a
 *   private CA.
 *
 * @module
 */

import type { ReadBudget } from "../read_budget.ts";
import { canonicalDomain, formatReference, type ImageReference, isDigest } from "../image/mod.ts";
import { TtlCache } from "../cache.ts";
import { parseJsonWithin } from "../json_shape.ts";
import {
  type AuthTarget,
  createRegistryAuth,
  HOST_MEMORY_MS,
  MAX_REGISTRY_HOSTS,
  type RepositoryAction,
} from "./auth.ts";
import { type AuthChallenge, parseAuthenticate } from "./challenge.ts";
import { checkDigest, computeDigest } from "./digest.ts";
import {
  DigestMismatchError,
  RegistryError,
  type RegistryErrorDetails,
  ResponseTooLargeError,
  TransportError,
} from "./errors.ts";
import type { CredentialStore } from "./keyring.ts";
import { isSchema1MediaType, MANIFEST_ACCEPT, manifestMediaType } from "./media_types.ts";
import { createTokenCache, type TokenCache } from "./token_cache.ts";
import {
  createTransport,
  type HttpRequest,
  type HttpResponse,
  type Transport,
  type TransportOptions,
} from "./transport.ts";
import { safeExcerpt } from "../errors.ts";
import { JsonShapeError, JsonShapeScanner } from "../json_shape.ts";

/** The default limit of a manifest body: 4 MiB, as containers/image uses. */
export const DEFAULT_MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/** How the client reaches registries; every field has a default. */
export interface RegistryClientOptions extends TransportOptions {
  /** Where credentials come from (a keyring of pull secrets, `--creds`); none: anonymous. */
  credentials?: CredentialStore | undefined;
  /**
   * Registries reached over plain HTTP: `host:port` entries match exactly, `host` entries match
   * every port of that host; both in any spelling (see {@linkcode insecureRegistryEntry}).
   */
  insecureRegistries?: readonly string[];
  /** The largest manifest accepted. Default {@linkcode DEFAULT_MAX_MANIFEST_BYTES}. */
  maxManifestBytes?: number;
  /** A token cache to share between clients. Default: one per client, on `now`. */
  tokenCache?: TokenCache;
}

/** Per-call options. */
export interface RequestOptions {
  /** Aborts the call. */
  signal?: AbortSignal | undefined;
  /** Charged for every byte the call reads (see lib/read_budget.ts). */
  budget?: ReadBudget | undefined;
}

/** Options of a read whose caller bounds the size (below the client's own bound). */
export interface BoundedRequestOptions extends RequestOptions {
  /** The largest body accepted; more fails with a RegistryError. */
  maxBytes?: number | undefined;
}

/** The media type of an OCI image index, which the referrers API answers with. */
const REFERRERS_ACCEPT = "application/vnd.oci.image.index.v1+json";

/** The most pages of a referrers answer followed (`Link: <…>; rel="next"`). */
export const MAX_REFERRERS_PAGES = 8;

/**
 * How {@linkcode RegistryClient.getReferrers} reads a referrers answer. Each page's JSON values
 * are counted before it is parsed (lib/json_shape.ts: one linear pass, nothing allocated), so an
 * answer of a million bytes of `{},{},…` is refused for its count, not parsed into a third of a
 * million objects; each page's parsed list is dropped, but for what `select` keeps of it, before
 * the next page is asked for.
 */
export interface ReferrersOptions<T> extends RequestOptions {
  /** The most bytes read, all pages together. */
  readonly maxBytes: number;
  /** The most JSON values parsed (object keys included), all pages together. */
  readonly maxValues: number;
  /**
   * Asks the registry to list only referrers of this artifact type (`?artifactType=`, OCI
   * distribution spec 1.1). A registry that applied it says so (`OCI-Filters-Applied:
   * artifactType`, reported as {@linkcode Referrers.filtered}); one that did not lists them all,
   * and `select` is what filters then.
   */
  readonly artifactType?: string;
  /** What to keep of one descriptor of the index (undefined: nothing). */
  readonly select: (descriptor: unknown) => T | undefined;
}

/** What {@linkcode RegistryClient.getReferrers} returns. */
export interface Referrers<T> {
  /** What `select` kept, in the registry's order. */
  readonly manifests: T[];
  /** The descriptors listed, kept or not. */
  readonly listed: number;
  /** Bytes read, all pages together. */
  readonly bytes: number;
  /** Whether the registry said it applied the `artifactType` filter (to every page). */
  readonly filtered: boolean;
}

/** The nesting of a referrers index: index, `manifests`, descriptor, annotations, and slack. */
const REFERRERS_MAX_DEPTH = 8;

/** A manifest's identity, as a HEAD tells it. */
export interface ManifestDescriptor {
  /** The manifest digest (`sha256:…`). */
  readonly digest: string;
  /** The media type (`application/vnd.oci.image.index.v1+json`, …); "" when unknown. */
  readonly mediaType: string;
  /** The size in bytes; -1 when a HEAD answer did not say. */
  readonly size: number;
  /** The bytes, for a GET. */
  readonly bytes?: Uint8Array;
}

/** A manifest with its bytes, as a GET returns it. */
export interface Manifest extends ManifestDescriptor {
  /** The manifest bytes, exactly as received (their digest is `digest`). */
  readonly bytes: Uint8Array;
}

/** What a `/v2/` ping tells about a registry. */
export interface PingResult {
  /** The HTTP status (200, or 401 for registries that require authentication). */
  readonly status: number;
  /** Whether the registry sent `X-Registry-Supports-Signatures: 1`. */
  readonly supportsSignatures: boolean;
  /** The authentication challenges it sent. */
  readonly challenges: readonly AuthChallenge[];
}

/** An authenticated request to a registry API path (for extensions). */
export interface RegistryRequest {
  /** The method. */
  readonly method: HttpRequest["method"];
  /** The path below the registry root, starting with "/": `/extensions/v2/…`. */
  readonly path: string;
  /** The registry host, as in image references. */
  readonly registry: string;
  /** The repository path, used for credentials and token scopes. */
  readonly repository: string;
  /** The actions the request needs. */
  readonly actions: readonly RepositoryAction[];
  /** Request headers. */
  readonly headers?: HeadersInit;
  /** The request body. */
  readonly body?: string | Uint8Array;
  /** The largest 2xx body accepted. */
  readonly maxBytes: number;
  /** For messages: what the request does (`read signatures of`). */
  readonly action: string;
  /** For messages: what it is about (a formatted reference). */
  readonly subject: string;
  /** Aborts the request. */
  readonly signal?: AbortSignal | undefined;
  /** Charged for every byte the request reads. */
  readonly budget?: ReadBudget | undefined;
}

/** A registry answer with, on a 401, why authentication failed. */
export interface RegistryResponse extends HttpResponse {
  /** Why authentication failed (no secrets in it), when it did. */
  readonly authFailure?: string | undefined;
}

/** The registry client. Close it (or `using`) to release its HTTP client. */
export interface RegistryClient extends Disposable {
  /** Returns the digest, media type and size of a manifest with a HEAD request. */
  headManifest(ref: ImageReference, options?: RequestOptions): Promise<ManifestDescriptor>;
  /**
   * Returns a manifest with its bytes, their digest verified (at most `maxBytes`, and never more
   * than the client's bound).
   */
  getManifest(ref: ImageReference, options?: BoundedRequestOptions): Promise<Manifest>;
  /**
   * Returns a blob of the reference's repository by digest: at most `maxBytes` bytes (its
   * descriptor's size, which the caller has checked), their digest verified. Redirects to
   * storage elsewhere are followed without the registry's credentials.
   */
  getBlob(
    ref: ImageReference,
    digest: string,
    options: RequestOptions & { readonly maxBytes: number },
  ): Promise<Uint8Array>;
  /**
   * Returns the OCI 1.1 referrers of a manifest (`GET /v2/<name>/referrers/<digest>`): the
   * `manifests` of the index that `select` keeps, pages followed up to
   * {@linkcode MAX_REFERRERS_PAGES}, with at most `maxBytes` read and `maxValues` JSON values
   * parsed in all (see {@linkcode ReferrersOptions}); undefined when the registry has no
   * referrers API (it answers 404, 405 or 400, as registries without the API do).
   */
  getReferrers<T>(
    ref: ImageReference,
    digest: string,
    options: ReferrersOptions<T>,
  ): Promise<Referrers<T> | undefined>;
  /**
   * Returns the digest of the top-level manifest (an index for a multi-platform image): HEAD,
   * with a GET when the HEAD answer has no `Docker-Content-Digest` or is an error that a GET
   * explains better (404, 405, 400).
   */
  resolveDigest(ref: ImageReference, options?: RequestOptions): Promise<string>;
  /** Pings `/v2/` without credentials (cached per registry for the client's life). */
  ping(registry: string, options?: RequestOptions): Promise<PingResult>;
  /** Sends an authenticated request to a registry path; resolves with any HTTP status. */
  request(request: RegistryRequest): Promise<RegistryResponse>;
  /** The base URL of a registry: `https://registry-1.docker.io` for `docker.io`. */
  registryUrl(registry: string): string;
  /** HTTP requests sent so far, token requests, retries and redirects included. */
  readonly requestCount: number;
  /** Releases the HTTP client. */
  close(): void;
}

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^\w[\w.-]{0,127}$/;
const REGISTRY_HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
/** Where Docker Hub (canonically `docker.io`) serves its registry API. */
const DOCKER_HUB_API_HOST = "registry-1.docker.io";
/** An explicit HTTPS port, in any spelling (`:443`, `:0443`). */
const EXPLICIT_HTTPS_PORT = /:0*443$/;

/** A host written without its port: `reg:5000` is `reg`, `[::1]:5000` is `[::1]`. */
function withoutPort(domain: string): string {
  return domain.replace(/:[0-9]+$/, "");
}

/**
 * Reads one `--insecure-registry` entry: `host` (every port) or `host:port`, returned in the
 * canonical spelling of {@linkcode canonicalDomain}. A registry reached over plain HTTP cannot
 * be named with port 443: `:443` is the bare host in every image reference (HTTPS's port), so
 * `reg:443` would silently mean `reg`, and is refused instead.
 *
 * @throws {RegistryError} for an entry with port 443.
 */
export function insecureRegistryEntry(entry: string): { host: string } | { hostPort: string } {
  const trimmed = entry.trim();
  if (EXPLICIT_HTTPS_PORT.test(trimmed)) {
    throw new RegistryError(
      `Cannot use insecure registry "${entry}": port 443 is the HTTPS port, which image references leave out ("${
        withoutPort(trimmed)
      }/…" is the same registry), so a plain-HTTP registry cannot be named with it; name the host, or serve plain HTTP on another port`,
      { registry: entry },
    );
  }
  return /:[0-9]+$/.test(trimmed)
    ? { hostPort: canonicalDomain(trimmed) }
    : { host: withoutPort(canonicalDomain(trimmed)) };
}

/**
 * The next page of a paginated answer, from its `Link: <url>; rel="next"` header: only a path
 * below `base` on the same registry (a link elsewhere is not followed, so credentials never
 * leave the registry and the answer cannot send the client anywhere else).
 */
export function nextPage(link: string | null, base: string): string | undefined {
  if (link === null) return undefined;
  const match = /^\s*<([^>]{1,2048})>\s*;\s*rel="?next"?\s*$/.exec(link);
  if (match === null) return undefined;
  let url: URL;
  try {
    url = new URL(match[1]!, "http://registry.invalid");
  } catch {
    return undefined;
  }
  // Only the path and query are used, on the same registry.
  return url.pathname === base ? `${url.pathname}${url.search}` : undefined;
}

/** An error list's shape: a few errors of a code, a message and a detail. */
const ERROR_LIST_JSON_LIMITS = { maxValues: 1024, maxDepth: 16 };

/** An error code of the distribution spec's error list. */
const ERROR_CODE = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/**
 * Parses the JSON error list of a registry answer: `{"errors":[{"code","message"}]}`, with
 * each message through {@linkcode safeExcerpt}.
 */
export function parseErrorBody(body: Uint8Array): { code: string; message: string }[] {
  if (body.byteLength === 0) return [];
  try {
    // A list of a few errors: its shape is bounded before it is parsed (else: no list).
    const doc = parseJsonWithin(body, ERROR_LIST_JSON_LIMITS, "the registry's error list");
    const list = typeof doc === "object" && doc !== null
      ? (doc as Record<string, unknown>).errors
      : undefined;
    if (!Array.isArray(list)) return [];
    return list.flatMap((e: unknown) => {
      if (typeof e !== "object" || e === null) return [];
      const { code, message } = e as Record<string, unknown>;
      // The message is the registry's free text (it may echo a credential): bounded and
      // scrubbed. A code is a word (`MANIFEST_UNKNOWN`), anything else is no code.
      return typeof code === "string" && ERROR_CODE.test(code)
        ? [{ code, message: typeof message === "string" ? safeExcerpt(message) : "" }]
        : [];
    });
  } catch {
    return [];
  }
}

/**
 * Builds the error for a registry answer that is not a success:
 * `Cannot <action> "<subject>": MANIFEST_UNKNOWN: manifest unknown`, or `HTTP 404 Not Found`
 * when the answer has no JSON error list, with the auth failure (if any) in parentheses. The
 * `code` is the first code of the list; a 401 without one (a HEAD answer) gets `UNAUTHORIZED`,
 * the code the distribution spec gives every 401.
 */
export function registryErrorFromResponse(
  action: string,
  subject: string,
  target: { registry: string; repository?: string | undefined },
  response: RegistryResponse,
): RegistryError {
  const errors = parseErrorBody(response.body);
  let detail = errors.length > 0
    ? errors.map((e) => (e.message ? `${e.code}: ${e.message}` : e.code)).join("; ")
    : `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
  if (response.authFailure) detail += ` (${response.authFailure})`;
  return new RegistryError(`Cannot ${action} "${subject}": ${detail}`, {
    registry: target.registry,
    repository: target.repository,
    status: response.status,
    code: errors[0]?.code ?? (response.status === 401 ? "UNAUTHORIZED" : undefined),
  });
}

/** The detail of a transport failure, for a message that names its own action. */
function errorDetail(error: unknown): string {
  if (error instanceof TransportError || error instanceof ResponseTooLargeError) {
    return error.detail;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Whether {@link errorDetail} of `error` says all its message says. */
function tellsDetail(error: unknown): boolean {
  return error instanceof TransportError || error instanceof ResponseTooLargeError;
}

/** Creates a registry client. */
export function createRegistryClient(options: RegistryClientOptions = {}): RegistryClient {
  const transport: Transport = createTransport(options);
  const now = options.now ?? Date.now;
  const insecureHosts = new Set<string>();
  const insecureHostPorts = new Set<string>();
  for (const entry of options.insecureRegistries ?? []) {
    const parsed = insecureRegistryEntry(entry);
    if ("host" in parsed) insecureHosts.add(parsed.host);
    else insecureHostPorts.add(parsed.hostPort);
  }
  const maxManifestBytes = options.maxManifestBytes ?? DEFAULT_MAX_MANIFEST_BYTES;
  const pings = new TtlCache<string, Promise<PingResult>>({
    name: "registry-ping",
    ttlMs: HOST_MEMORY_MS,
    maxEntries: MAX_REGISTRY_HOSTS,
    now,
  });

  function isInsecureHost(hostPort: string): boolean {
    const canonical = canonicalDomain(hostPort);
    return insecureHostPorts.has(canonical) || insecureHosts.has(withoutPort(canonical));
  }

  const auth = createRegistryAuth({
    transport,
    credentials: options.credentials,
    tokens: options.tokenCache ?? createTokenCache(now),
    now,
    isInsecureHost,
  });

  function registryUrl(registry: string): string {
    // `:443` is the bare host (a canonical single-label host such as `myreg:443` keeps it).
    const canonical = canonicalDomain(registry).replace(EXPLICIT_HTTPS_PORT, "");
    if (!REGISTRY_HOST.test(canonical)) {
      throw new RegistryError(`Cannot reach registry "${registry}": not a valid registry host`, {
        registry,
      });
    }
    const host = canonical === "docker.io" ? DOCKER_HUB_API_HOST : canonical;
    return `${isInsecureHost(registry) ? "http" : "https"}://${host}`;
  }

  function fail(
    action: string,
    subject: string,
    details: RegistryErrorDetails,
    detail: string,
  ): never {
    throw new RegistryError(`Cannot ${action} "${subject}": ${detail}`, details);
  }

  /** Validates and escapes a repository path for a URL. */
  function repositoryPath(ref: ImageReference, action: string): string {
    const subject = formatReference(ref);
    const components = ref.path.split("/");
    if (ref.path === "" || !components.every((c) => PATH_COMPONENT.test(c))) {
      fail(
        action,
        subject,
        { registry: ref.domain, repository: ref.path },
        "invalid repository path",
      );
    }
    return components.map(encodeURIComponent).join("/");
  }

  /** The tag or digest part of a manifest URL, validated and escaped (":" kept). */
  function manifestReference(ref: ImageReference, action: string): string {
    const subject = formatReference(ref);
    if (ref.digest !== undefined) {
      if (!isDigest(ref.digest)) {
        fail(action, subject, { registry: ref.domain, repository: ref.path }, "invalid digest");
      }
      return ref.digest;
    }
    const tag = ref.tag ?? "latest";
    if (!TAG.test(tag)) {
      fail(action, subject, { registry: ref.domain, repository: ref.path }, "invalid tag");
    }
    return encodeURIComponent(tag);
  }

  /** Sends an authenticated request; transport failures become RegistryErrors. */
  async function request(req: RegistryRequest): Promise<RegistryResponse> {
    const details = { registry: req.registry, repository: req.repository };
    const base = registryUrl(req.registry);
    const target: AuthTarget = {
      registry: canonicalDomain(req.registry),
      repository: req.repository,
      actions: req.actions,
    };
    let result;
    try {
      result = await auth.send(target, (authorization) => {
        const headers = new Headers(req.headers);
        if (authorization !== undefined) headers.set("authorization", authorization);
        const built: HttpRequest = {
          method: req.method,
          url: `${base}${req.path}`,
          headers,
          maxBytes: req.maxBytes,
          signal: req.signal,
          budget: req.budget,
          ...(req.body !== undefined ? { body: req.body } : {}),
        };
        return built;
      });
    } catch (error) {
      if (error instanceof RegistryError) throw error;
      if (req.signal?.aborted && error === req.signal.reason) throw error;
      throw new RegistryError(`Cannot ${req.action} "${req.subject}": ${errorDetail(error)}`, {
        ...details,
        cause: error,
        messageTellsCause: tellsDetail(error),
      });
    }
    if (result.response === undefined) {
      throw new RegistryError(`Cannot ${req.action} "${req.subject}": ${result.failure}`, {
        ...details,
        status: result.failureStatus,
        code: "UNAUTHORIZED",
      });
    }
    return { ...result.response, authFailure: result.failure };
  }

  function manifestRequest(
    ref: ImageReference,
    method: "GET" | "HEAD",
    action: string,
    opts: BoundedRequestOptions,
  ): Promise<RegistryResponse> {
    const path = `/v2/${repositoryPath(ref, action)}/manifests/${manifestReference(ref, action)}`;
    return request({
      method,
      path,
      registry: ref.domain,
      repository: ref.path,
      actions: ["pull"],
      headers: { accept: MANIFEST_ACCEPT },
      maxBytes: Math.min(opts.maxBytes ?? maxManifestBytes, maxManifestBytes),
      action,
      subject: formatReference(ref),
      signal: opts.signal,
      budget: opts.budget,
    });
  }

  function refuseSchema1(ref: ImageReference, action: string, mediaType: string): void {
    if (isSchema1MediaType(mediaType)) {
      fail(
        action,
        formatReference(ref),
        { registry: ref.domain, repository: ref.path },
        `the registry returned a Docker schema 1 manifest (${mediaType}), which is not supported`,
      );
    }
  }

  async function headManifest(
    ref: ImageReference,
    opts: RequestOptions = {},
  ): Promise<ManifestDescriptor> {
    const action = "read manifest of";
    const response = await manifestRequest(ref, "HEAD", action, opts);
    return describeHead(ref, response, action);
  }

  function describeHead(
    ref: ImageReference,
    response: RegistryResponse,
    action: string,
  ): ManifestDescriptor {
    const subject = formatReference(ref);
    const target = { registry: ref.domain, repository: ref.path };
    if (response.status < 200 || response.status >= 300) {
      throw registryErrorFromResponse(action, subject, target, response);
    }
    const mediaType = manifestMediaType(response.headers.get("content-type"));
    refuseSchema1(ref, action, mediaType);
    const header = response.headers.get("docker-content-digest")?.trim();
    const announced = header && isDigest(header) ? header : undefined;
    if (ref.digest !== undefined && announced !== undefined && announced !== ref.digest) {
      throw new DigestMismatchError(action, subject, ref.digest, announced, target);
    }
    const length = Number(response.headers.get("content-length") ?? "");
    const size = response.headers.has("content-length") && Number.isInteger(length) && length >= 0
      ? length
      : -1;
    const digest = announced ?? ref.digest;
    if (digest === undefined) {
      fail(action, subject, target, "the registry did not send a Docker-Content-Digest header");
    }
    return { digest, mediaType, size };
  }

  async function getManifest(
    ref: ImageReference,
    opts: BoundedRequestOptions = {},
  ): Promise<Manifest> {
    const action = "read manifest of";
    const response = await manifestRequest(ref, "GET", action, opts);
    const subject = formatReference(ref);
    const target = { registry: ref.domain, repository: ref.path };
    if (response.status < 200 || response.status >= 300) {
      throw registryErrorFromResponse(action, subject, target, response);
    }
    const bytes = response.body;
    const mediaType = manifestMediaType(response.headers.get("content-type"), bytes);
    refuseSchema1(ref, action, mediaType);
    if (ref.digest !== undefined) {
      const check = await checkDigest(bytes, ref.digest);
      if (!check.matches) {
        throw new DigestMismatchError(action, subject, ref.digest, check.actual, target);
      }
    }
    const header = response.headers.get("docker-content-digest")?.trim();
    if (header && isDigest(header)) {
      const check = await checkDigest(bytes, header);
      if (!check.matches) {
        throw new DigestMismatchError(action, subject, header, check.actual, target);
      }
    }
    const digest = ref.digest ?? await computeDigest(bytes);
    return { digest, mediaType, size: bytes.byteLength, bytes };
  }

  async function resolveDigest(ref: ImageReference, opts: RequestOptions = {}): Promise<string> {
    const action = "read manifest of";
    const response = await manifestRequest(ref, "HEAD", action, opts);
    const ok = response.status >= 200 && response.status < 300;
    if (ok && response.headers.has("docker-content-digest")) {
      const header = response.headers.get("docker-content-digest")!.trim();
      if (isDigest(header)) return describeHead(ref, response, action).digest;
    }
    if (ok && ref.digest !== undefined) return describeHead(ref, response, action).digest;
    if (!ok && ![400, 404, 405].includes(response.status)) {
      throw registryErrorFromResponse(action, formatReference(ref), {
        registry: ref.domain,
        repository: ref.path,
      }, response);
    }
    return (await getManifest(ref, opts)).digest;
  }

  async function getBlob(
    ref: ImageReference,
    digest: string,
    opts: RequestOptions & { readonly maxBytes: number },
  ): Promise<Uint8Array> {
    const action = "read blob of";
    const subject = `${ref.domain}/${ref.path}@${digest}`;
    const target = { registry: ref.domain, repository: ref.path };
    if (!isDigest(digest)) fail(action, subject, target, "invalid digest");
    const response = await request({
      method: "GET",
      path: `/v2/${repositoryPath(ref, action)}/blobs/${digest}`,
      registry: ref.domain,
      repository: ref.path,
      actions: ["pull"],
      maxBytes: opts.maxBytes,
      action,
      subject,
      signal: opts.signal,
      budget: opts.budget,
    });
    if (response.status < 200 || response.status >= 300) {
      throw registryErrorFromResponse(action, subject, target, response);
    }
    const check = await checkDigest(response.body, digest);
    if (!check.matches) {
      throw new DigestMismatchError(action, subject, digest, check.actual, target);
    }
    return response.body;
  }

  async function getReferrers<T>(
    ref: ImageReference,
    digest: string,
    opts: ReferrersOptions<T>,
  ): Promise<Referrers<T> | undefined> {
    const action = "read referrers of";
    const subject = `${ref.domain}/${ref.path}@${digest}`;
    const target = { registry: ref.domain, repository: ref.path };
    if (!isDigest(digest)) fail(action, subject, target, "invalid digest");
    const first = `/v2/${repositoryPath(ref, action)}/referrers/${digest}`;
    const kept: T[] = [];
    let listed = 0;
    let filtered = true;
    let remaining = opts.maxBytes;
    let values = 0;
    let path: string | undefined = opts.artifactType === undefined
      ? first
      : `${first}?artifactType=${encodeURIComponent(opts.artifactType)}`;
    for (let page = 0; path !== undefined; page++) {
      if (page >= MAX_REFERRERS_PAGES) {
        fail(action, subject, target, `more than ${MAX_REFERRERS_PAGES} pages of referrers`);
      }
      const response: RegistryResponse = await request({
        method: "GET",
        path,
        registry: ref.domain,
        repository: ref.path,
        actions: ["pull"],
        headers: { accept: REFERRERS_ACCEPT },
        maxBytes: remaining,
        action,
        subject,
        signal: opts.signal,
        budget: opts.budget,
      });
      if (page === 0 && [400, 404, 405].includes(response.status)) return undefined;
      if (response.status !== 200) {
        throw registryErrorFromResponse(action, subject, target, response);
      }
      remaining -= response.body.byteLength;
      filtered &&= opts.artifactType !== undefined &&
        (response.headers.get("oci-filters-applied") ?? "").split(",")
          .some((f) => f.trim().toLowerCase() === "artifacttype");
      // Counted before it is parsed: the values of all pages together within maxValues.
      const scanner = new JsonShapeScanner(
        { maxValues: opts.maxValues - values, maxDepth: REFERRERS_MAX_DEPTH },
        "the referrers answer",
      );
      let manifests: unknown;
      try {
        scanner.feed(response.body);
        const index: unknown = JSON.parse(new TextDecoder().decode(response.body));
        manifests = typeof index === "object" && index !== null
          ? (index as Record<string, unknown>).manifests
          : undefined;
      } catch (error) {
        if (error instanceof JsonShapeError) {
          fail(
            action,
            subject,
            target,
            error.bound === "values"
              ? `the referrers answer holds more than ${opts.maxValues} JSON values${
                page > 0 ? ` (${page + 1} pages)` : ""
              }`
              : error.message,
          );
        }
        fail(action, subject, target, "the referrers answer is not JSON");
      }
      values += scanner.values;
      if (!Array.isArray(manifests)) {
        fail(action, subject, target, "the referrers answer is not an image index");
      }
      listed += manifests.length;
      for (const descriptor of manifests) {
        const selected = opts.select(descriptor);
        if (selected !== undefined) kept.push(selected);
      }
      manifests = undefined;
      path = nextPage(response.headers.get("link"), first);
    }
    return { manifests: kept, listed, bytes: opts.maxBytes - remaining, filtered };
  }

  function ping(registry: string, opts: RequestOptions = {}): Promise<PingResult> {
    const key = canonicalDomain(registry);
    const cached = pings.get(key);
    if (cached) return cached;
    const promise = (async () => {
      const url = `${registryUrl(registry)}/v2/`;
      let response: HttpResponse;
      try {
        response = await transport.send({
          method: "GET",
          url,
          maxBytes: 64 * 1024,
          signal: opts.signal,
          budget: opts.budget,
        });
      } catch (error) {
        throw new RegistryError(`Cannot reach registry "${registry}": ${errorDetail(error)}`, {
          registry,
          cause: error,
          messageTellsCause: tellsDetail(error),
        });
      }
      if (response.status !== 200 && response.status !== 401) {
        throw registryErrorFromResponse("reach registry", registry, { registry }, response);
      }
      const challenges = parseAuthenticate(response.headers.get("www-authenticate"));
      auth.learn(key, challenges);
      return {
        status: response.status,
        supportsSignatures: response.headers.get("x-registry-supports-signatures")?.trim() === "1",
        challenges,
      };
    })();
    pings.set(key, promise);
    promise.catch(() => pings.delete(key));
    return promise;
  }

  const close = () => transport.close();
  return {
    headManifest: (ref, opts) => headManifest(ref, opts),
    getManifest,
    getBlob,
    getReferrers,
    resolveDigest,
    ping,
    request,
    registryUrl,
    get requestCount() {
      return transport.requestCount;
    },
    close,
    [Symbol.dispose]: close,
  };
}
