/**
 * The parts of a registry API path that come from an image reference: the repository path and
 * the tag or digest, validated and escaped, so that no reference puts anything else in a URL;
 * and the error of a call refused before it is sent.
 *
 * @module
 */

import { formatReference, type ImageReference, isDigest } from "../image/mod.ts";
import { RegistryError, type RegistryErrorDetails } from "./errors.ts";

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^\w[\w.-]{0,127}$/;

/** Throws `Cannot <action> "<subject>": <detail>` as a {@linkcode RegistryError}. */
export function failCall(
  action: string,
  subject: string,
  details: RegistryErrorDetails,
  detail: string,
): never {
  throw new RegistryError(`Cannot ${action} "${subject}": ${detail}`, details);
}

/**
 * Validates and escapes a repository path for a URL.
 *
 * @throws {RegistryError} "invalid repository path".
 */
export function repositoryPath(ref: ImageReference, action: string): string {
  const subject = formatReference(ref);
  const components = ref.path.split("/");
  if (ref.path === "" || !components.every((c) => PATH_COMPONENT.test(c))) {
    failCall(
      action,
      subject,
      { registry: ref.domain, repository: ref.path },
      "invalid repository path",
    );
  }
  return components.map(encodeURIComponent).join("/");
}

/**
 * The tag or digest part of a manifest URL, validated and escaped (":" kept); `latest` when the
 * reference has neither.
 *
 * @throws {RegistryError} "invalid digest" or "invalid tag".
 */
export function manifestReference(ref: ImageReference, action: string): string {
  const subject = formatReference(ref);
  if (ref.digest !== undefined) {
    if (!isDigest(ref.digest)) {
      failCall(action, subject, { registry: ref.domain, repository: ref.path }, "invalid digest");
    }
    return ref.digest;
  }
  const tag = ref.tag ?? "latest";
  if (!TAG.test(tag)) {
    failCall(action, subject, { registry: ref.domain, repository: ref.path }, "invalid tag");
  }
  return encodeURIComponent(tag);
}
