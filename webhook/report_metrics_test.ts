import assert from "node:assert/strict";
import { ReportMetrics } from "./report_metrics.ts";
import type { KubeObject } from "../lib/kube/mod.ts";
import {
  copyBytes,
  MAX_REFUSED_NAMESPACES,
  NAMESPACE_OVERHEAD_BYTES,
  WorkloadCopies,
} from "../lib/reports/mod.ts";

Deno.test("the report metrics: violations per namespace, scans, writes, registry requests", () => {
  const metrics = new ReportMetrics();
  metrics.leading(true);
  metrics.audited("start", "done");
  metrics.audited("resync", "failed");
  metrics.violations("team", 2);
  metrics.violations('we"ird', 0);
  metrics.written("created");
  metrics.registryRequests = 7;
  metrics.rateWaits = () => 3;
  const text = metrics.render().join("\n");
  assert.match(text, /^toolkit_audit_violations\{namespace="team"\} 2$/m);
  assert.match(text, /^toolkit_audit_violations\{namespace="we\\"ird"\} 0$/m);
  assert.match(text, /^toolkit_reports_scans_total\{trigger="start",outcome="done"\} 1$/m);
  assert.match(text, /^toolkit_reports_scans_total\{trigger="resync",outcome="failed"\} 1$/m);
  assert.match(text, /^toolkit_reports_writes_total\{outcome="created"\} 1$/m);
  assert.match(text, /^toolkit_reports_registry_requests_total 7$/m);
  assert.match(text, /^toolkit_reports_registry_rate_waits_total 3$/m);
  assert.match(text, /^toolkit_reports_leader 1$/m);
  // A namespace whose report went, and a replica that stops leading, say nothing of violations.
  metrics.removed("team");
  assert.doesNotMatch(metrics.render().join("\n"), /namespace="team"/);
  metrics.leading(false);
  const standby = metrics.render().join("\n");
  assert.doesNotMatch(standby, /^toolkit_audit_violations\{/m);
  assert.match(standby, /^toolkit_reports_leader 0$/m);
});

Deno.test("the report metrics: the copies' bytes, their bound, refused namespaces, copies not kept, the verdict memo", () => {
  const metrics = new ReportMetrics();
  const pod = (namespace: string, name: string): KubeObject => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, uid: `uid-${namespace}-${name}` },
    spec: { containers: [{ name: "app", image: "reg/app:1" }] },
  });
  const one = copyBytes(pod("a", "p0"));
  const maxBytes = MAX_REFUSED_NAMESPACES * NAMESPACE_OVERHEAD_BYTES + 3 * one +
    NAMESPACE_OVERHEAD_BYTES;
  const copies = new WorkloadCopies(maxBytes, () => {});
  metrics.leading(true);
  metrics.copies(() => copies.stats());
  metrics.verdictMemo = () => ({ bytes: 1234, maxBytes: 8 * 1024 * 1024 });
  for (let i = 0; i < 3; i++) assert.ok(copies.admit(pod("a", `p${i}`)));
  assert.equal(copies.admit(pod("b", "p0")), undefined);
  assert.equal(copies.admit(pod("b", "p1")), undefined);
  const text = metrics.render().join("\n");
  assert.match(text, new RegExp(`^toolkit_reports_workload_copies_bytes ${copies.bytes}$`, "m"));
  assert.match(text, new RegExp(`^toolkit_reports_workload_copies_max_bytes ${maxBytes}$`, "m"));
  assert.match(text, /^toolkit_reports_workload_copies 3$/m);
  assert.match(text, /^toolkit_reports_namespaces_over_bound 1$/m);
  assert.match(text, /^toolkit_reports_workloads_not_kept_total 2$/m);
  assert.match(text, /^toolkit_reports_verdict_memo_bytes 1234$/m);
  assert.match(text, /^toolkit_reports_verdict_memo_max_bytes 8388608$/m);
  assert.ok(copies.bytes <= maxBytes);
  // A standby holds no copies; what was not kept stays counted across terms.
  metrics.leading(false);
  const standby = metrics.render().join("\n");
  assert.match(standby, /^toolkit_reports_workload_copies_bytes 0$/m);
  assert.match(standby, /^toolkit_reports_workloads_not_kept_total 2$/m);
  const next = new WorkloadCopies(maxBytes, () => {});
  metrics.copies(() => next.stats());
  metrics.leading(true);
  assert.match(metrics.render().join("\n"), /^toolkit_reports_workloads_not_kept_total 2$/m);
});
