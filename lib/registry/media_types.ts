/**
 * Manifest media types and the `Accept` header sent for every manifest request.
 *
 * The distribution registry answers a request whose `Accept` lacks the OCI types with 404
 * `MANIFEST_UNKNOWN` for an OCI manifest, and down-converts a Docker schema 2 manifest to a
 * schema 1 manifest (with another digest) when the schema 2 type is missing. So the full list is
 * always sent, and schema 1 is never asked for.
 *
 * @module
 */
import type { JsonShapeLimits } from "../json_shape.ts";
import { parseJsonWithin } from "../json_shape.ts";

/**
 * The shape of a manifest or an index, bounded before it is parsed: one of 127 layers or of 256
 * platforms, each with a few annotations, has about 3,000 values and is 5 levels deep; these
 * bounds hold 8,192 values (at most about 512 KiB of heap) nested 16 deep.
 */
export const MANIFEST_JSON_LIMITS: JsonShapeLimits = { maxValues: 8192, maxDepth: 16 };

/** An OCI image index (multi-platform image). */
export const OCI_INDEX = "application/vnd.oci.image.index.v1+json";
/** An OCI image manifest. */
export const OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
/** A Docker manifest list (multi-platform image). */
export const DOCKER_MANIFEST_LIST = "application/vnd.docker.distribution.manifest.list.v2+json";
/** A Docker image manifest, schema 2. */
export const DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json";
/** A signed Docker schema 1 manifest: never requested, refused when returned. */
export const DOCKER_SCHEMA1_SIGNED = "application/vnd.docker.distribution.manifest.v1+prettyjws";
/** An unsigned Docker schema 1 manifest: never requested, refused when returned. */
export const DOCKER_SCHEMA1 = "application/vnd.docker.distribution.manifest.v1+json";

/** The manifest media types toolkit accepts, most preferred first. */
export const MANIFEST_MEDIA_TYPES: readonly string[] = [
  OCI_INDEX,
  OCI_MANIFEST,
  DOCKER_MANIFEST_LIST,
  DOCKER_MANIFEST,
];

/** The `Accept` header of every manifest request. */
export const MANIFEST_ACCEPT: string = MANIFEST_MEDIA_TYPES.join(", ");

/** Whether `mediaType` is an index or manifest list (a multi-platform image). */
export function isIndexMediaType(mediaType: string): boolean {
  return mediaType === OCI_INDEX || mediaType === DOCKER_MANIFEST_LIST;
}

/** Whether `mediaType` is a Docker schema 1 manifest. */
export function isSchema1MediaType(mediaType: string): boolean {
  return mediaType === DOCKER_SCHEMA1_SIGNED || mediaType === DOCKER_SCHEMA1;
}

/** Returns the media type of a `Content-Type` header without parameters, lowercased. */
export function contentTypeMediaType(contentType: string | null): string {
  if (contentType === null) return "";
  const semicolon = contentType.indexOf(";");
  return (semicolon >= 0 ? contentType.slice(0, semicolon) : contentType).trim().toLowerCase();
}

/**
 * Returns the media type of a manifest from its `Content-Type`, or from its own `mediaType`
 * field when the registry sent a generic type (`application/json`, `text/plain`, none), or when
 * it sent a schema 2 / OCI document under a generic type. Unknown documents give "".
 */
export function manifestMediaType(contentType: string | null, bytes?: Uint8Array): string {
  const declared = contentTypeMediaType(contentType);
  if (declared !== "" && declared !== "application/json" && declared !== "text/plain") {
    return declared;
  }
  if (bytes === undefined) return declared;
  try {
    const doc = parseJsonWithin(bytes, MANIFEST_JSON_LIMITS, "the manifest");
    if (typeof doc !== "object" || doc === null) return declared;
    const record = doc as Record<string, unknown>;
    if (typeof record.mediaType === "string") return record.mediaType;
    if (record.schemaVersion === 1) return DOCKER_SCHEMA1;
    if (Array.isArray(record.manifests)) return OCI_INDEX;
    if (typeof record.config === "object" && record.config !== null) return OCI_MANIFEST;
  } catch {
    // not JSON (or past its shape, which the reading of the manifest refuses): keep what the
    // server said
  }
  return declared;
}
