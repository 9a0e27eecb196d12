import assert from "node:assert/strict";
import type { AuditedImage } from "./audited.ts";
import {
  buildPolicyReport,
  POLICY_REPORT_NAME,
  REPORTER_ANNOTATION,
  TRUNCATED_ANNOTATION,
  violations,
} from "./report.ts";

function image(
  name: string,
  verdict: AuditedImage["verdict"],
  extra: Partial<AuditedImage> = {},
): AuditedImage {
  return {
    namespace: "team",
    workload: { kind: "Deployment", name, uid: `uid-${name}` },
    container: "app",
    image: `reg/${name}:1`,
    verdict,
    message: verdict === "pass" ? "signed by signer" : "no valid signature",
    policy: "ClusterImagePolicy/default",
    ...extra,
  };
}

type Results = Array<Record<string, unknown> & { timestamp: { seconds: number } }>;
const resultsOf = (report: unknown) => (report as { results: Results }).results;

Deno.test("a report has one result per image per workload, sorted, with its summary", () => {
  const report = buildPolicyReport("team", [
    image("web", "fail"),
    image("api", "pass"),
    image("api", "warn", { container: "init:setup", image: "reg/setup:1" }),
    image("job", "error"),
  ], { nowMs: 1_700_000_000_500, reporter: "pod-a_1" });
  assert.equal(report.apiVersion, "wgpolicyk8s.io/v1alpha2");
  assert.equal(report.kind, "PolicyReport");
  assert.equal(report.metadata.name, POLICY_REPORT_NAME);
  assert.equal(report.metadata.namespace, "team");
  assert.equal(report.metadata.annotations?.[REPORTER_ANNOTATION], "pod-a_1");
  assert.deepEqual(report.summary, { pass: 1, fail: 1, warn: 1, error: 1, skip: 0 });
  const results = resultsOf(report);
  assert.deepEqual(results.map((r) => [r.result, r.properties]), [
    ["pass", { container: "app", image: "reg/api:1" }],
    ["warn", { container: "init:setup", image: "reg/setup:1" }],
    ["error", { container: "app", image: "reg/job:1" }],
    ["fail", { container: "app", image: "reg/web:1" }],
  ]);
  assert.deepEqual(results[3], {
    policy: "ClusterImagePolicy/default",
    rule: "verify-image-signatures",
    result: "fail",
    message: "no valid signature",
    source: "toolkit",
    timestamp: { seconds: 1_700_000_000, nanos: 0 },
    resources: [{
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "web",
      namespace: "team",
      uid: "uid-web",
    }],
    properties: { container: "app", image: "reg/web:1" },
  });
  assert.equal(violations([image("a", "fail"), image("b", "error"), image("c", "warn")]), 2);
});

Deno.test("an unchanged result keeps its time; a changed one takes the audit's", () => {
  const first = buildPolicyReport("team", [image("web", "pass"), image("api", "pass")], {
    nowMs: 1000_000,
    reporter: "a",
  });
  const second = buildPolicyReport("team", [image("web", "pass"), image("api", "fail")], {
    nowMs: 2000_000,
    reporter: "a",
    previous: first,
  });
  assert.deepEqual(resultsOf(second).map((r) => [r.properties, r.timestamp.seconds]), [
    [{ container: "app", image: "reg/api:1" }, 2000],
    [{ container: "app", image: "reg/web:1" }, 1000],
  ]);
  // The same audit again: the same object.
  const third = buildPolicyReport("team", [image("web", "pass"), image("api", "fail")], {
    nowMs: 3000_000,
    reporter: "a",
    previous: second,
  });
  assert.deepEqual(third, second);
});

Deno.test("a namespace with more results than a report holds keeps the denials first", () => {
  const images = [
    ...Array.from({ length: 5 }, (_, i) => image(`ok${i}`, "pass")),
    image("bad", "fail"),
  ];
  const report = buildPolicyReport("team", images, { nowMs: 0, reporter: "a", maxResults: 3 });
  const results = resultsOf(report);
  assert.equal(results.length, 3);
  assert.equal(results[0]!.result, "fail");
  assert.equal(report.metadata.annotations?.[TRUNCATED_ANNOTATION], "3");
  assert.deepEqual(report.summary, { pass: 5, fail: 1, warn: 0, error: 0, skip: 0 });
});
