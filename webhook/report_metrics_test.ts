import assert from "node:assert/strict";
import { ReportMetrics } from "./report_metrics.ts";

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
