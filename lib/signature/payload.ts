/**
 * The JSON payload of a simple-signing ("atomic container signature") signature:
 *
 * ```json
 * {"critical":{"identity":{"docker-reference":"docker.io/library/nginx:1"},
 *              "image":{"docker-manifest-digest":"sha256:…"},
 *              "type":"atomic container signature"},
 *  "optional":{"creator":"toolkit 0.1.0","timestamp":1700000000}}
 * ```
 *
 * Parsing is strict, as in containers/image: unknown or duplicated members of `critical` and its
 * objects are rejected, types are checked, and members of `optional` other than `creator` and
 * `timestamp` are ignored.
 *
 * @module
 */

import { ToolkitError } from "../errors.ts";
import { isDigest } from "../image/mod.ts";
import { VERSION } from "../version.ts";
import { type JsonValue, parseStrictJson } from "./_strict_json.ts";

/** The value of `critical.type` in every simple-signing payload. */
export const SIGNATURE_TYPE = "atomic container signature";

/** The content of a simple-signing payload. */
export interface SignaturePayload {
  /** `critical.identity.docker-reference`: the reference the signer vouches for. */
  readonly dockerReference: string;
  /** `critical.image.docker-manifest-digest`: the digest of the signed manifest. */
  readonly manifestDigest: string;
  /** `optional.creator`, when present: the tool that made the signature. */
  readonly creator?: string | undefined;
  /** `optional.timestamp`, when present: when the signature was made, in Unix seconds. */
  readonly timestamp?: number | undefined;
}

/** A payload that cannot be created or parsed. */
export class InvalidPayloadError extends ToolkitError {
  /** What is wrong, without the "Cannot …" prefix: `unknown member "x" in critical`. */
  readonly detail: string;

  /** Creates the error with its full message and the short `detail`. */
  constructor(message: string, detail: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "InvalidPayloadError";
    this.detail = detail;
  }
}

/** The error for a payload that cannot be parsed. */
function invalid(detail: string, options?: ErrorOptions): InvalidPayloadError {
  return new InvalidPayloadError(`Cannot parse the signature payload: ${detail}`, detail, options);
}

/** Options of {@linkcode createPayload}. */
export interface CreatePayloadOptions {
  /** The reference to vouch for, fully qualified (`docker.io/library/nginx:1`). */
  dockerReference: string;
  /** The manifest digest (`sha256:<64 hex>`). */
  manifestDigest: string;
  /** The clock that gives the timestamp. @default `() => new Date()` */
  clock?: () => Date;
}

/**
 * Returns the payload toolkit signs: the given identity and digest, with `creator` set to
 * `toolkit <version>` and `timestamp` to the clock's time in whole Unix seconds.
 *
 * @throws {InvalidPayloadError} when the reference is empty or the digest is not a
 * supported digest.
 */
export function createPayload(options: CreatePayloadOptions): SignaturePayload {
  const { dockerReference, manifestDigest } = options;
  if (typeof dockerReference !== "string" || dockerReference === "") {
    throw new InvalidPayloadError(
      `Cannot create a signature payload for "${String(dockerReference)}": the reference is empty`,
      "the reference is empty",
    );
  }
  if (!isDigest(manifestDigest)) {
    const detail = `"${String(manifestDigest)}" is not a manifest digest (sha256:<64 hex>)`;
    throw new InvalidPayloadError(
      `Cannot create a signature payload for "${dockerReference}": ${detail}`,
      detail,
    );
  }
  const now = (options.clock ?? (() => new Date()))();
  return {
    dockerReference,
    manifestDigest,
    creator: `toolkit ${VERSION}`,
    timestamp: Math.floor(now.getTime() / 1000),
  };
}

/**
 * Serialises a payload as compact JSON in UTF-8, with the members in the order containers/image
 * writes them. `creator` and `timestamp` are written only when present.
 */
export function encodePayload(payload: SignaturePayload): Uint8Array {
  const optional: { creator?: string; timestamp?: number } = {};
  if (payload.creator !== undefined) optional.creator = payload.creator;
  if (payload.timestamp !== undefined) optional.timestamp = payload.timestamp;
  const document = {
    critical: {
      identity: { "docker-reference": payload.dockerReference },
      image: { "docker-manifest-digest": payload.manifestDigest },
      type: SIGNATURE_TYPE,
    },
    optional,
  };
  return new TextEncoder().encode(JSON.stringify(document));
}

