/**
 * Writing to a registry over the distribution API, through the client's authenticated
 * {@linkcode RegistryClient.request} (credentials, tokens with `push` scope, TLS flags, CA
 * certificates, bounded answers): blobs (skipped when the registry has them; otherwise one
 * `POST …/blobs/uploads/` then one `PUT <location>?digest=` with the whole blob) and manifests by
 * tag or digest. Reads that a writer needs before it writes (a manifest that may not exist, whether
 * the registry has the OCI 1.1 referrers API) are here too.
 *
 * POST and PUT are never retried by the transport; a blob upload whose `Location` points to
 * another host is refused (the registry's credentials would have to go there).
 *
 * @module
 */
import { formatReference, type ImageReference, isDigest } from "../image/mod.ts";
import {
  computeDigest,
  type Manifest,
  type RegistryClient,
  RegistryError,
  registryErrorFromResponse,
  type RequestOptions,
} from "../registry/mod.ts";

/** The largest answer body read from a write (error lists, upload sessions). */
const MAX_WRITE_ANSWER_BYTES = 64 * 1024;
/** The largest referrers answer read to learn whether the registry has the API. */
export const MAX_REFERRERS_PROBE_BYTES = 4 * 1024 * 1024;

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^\w[\w.-]{0,127}$/;

/** What a blob or manifest write stored. */
export interface PushedContent {
  /** Its digest. */
  readonly digest: string;
  /** Its size in bytes. */
  readonly size: number;
}

/** A manifest written, with the registry's `OCI-Subject` answer. */
export interface PushedManifest extends PushedContent {
  /**
   * The `OCI-Subject` header of the answer: the registry says it indexed the manifest's
   * `subject` for the referrers API (OCI distribution spec 1.1).
   */
  readonly ociSubject?: string | undefined;
}

function target(ref: ImageReference) {
  return { registry: ref.domain, repository: ref.path };
}

function repositoryUrlPath(ref: ImageReference, action: string): string {
  const components = ref.path.split("/");
  if (ref.path === "" || !components.every((c) => PATH_COMPONENT.test(c))) {
    throw new RegistryError(
      `Cannot ${action} "${formatReference(ref)}": invalid repository path`,
      target(ref),
    );
  }
  return components.join("/");
}

function repositorySubject(ref: ImageReference, suffix: string): string {
  return `${ref.domain}/${ref.path}${suffix}`;
}

/**
 * Asks `GET|HEAD /v2/<name>/<kind>/<digest>` and returns whether the answer is 200 (true) or one of
 * `absent` (false); any other answer is an error.
 */
async function askByDigest(
  client: RegistryClient,
  ref: ImageReference,
  digest: string,
  query: {
    method: "GET" | "HEAD";
    kind: "blobs" | "referrers";
    action: string;
    absent: readonly number[];
    maxBytes: number;
    accept?: string;
  },
  options: RequestOptions,
): Promise<boolean> {
  const { action } = query;
  const subject = repositorySubject(ref, `@${digest}`);
  if (!isDigest(digest)) {
    throw new RegistryError(`Cannot ${action} "${subject}": invalid digest`, target(ref));
  }
  const response = await client.request({
    method: query.method,
    path: `/v2/${repositoryUrlPath(ref, action)}/${query.kind}/${digest}`,
    registry: ref.domain,
    repository: ref.path,
    actions: query.kind === "blobs" ? ["pull", "push"] : ["pull"],
    ...(query.accept ? { headers: { accept: query.accept } } : {}),
    maxBytes: query.maxBytes,
    action,
    subject,
    signal: options.signal,
  });
  if (response.status === 200) return true;
  if (query.absent.includes(response.status)) return false;
  throw registryErrorFromResponse(action, subject, target(ref), response);
}

/** Whether the repository of `ref` has the blob (`HEAD /v2/<name>/blobs/<digest>`). */
export function blobExists(
  client: RegistryClient,
  ref: ImageReference,
  digest: string,
  options: RequestOptions = {},
): Promise<boolean> {
  return askByDigest(client, ref, digest, {
    method: "HEAD",
    kind: "blobs",
    action: "check blob of",
    absent: [404],
    maxBytes: MAX_WRITE_ANSWER_BYTES,
  }, options);
}

