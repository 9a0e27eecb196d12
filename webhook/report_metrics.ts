/**
 * The report controller's metrics (`lib/reports`), appended to the webhook's `/metrics`:
 *
 * | Metric | Type | Labels |
 * |---|---|---|
 * | `toolkit_audit_violations` | gauge | `namespace`: images that would be denied there now (`fail` and `error` results of its PolicyReport); only on the replica that leads |
 * | `toolkit_reports_scans_total` | counter | `trigger` (start, workloads, policies, resync), `outcome` (done, failed) |
 * | `toolkit_reports_writes_total` | counter | `outcome` (created, updated, unchanged, deleted, failed) |
 * | `toolkit_reports_registry_requests_total` | counter | |
 * | `toolkit_reports_registry_rate_waits_total` | counter | requests that waited for the rate bound |
 * | `toolkit_reports_leader` | gauge | 1 on the replica that holds the Lease, else 0 |
 * | `toolkit_reports_workload_copies_bytes` | gauge | estimated bytes of the workloads' copies held (0 on a standby) |
 * | `toolkit_reports_workload_copies_max_bytes` | gauge | their bound |
 * | `toolkit_reports_workload_copies` | gauge | copies held |
 * | `toolkit_reports_namespaces_over_bound` | gauge | namespaces not held, their report one `error` result |
 * | `toolkit_reports_workloads_not_kept_total` | counter | copies not held because of the bound |
 * | `toolkit_reports_verdict_memo_bytes` | gauge | estimated bytes of the verdicts the audits remember |
 * | `toolkit_reports_verdict_memo_max_bytes` | gauge | their bound |
 *
 * @module
 */
import type { AuditTrigger, ReportObserver, WorkloadCopyStats } from "../lib/reports/mod.ts";
import { labelValue } from "./metrics.ts";

const TRIGGERS: readonly AuditTrigger[] = ["start", "workloads", "policies", "resync"];
const OUTCOMES = ["created", "updated", "unchanged", "deleted", "failed"] as const;

/** The report controller's counts; {@linkcode render} writes them. */
export class ReportMetrics implements ReportObserver {
  readonly #scans = new Map<string, number>();
  readonly #writes = new Map<string, number>(OUTCOMES.map((o) => [o, 0]));
  readonly #violations = new Map<string, number>();
  #leading = false;
  /** Registry requests of the report audits. */
  registryRequests = 0;
  /** Reads how many registry requests waited for a token. */
  rateWaits: () => number = () => 0;
  /** Reads the bytes of the audits' remembered verdicts and their bound. */
  verdictMemo: () => { bytes: number; maxBytes: number } = () => ({ bytes: 0, maxBytes: 0 });
  #copies: (() => WorkloadCopyStats) | undefined;
  /** Copies not held by the controllers of earlier leadership terms. */
  #notKeptBefore = 0;
  #lastCopies: WorkloadCopyStats | undefined;

