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
  // Built field by field, without spreads: this runs for every review.
  const response: { -readonly [K in keyof AdmissionResponse]: AdmissionResponse[K] } = {
    uid,
    allowed: decision.allowed,
  };
  if (decision.warnings.length > 0) {
    response.warnings = decision.warnings.length > MAX_WARNINGS
      ? decision.warnings.slice(0, MAX_WARNINGS)
      : decision.warnings;
  }
  if (!decision.allowed) {
    response.status = { code: 403, reason: "Forbidden", message: decision.reasons.join("\n") };
  } else if (decision.patch.length > 0) {
    response.patchType = "JSONPatch";
    response.patch = base64Utf8(JSON.stringify(decision.patch));
  }
  return response;
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
