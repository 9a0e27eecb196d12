/**
 * The `admission.k8s.io/v1` AdmissionReview: the request the API server sends, read strictly
 * enough that nothing is guessed, and the response sent back.
 *
 * @module
 */
import { ToolkitError } from "../errors.ts";
import { encodeBase64 } from "../base64.ts";

/** `group`/`version`/`kind` of the object under review. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** `group`/`version`/`resource` the request was made to. */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** The operations a webhook sees. */
export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** The parts of `AdmissionReview.request` toolkit reads. */
export interface AdmissionRequest {
  /** Echoed in the response. */
  readonly uid: string;
  /** The kind of `object`. */
  readonly kind: GroupVersionKind;
  /** The resource the request was made to. */
  readonly resource: GroupVersionResource;
  /** `ephemeralcontainers`, `status`, `scale`, …; "" for the main resource. */
  readonly subResource: string;
  /** The object's name (empty on CREATE with `generateName`). */
  readonly name: string;
  /** The namespace ("" for cluster-scoped objects). */
  readonly namespace: string;
  /** What is being done. */
  readonly operation: AdmissionOperation;
  /** The object after the operation. */
  readonly object: unknown;
  /** The object before an UPDATE. */
  readonly oldObject: unknown;
  /** Whether the request is a dry run (no side effects such as Events). */
  readonly dryRun: boolean;
}

/** One RFC 6902 operation. toolkit only replaces image fields. */
export interface JsonPatchOperation {
  readonly op: "replace";
  /** A JSON pointer: `/spec/template/spec/containers/0/image`. */
  readonly path: string;
  readonly value: string;
}

/** What the webhook answers. */
export interface AdmissionResponse {
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: { readonly code: number; readonly message: string; readonly reason?: string };
  readonly warnings?: readonly string[];
  readonly patchType?: "JSONPatch";
  /** Base64 of the JSON patch. */
  readonly patch?: string;
}

/** A body that is not an `admission.k8s.io/v1` AdmissionReview with a request. */
export class InvalidAdmissionReviewError extends ToolkitError {
  /** Creates the error; `detail` says what is wrong. */
  constructor(detail: string, options?: ErrorOptions) {
    super(`Cannot read AdmissionReview: ${detail}`, options);
    this.name = "InvalidAdmissionReviewError";
  }
}

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function str(o: Obj, key: string): string {
  const v = o[key];
  return typeof v === "string" ? v : "";
}

const OPERATIONS: readonly string[] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

/**
 * Reads a parsed AdmissionReview body.
 *
 * @throws {InvalidAdmissionReviewError} when it is not an `admission.k8s.io/v1`
 * AdmissionReview with a request that has a uid, a kind, a resource and an operation.
 */
export function parseAdmissionReview(body: unknown): AdmissionRequest {
  if (!isObject(body)) throw new InvalidAdmissionReviewError("the body is not a JSON object");
  if (body.apiVersion !== "admission.k8s.io/v1" || body.kind !== "AdmissionReview") {
    throw new InvalidAdmissionReviewError(
      `expected apiVersion "admission.k8s.io/v1" and kind "AdmissionReview", got "${
        String(body.apiVersion)
      }" and "${String(body.kind)}"`,
    );
  }
  const request = body.request;
  if (!isObject(request)) throw new InvalidAdmissionReviewError("there is no request");
  const uid = str(request, "uid");
  if (uid === "") throw new InvalidAdmissionReviewError("request.uid is missing");
  const kind = request.kind;
  const resource = request.resource;
  if (!isObject(kind) || !isObject(resource)) {
    throw new InvalidAdmissionReviewError("request.kind or request.resource is missing");
  }
  const operation = str(request, "operation");
  if (!OPERATIONS.includes(operation)) {
    throw new InvalidAdmissionReviewError(`request.operation "${operation}" is not known`);
  }
  return {
    uid,
    kind: { group: str(kind, "group"), version: str(kind, "version"), kind: str(kind, "kind") },
    resource: {
      group: str(resource, "group"),
      version: str(resource, "version"),
      resource: str(resource, "resource"),
    },
    subResource: str(request, "subResource"),
    name: str(request, "name"),
    namespace: str(request, "namespace"),
    operation: operation as AdmissionOperation,
    object: request.object,
    oldObject: request.oldObject,
    dryRun: request.dryRun === true,
  };
}

/** Wraps a response into the AdmissionReview the API server expects. */
export function admissionReviewResponse(response: AdmissionResponse): Record<string, unknown> {
  return { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response };
}

/** Base64 of a UTF-8 string. */
export function base64Utf8(text: string): string {
  return encodeBase64(text);
}