  copies(stats: () => WorkloadCopyStats): void {
    // A new term's controller: what the last one counted stays in the counter.
    if (this.#copies) this.#notKeptBefore += this.#copies().notKept;
    this.#copies = stats;
  }

  audited(trigger: AuditTrigger, outcome: "done" | "failed"): void {
    const key = `${trigger}|${outcome}`;
    this.#scans.set(key, (this.#scans.get(key) ?? 0) + 1);
  }

  violations(namespace: string, count: number): void {
    this.#violations.set(namespace, count);
  }

  removed(namespace: string): void {
    this.#violations.delete(namespace);
  }

  written(outcome: typeof OUTCOMES[number]): void {
    this.#writes.set(outcome, (this.#writes.get(outcome) ?? 0) + 1);
  }

  leading(leading: boolean): void {
    this.#leading = leading;
    // A standby says nothing of violations: the leader's gauges are the ones to read.
    if (!leading) this.#violations.clear();
  }

  /** The exposition lines. */
  render(): string[] {
    const lines = [
      "# HELP toolkit_audit_violations Running images that would be denied, per namespace (PolicyReports).",
      "# TYPE toolkit_audit_violations gauge",
      ...[...this.#violations].sort(([a], [b]) => a.localeCompare(b)).map(([ns, n]) =>
        `toolkit_audit_violations{namespace="${labelValue(ns)}"} ${n}`
      ),
      "# HELP toolkit_reports_scans_total Audits of the report controller, by trigger and outcome.",
      "# TYPE toolkit_reports_scans_total counter",
    ];
    for (const trigger of TRIGGERS) {
      for (const outcome of ["done", "failed"]) {
        lines.push(
          `toolkit_reports_scans_total{trigger="${trigger}",outcome="${outcome}"} ${
            this.#scans.get(`${trigger}|${outcome}`) ?? 0
          }`,
        );
      }
    }
    const copies = this.#leading && this.#copies ? this.#copies() : undefined;
    this.#lastCopies = copies ?? this.#lastCopies;
    const memo = this.verdictMemo();
    lines.push(
      "# HELP toolkit_reports_workload_copies_bytes Estimated bytes of the report controller's copies of the workloads (leader only).",
      "# TYPE toolkit_reports_workload_copies_bytes gauge",
      `toolkit_reports_workload_copies_bytes ${copies?.bytes ?? 0}`,
      "# HELP toolkit_reports_workload_copies_max_bytes The bound of those copies.",
      "# TYPE toolkit_reports_workload_copies_max_bytes gauge",
      `toolkit_reports_workload_copies_max_bytes ${
        copies?.maxBytes ?? this.#lastCopies?.maxBytes ?? 0
      }`,
      "# HELP toolkit_reports_workload_copies Copies of workloads held (leader only).",
      "# TYPE toolkit_reports_workload_copies gauge",
      `toolkit_reports_workload_copies ${copies?.copies ?? 0}`,
      "# HELP toolkit_reports_namespaces_over_bound Namespaces whose workloads the copies' bound left out (their report: one error result).",
      "# TYPE toolkit_reports_namespaces_over_bound gauge",
      `toolkit_reports_namespaces_over_bound ${copies?.refusedNamespaces ?? 0}`,
      "# HELP toolkit_reports_workloads_not_kept_total Copies of workloads not held because of the bound.",
      "# TYPE toolkit_reports_workloads_not_kept_total counter",
      `toolkit_reports_workloads_not_kept_total ${
        this.#notKeptBefore + (this.#copies?.().notKept ?? 0)
      }`,
      "# HELP toolkit_reports_verdict_memo_bytes Estimated bytes of the verdicts the report audits remember.",
      "# TYPE toolkit_reports_verdict_memo_bytes gauge",
      `toolkit_reports_verdict_memo_bytes ${memo.bytes}`,
      "# HELP toolkit_reports_verdict_memo_max_bytes The bound of those verdicts.",
      "# TYPE toolkit_reports_verdict_memo_max_bytes gauge",
      `toolkit_reports_verdict_memo_max_bytes ${memo.maxBytes}`,
      "# HELP toolkit_reports_writes_total PolicyReport writes, by outcome.",
      "# TYPE toolkit_reports_writes_total counter",
      ...OUTCOMES.map((o) => `toolkit_reports_writes_total{outcome="${o}"} ${this.#writes.get(o)}`),
      "# HELP toolkit_reports_registry_requests_total Registry requests of the report audits.",
      "# TYPE toolkit_reports_registry_requests_total counter",
      `toolkit_reports_registry_requests_total ${this.registryRequests}`,
      "# HELP toolkit_reports_registry_rate_waits_total Report registry requests that waited for the rate bound.",
      "# TYPE toolkit_reports_registry_rate_waits_total counter",
      `toolkit_reports_registry_rate_waits_total ${this.rateWaits()}`,
      "# HELP toolkit_reports_leader Whether this replica holds the report Lease (1) or not (0).",
      "# TYPE toolkit_reports_leader gauge",
      `toolkit_reports_leader ${this.#leading ? 1 : 0}`,
    );
    return lines;
  }
}
