/**
 * Blobs by digest (`GET /v2/<name>/blobs/<digest>`): at most the bytes the caller allows (the
 * descriptor's size it has checked), their digest verified. Redirects to storage elsewhere are
 * followed by the transport without the registry's credentials.
 *
 * @module
 */

import { type ImageReference, isDigest } from "../image/mod.ts";
import type { RegistryRequester, RequestOptions } from "./client_types.ts";
import { checkDigest } from "./digest.ts";
import { registryErrorFromResponse } from "./error_answer.ts";
import { DigestMismatchError } from "./errors.ts";
import { failCall, repositoryPath } from "./repository_path.ts";

/** Reads one blob of the reference's repository (see `RegistryClient.getBlob`). */
export async function readBlob(
  request: RegistryRequester,
  ref: ImageReference,
  digest: string,
  opts: RequestOptions & { readonly maxBytes: number },
): Promise<Uint8Array> {
  const action = "read blob of";
  const subject = `${ref.domain}/${ref.path}@${digest}`;
  const target = { registry: ref.domain, repository: ref.path };
  if (!isDigest(digest)) failCall(action, subject, target, "invalid digest");
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
