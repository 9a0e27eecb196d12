import assert from "node:assert/strict";
import type { AdmissionDecision } from "./evaluate.ts";
import { admissionResponse, internalErrorResponse } from "./response.ts";

const base: AdmissionDecision = {
  allowed: true,
  outcome: "allow",
  kind: "Pod",
  reasons: [],
  warnings: [],
  patch: [],
  sites: [],
};

Deno.test("admissionResponse() allows without a patch when nothing changes", () => {
  assert.deepEqual(admissionResponse("u", base), { uid: "u", allowed: true });
});

Deno.test("admissionResponse() sends the patch in base64 with its type", () => {
  const patch = [{ op: "replace" as const, path: "/spec/containers/0/image", value: "x@sha256:1" }];
  const response = admissionResponse("u", { ...base, patch, warnings: ["careful"] });
  assert.equal(response.patchType, "JSONPatch");
  assert.deepEqual(JSON.parse(atob(response.patch!)), patch);
  assert.deepEqual(response.warnings, ["careful"]);
});

Deno.test("admissionResponse() denies with 403 and every reason on its own line", () => {
  const response = admissionResponse("u", {
    ...base,
    allowed: false,
    outcome: "deny",
    reasons: ["policy denied the request: a", "policy denied the request: b"],
  });
  assert.equal(response.allowed, false);
  assert.deepEqual(response.status, {
    code: 403,
    reason: "Forbidden",
    message: "policy denied the request: a\npolicy denied the request: b",
  });
  assert.equal(response.patch, undefined);
});

Deno.test("internalErrorResponse() denies without details", () => {
  const response = internalErrorResponse("u");
  assert.equal(response.allowed, false);
  assert.match(response.status!.message, /^policy denied the request: /);
});
