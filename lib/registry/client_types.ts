/**
 * The registry client's interface ({@linkcode RegistryClient}) and the shapes its calls take and
 * return. The client is composed of units, one a concern (lib/registry/client.ts says which); each
 * unit implements its part of this interface.
 *
 * @module
 */

import type { ReadBudget } from "../read_budget.ts";
import type { ImageReference } from "../image/mod.ts";
import type { RepositoryAction } from "./auth.ts";
import type { AuthChallenge } from "./challenge.ts";
import type { HttpRequest, HttpResponse } from "./transport.ts";

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
   * `MAX_REFERRERS_PAGES` (lib/registry/referrers.ts), with at most `maxBytes` read and `maxValues` JSON values
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

/** Sends an authenticated request to a registry path (the client's `request`). */
export type RegistryRequester = (request: RegistryRequest) => Promise<RegistryResponse>;
