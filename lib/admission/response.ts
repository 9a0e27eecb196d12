/**
 * The AdmissionResponse for a decision: allowed or denied (403 with every reason, one a line),
 * the warnings, and the JSON patch in base64.
 *
 * @module
 */
import type { AdmissionDecision } from "./evaluate.ts";
import { type AdmissionResponse, base64Utf8 } from "./review.ts";

/** The most warnings sent (the API server truncates long lists anyway). */
export const MAX_WARNINGS = 32;

/** Builds the response for request `uid`. */
export function admissionResponse(uid: string, decision: AdmissionDecision): AdmissionResponse {
  const warnings = decision.warnings.slice(0, MAX_WARNINGS);
  const common = { uid, ...(warnings.length > 0 ? { warnings } : {}) };
  if (!decision.allowed) {
    return {
      ...common,
      allowed: false,
      status: { code: 403, reason: "Forbidden", message: decision.reasons.join("\n") },
    };
  }
  if (decision.patch.length === 0) return { ...common, allowed: true };
  return {
    ...common,
    allowed: true,
    patchType: "JSONPatch",
    patch: base64Utf8(JSON.stringify(decision.patch)),
  };
}

/** The response for a request that could not be evaluated at all: a denial, no details. */
export function internalErrorResponse(uid: string): AdmissionResponse {
  return {
    uid,
    allowed: false,
    status: {
      code: 500,
      reason: "InternalError",
      message:
        "policy denied the request: Cannot evaluate the request: internal error in the image policy webhook",
    },
  };
}
