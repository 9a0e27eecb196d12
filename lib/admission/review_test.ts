import assert from "node:assert/strict";
import { base64Utf8, InvalidAdmissionReviewError, parseAdmissionReview } from "./review.ts";

const request = {
  uid: "u-1",
  kind: { group: "apps", version: "v1", kind: "Deployment" },
  resource: { group: "apps", version: "v1", resource: "deployments" },
  namespace: "dev",
  name: "web",
  operation: "UPDATE",
  object: { spec: {} },
  oldObject: { spec: {} },
  dryRun: true,
};

Deno.test("parseAdmissionReview() reads an admission.k8s.io/v1 request", () => {
  const parsed = parseAdmissionReview({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request,
  });
  assert.equal(parsed.uid, "u-1");
  assert.equal(parsed.operation, "UPDATE");
  assert.equal(parsed.subResource, "");
  assert.equal(parsed.dryRun, true);
  assert.deepEqual(parsed.resource, { group: "apps", version: "v1", resource: "deployments" });
});

Deno.test("parseAdmissionReview() refuses other versions, missing uids and unknown operations", () => {
  const cases: unknown[] = [
    null,
    { apiVersion: "admission.k8s.io/v1beta1", kind: "AdmissionReview", request },
    { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" },
    {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: { ...request, uid: "" },
    },
    {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: { ...request, operation: "PATCH" },
    },
  ];
  for (const body of cases) {
    assert.throws(() => parseAdmissionReview(body), InvalidAdmissionReviewError);
  }
});

Deno.test("base64Utf8() encodes ASCII and UTF-8 text", () => {
  assert.equal(base64Utf8('[{"op":"replace"}]'), btoa('[{"op":"replace"}]'));
  assert.equal(base64Utf8("é"), "w6k=");
});