type JsonObject = { [key: string]: JsonValue };

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Checks that `value` is an object with exactly the members `keys`, and returns it. */
function exactObject(value: JsonValue | undefined, where: string, keys: string[]): JsonObject {
  if (!isObject(value)) throw invalid(`${where} is not a JSON object`);
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) throw invalid(`unknown member "${key}" in ${where}`);
  }
  for (const key of keys) {
    if (!Object.hasOwn(value, key)) throw invalid(`missing member "${key}" in ${where}`);
  }
  return value;
}

function stringMember(object: JsonObject, key: string, where: string): string {
  const value = object[key];
  if (typeof value !== "string") throw invalid(`${where}.${key} is not a string`);
  return value;
}

/** Options of {@linkcode parsePayload}. */
export interface ParsePayloadOptions {
  /**
   * The `critical.type` expected. {@linkcode SIGNATURE_TYPE} (the default) reads `optional` as
   * described above; another type (cosign's legacy payload, `cosign container image signature`)
   * has the same `critical` part, and its `optional` (the signer's annotations, or `null`) is
   * checked to be an object or null and not read.
   * @default SIGNATURE_TYPE
   */
  readonly type?: string;
}

/**
 * Parses a signed payload strictly, in the manner of containers/image (`signature/simple.go`):
 * the top level has exactly `critical` and `optional`; `critical` exactly `type`, `image` and
 * `identity`; `image` exactly `docker-manifest-digest`; `identity` exactly `docker-reference`;
 * `type` must be `atomic container signature`; the digest must be a supported digest;
 * `optional.creator` must be a string and `optional.timestamp` an integer when present, other
 * members of `optional` are ignored. Duplicated keys anywhere are rejected. Bytes must be UTF-8.
 *
 * @throws {InvalidPayloadError} with a short description of the first problem found.
 */
export function parsePayload(
  data: Uint8Array | string,
  options: ParsePayloadOptions = {},
): SignaturePayload {
  const expectedType = options.type ?? SIGNATURE_TYPE;
  let text: string;
  if (typeof data === "string") {
    text = data;
  } else {
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(data);
    } catch (error) {
      throw invalid("payload is not UTF-8 text", { cause: error });
    }
  }
  let document: JsonValue;
  try {
    document = parseStrictJson(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw invalid(`payload is not valid JSON: ${detail}`, { cause: error });
  }
  const top = exactObject(document, "payload", ["critical", "optional"]);
  const critical = exactObject(top.critical, "critical", ["type", "image", "identity"]);
  const annotationsOnly = expectedType !== SIGNATURE_TYPE;
  if (!isObject(top.optional) && !(annotationsOnly && top.optional === null)) {
    throw invalid("optional is not a JSON object");
  }
  // What is read of `optional`: nothing when it holds only the signer's annotations.
  const optional: JsonObject = annotationsOnly || !isObject(top.optional) ? {} : top.optional;

  let creator: string | undefined;
  if (Object.hasOwn(optional, "creator")) creator = stringMember(optional, "creator", "optional");
  let timestamp: number | undefined;
  if (Object.hasOwn(optional, "timestamp")) {
    const value = optional.timestamp;
    if (typeof value !== "number" || !Number.isSafeInteger(value)) {
      throw invalid("optional.timestamp is not an integer");
    }
    timestamp = value;
  }

  const type = stringMember(critical, "type", "critical");
  if (type !== expectedType) {
    throw invalid(`unrecognised signature type ${JSON.stringify(type)}`);
  }
  const image = exactObject(critical.image, "critical.image", ["docker-manifest-digest"]);
  const manifestDigest = stringMember(image, "docker-manifest-digest", "critical.image");
  if (!isDigest(manifestDigest)) {
    throw invalid(
      `critical.image.docker-manifest-digest ${JSON.stringify(manifestDigest)} is not a digest`,
    );
  }
  const identity = exactObject(critical.identity, "critical.identity", ["docker-reference"]);
  const dockerReference = stringMember(identity, "docker-reference", "critical.identity");

  const payload: {
    dockerReference: string;
    manifestDigest: string;
    creator?: string;
    timestamp?: number;
  } = { dockerReference, manifestDigest };
  if (creator !== undefined) payload.creator = creator;
  if (timestamp !== undefined) payload.timestamp = timestamp;
  return payload;
}