/** Uploads `bytes` as a blob of the repository of `ref`, unless it is there already. */
export async function pushBlob(
  client: RegistryClient,
  ref: ImageReference,
  bytes: Uint8Array,
  options: RequestOptions = {},
): Promise<PushedContent> {
  const digest = await computeDigest(bytes);
  const pushed = { digest, size: bytes.byteLength };
  if (await blobExists(client, ref, digest, options)) return pushed;
  const action = "upload blob to";
  const subject = repositorySubject(ref, `@${digest}`);
  const base = `/v2/${repositoryUrlPath(ref, action)}/blobs/uploads/`;
  const started = await client.request({
    method: "POST",
    path: base,
    registry: ref.domain,
    repository: ref.path,
    actions: ["pull", "push"],
    maxBytes: MAX_WRITE_ANSWER_BYTES,
    action,
    subject,
    signal: options.signal,
  });
  if (started.status !== 202) {
    throw registryErrorFromResponse(action, subject, target(ref), started);
  }
  const location = started.headers.get("location");
  if (location === null) {
    throw new RegistryError(
      `Cannot ${action} "${subject}": the registry started an upload without a Location`,
      target(ref),
    );
  }
  const registryOrigin = new URL(client.registryUrl(ref.domain)).origin;
  let url: URL;
  try {
    url = new URL(location, `${registryOrigin}${base}`);
  } catch {
    throw new RegistryError(
      `Cannot ${action} "${subject}": the upload Location is not a URL`,
      target(ref),
    );
  }
  if (url.origin !== registryOrigin) {
    throw new RegistryError(
      `Cannot ${action} "${subject}": the registry sends the upload to another host (${url.host}), ` +
        "where its credentials would have to go",
      target(ref),
    );
  }
  url.searchParams.set("digest", digest);
  const finished = await client.request({
    method: "PUT",
    path: `${url.pathname}${url.search}`,
    registry: ref.domain,
    repository: ref.path,
    actions: ["pull", "push"],
    headers: { "content-type": "application/octet-stream" },
    body: bytes,
    maxBytes: MAX_WRITE_ANSWER_BYTES,
    action,
    subject,
    signal: options.signal,
  });
  if (finished.status !== 201 && finished.status !== 204) {
    throw registryErrorFromResponse(action, subject, target(ref), finished);
  }
  return pushed;
}

/**
 * Writes a manifest under `reference` (a tag, or its own digest) in the repository of `ref`.
 */
export async function pushManifest(
  client: RegistryClient,
  ref: ImageReference,
  reference: string,
  manifest: { readonly bytes: Uint8Array; readonly mediaType: string },
  options: RequestOptions = {},
): Promise<PushedManifest> {
  const action = "write manifest to";
  const digest = await computeDigest(manifest.bytes);
  const byDigest = isDigest(reference);
  const subject = repositorySubject(ref, byDigest ? `@${reference}` : `:${reference}`);
  if (byDigest ? reference !== digest : !TAG.test(reference)) {
    throw new RegistryError(
      `Cannot ${action} "${subject}": ${
        byDigest ? `the manifest's digest is ${digest}` : "invalid tag"
      }`,
      target(ref),
    );
  }
  const response = await client.request({
    method: "PUT",
    path: `/v2/${repositoryUrlPath(ref, action)}/manifests/${reference}`,
    registry: ref.domain,
    repository: ref.path,
    actions: ["pull", "push"],
    headers: { "content-type": manifest.mediaType },
    body: manifest.bytes,
    maxBytes: MAX_WRITE_ANSWER_BYTES,
    action,
    subject,
    signal: options.signal,
  });
  if (response.status !== 201 && response.status !== 200 && response.status !== 202) {
    throw registryErrorFromResponse(action, subject, target(ref), response);
  }
  const ociSubject = response.headers.get("oci-subject")?.trim();
  return { digest, size: manifest.bytes.byteLength, ...(ociSubject ? { ociSubject } : {}) };
}

/**
 * The manifest tagged `tag` in the repository of `ref`, or undefined when there is none (404:
 * `MANIFEST_UNKNOWN`, or `NAME_UNKNOWN` for a repository that does not exist yet).
 */
export async function getTaggedManifest(
  client: RegistryClient,
  ref: ImageReference,
  tag: string,
  options: RequestOptions = {},
): Promise<Manifest | undefined> {
  try {
    return await client.getManifest({ ...ref, tag, digest: undefined }, options);
  } catch (error) {
    if (error instanceof RegistryError && error.status === 404) return undefined;
    throw error;
  }
}

/**
 * Whether the registry keeps the OCI 1.1 referrers of `digest` itself: `GET
 * /v2/<name>/referrers/<digest>` answers 200 (the distribution registry answers 404; some
 * registries 400). As go-containerregistry decides before it writes the fallback tag.
 */
export function hasReferrersApi(
  client: RegistryClient,
  ref: ImageReference,
  digest: string,
  options: RequestOptions = {},
): Promise<boolean> {
  return askByDigest(client, ref, digest, {
    method: "GET",
    kind: "referrers",
    action: "read referrers of",
    absent: [404, 400],
    maxBytes: MAX_REFERRERS_PROBE_BYTES,
    accept: "application/vnd.oci.image.index.v1+json",
  }, options);
}
