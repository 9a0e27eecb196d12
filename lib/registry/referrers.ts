/**
 * The OCI 1.1 referrers of a manifest (`GET /v2/<name>/referrers/<digest>`), read within bounds:
 * pages followed up to {@linkcode MAX_REFERRERS_PAGES} (only to the same API path), bytes and
 * JSON values counted over all pages, each page's values counted before it is parsed
 * (lib/json_shape.ts), and of each page only what the caller's `select` keeps held past it.
 *
 * @module
 */

import { type ImageReference, isDigest } from "../image/mod.ts";
import { JsonShapeError, JsonShapeScanner } from "../json_shape.ts";
import type {
  Referrers,
  ReferrersOptions,
  RegistryRequester,
  RegistryResponse,
} from "./client_types.ts";
import { registryErrorFromResponse } from "./error_answer.ts";
import { failCall, repositoryPath } from "./repository_path.ts";

/** The media type of an OCI image index, which the referrers API answers with. */
const REFERRERS_ACCEPT = "application/vnd.oci.image.index.v1+json";

/** The most pages of a referrers answer followed (`Link: <…>; rel="next"`). */
export const MAX_REFERRERS_PAGES = 8;

/** The nesting of a referrers index: index, `manifests`, descriptor, annotations, and slack. */
const REFERRERS_MAX_DEPTH = 8;

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

/**
 * Reads the referrers of `digest` in the reference's repository (see
 * `RegistryClient.getReferrers`); undefined when the registry has no referrers API (its first
 * page answers 404, 405 or 400).
 */
export async function readReferrers<T>(
  request: RegistryRequester,
  ref: ImageReference,
  digest: string,
  opts: ReferrersOptions<T>,
): Promise<Referrers<T> | undefined> {
  const action = "read referrers of";
  const subject = `${ref.domain}/${ref.path}@${digest}`;
  const target = { registry: ref.domain, repository: ref.path };
  if (!isDigest(digest)) failCall(action, subject, target, "invalid digest");
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
      failCall(action, subject, target, `more than ${MAX_REFERRERS_PAGES} pages of referrers`);
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
        failCall(
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
      failCall(action, subject, target, "the referrers answer is not JSON");
    }
    values += scanner.values;
    if (!Array.isArray(manifests)) {
      failCall(action, subject, target, "the referrers answer is not an image index");
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
