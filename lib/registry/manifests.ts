/**
 * Manifests by tag or digest: HEAD (digest, media type, size), GET (the bytes, their digest
 * verified) and digest resolution (HEAD, with a GET when the HEAD answer does not tell).
 *
 * - Every manifest request sends the full `Accept` list (OCI index and manifest, Docker manifest
 *   list and schema 2), so the registry never answers 404 for OCI content or down-converts to
 *   schema 1; a schema 1 answer is refused.
 * - A GET's bytes are checked against the reference's digest (when it has one) and against the
 *   `Docker-Content-Digest` header (when sent). A HEAD's header is checked against the
 *   reference's digest.
 *
 * @module
 */

import { formatReference, type ImageReference, isDigest } from "../image/mod.ts";
import type {
  BoundedRequestOptions,
  Manifest,
  ManifestDescriptor,
  RegistryRequester,
  RegistryResponse,
  RequestOptions,
} from "./client_types.ts";
import { checkDigest, computeDigest } from "./digest.ts";
import { registryErrorFromResponse } from "./error_answer.ts";
import { DigestMismatchError } from "./errors.ts";
import { isSchema1MediaType, MANIFEST_ACCEPT, manifestMediaType } from "./media_types.ts";
import { failCall, manifestReference, repositoryPath } from "./repository_path.ts";

/** The default limit of a manifest body: 4 MiB, as containers/image uses. */
export const DEFAULT_MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/** The manifest calls of the registry client. */
export interface ManifestReader {
  /** See `RegistryClient.headManifest`. */
  headManifest(ref: ImageReference, options?: RequestOptions): Promise<ManifestDescriptor>;
  /** See `RegistryClient.getManifest`. */
  getManifest(ref: ImageReference, options?: BoundedRequestOptions): Promise<Manifest>;
  /** See `RegistryClient.resolveDigest`. */
  resolveDigest(ref: ImageReference, options?: RequestOptions): Promise<string>;
}

const ACTION = "read manifest of";

/**
 * Creates the manifest calls over `request`; no manifest body larger than `maxManifestBytes`
 * (default {@linkcode DEFAULT_MAX_MANIFEST_BYTES}) is read, whatever a call asks.
 */
export function createManifestReader(
  request: RegistryRequester,
  maxManifestBytes: number = DEFAULT_MAX_MANIFEST_BYTES,
): ManifestReader {
  function manifestRequest(
    ref: ImageReference,
    method: "GET" | "HEAD",
    opts: BoundedRequestOptions,
  ): Promise<RegistryResponse> {
    const path = `/v2/${repositoryPath(ref, ACTION)}/manifests/${manifestReference(ref, ACTION)}`;
    return request({
      method,
      path,
      registry: ref.domain,
      repository: ref.path,
      actions: ["pull"],
      headers: { accept: MANIFEST_ACCEPT },
      maxBytes: Math.min(opts.maxBytes ?? maxManifestBytes, maxManifestBytes),
      action: ACTION,
      subject: formatReference(ref),
      signal: opts.signal,
      budget: opts.budget,
    });
  }

  async function headManifest(
    ref: ImageReference,
    opts: RequestOptions = {},
  ): Promise<ManifestDescriptor> {
    const response = await manifestRequest(ref, "HEAD", opts);
    return describeHead(ref, response);
  }

  async function getManifest(
    ref: ImageReference,
    opts: BoundedRequestOptions = {},
  ): Promise<Manifest> {
    const response = await manifestRequest(ref, "GET", opts);
    const subject = formatReference(ref);
    const target = { registry: ref.domain, repository: ref.path };
    if (response.status < 200 || response.status >= 300) {
      throw registryErrorFromResponse(ACTION, subject, target, response);
    }
    const bytes = response.body;
    const mediaType = manifestMediaType(response.headers.get("content-type"), bytes);
    refuseSchema1(ref, mediaType);
    if (ref.digest !== undefined) {
      const check = await checkDigest(bytes, ref.digest);
      if (!check.matches) {
        throw new DigestMismatchError(ACTION, subject, ref.digest, check.actual, target);
      }
    }
    const header = response.headers.get("docker-content-digest")?.trim();
    if (header && isDigest(header)) {
      const check = await checkDigest(bytes, header);
      if (!check.matches) {
        throw new DigestMismatchError(ACTION, subject, header, check.actual, target);
      }
    }
    const digest = ref.digest ?? await computeDigest(bytes);
    return { digest, mediaType, size: bytes.byteLength, bytes };
  }

  async function resolveDigest(ref: ImageReference, opts: RequestOptions = {}): Promise<string> {
    const response = await manifestRequest(ref, "HEAD", opts);
    const ok = response.status >= 200 && response.status < 300;
    if (ok && response.headers.has("docker-content-digest")) {
      const header = response.headers.get("docker-content-digest")!.trim();
      if (isDigest(header)) return describeHead(ref, response).digest;
    }
    if (ok && ref.digest !== undefined) return describeHead(ref, response).digest;
    if (!ok && ![400, 404, 405].includes(response.status)) {
      throw registryErrorFromResponse(ACTION, formatReference(ref), {
        registry: ref.domain,
        repository: ref.path,
      }, response);
    }
    return (await getManifest(ref, opts)).digest;
  }

  return { headManifest, getManifest, resolveDigest };
}

function refuseSchema1(ref: ImageReference, mediaType: string): void {
  if (isSchema1MediaType(mediaType)) {
    failCall(
      ACTION,
      formatReference(ref),
      { registry: ref.domain, repository: ref.path },
      `the registry returned a Docker schema 1 manifest (${mediaType}), which is not supported`,
    );
  }
}

/** What a HEAD answer tells of a manifest, checked against the reference's digest. */
function describeHead(ref: ImageReference, response: RegistryResponse): ManifestDescriptor {
  const subject = formatReference(ref);
  const target = { registry: ref.domain, repository: ref.path };
  if (response.status < 200 || response.status >= 300) {
    throw registryErrorFromResponse(ACTION, subject, target, response);
  }
  const mediaType = manifestMediaType(response.headers.get("content-type"));
  refuseSchema1(ref, mediaType);
  const header = response.headers.get("docker-content-digest")?.trim();
  const announced = header && isDigest(header) ? header : undefined;
  if (ref.digest !== undefined && announced !== undefined && announced !== ref.digest) {
    throw new DigestMismatchError(ACTION, subject, ref.digest, announced, target);
  }
  const length = Number(response.headers.get("content-length") ?? "");
  const size = response.headers.has("content-length") && Number.isInteger(length) && length >= 0
    ? length
    : -1;
  const digest = announced ?? ref.digest;
  if (digest === undefined) {
    failCall(ACTION, subject, target, "the registry did not send a Docker-Content-Digest header");
  }
  return { digest, mediaType, size };
}
