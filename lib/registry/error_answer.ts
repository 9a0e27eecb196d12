/**
 * What a registry's failure says, in toolkit's words: the distribution spec's JSON error list of
 * an answer that is not a success, and the detail of a transport failure, each made into a
 * {@linkcode RegistryError} that names the action and its subject.
 *
 * @module
 */

import { safeExcerpt } from "../errors.ts";
import { parseJsonWithin } from "../json_shape.ts";
import type { RegistryResponse } from "./client_types.ts";
import { RegistryError, ResponseTooLargeError, TransportError } from "./errors.ts";

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
export function transportFailureDetail(error: unknown): string {
  if (error instanceof TransportError || error instanceof ResponseTooLargeError) {
    return error.detail;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Whether {@link transportFailureDetail} of `error` says all its message says. */
export function detailTellsCause(error: unknown): boolean {
  return error instanceof TransportError || error instanceof ResponseTooLargeError;
}
