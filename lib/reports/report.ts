/**
 * One namespace's PolicyReport (`wgpolicyk8s.io/v1alpha2`) from the audit of its workloads: one
 * result per image per workload (every container, init and ephemeral container and image volume
 * the audit found), sorted so that the same audit writes the same object, with the summary
 * counts. A result whose verdict and message did not change keeps its `timestamp`, so a resync
 * that finds nothing new changes nothing (the server-side apply leaves the object as it was).
 *
 * @module
 */
import { type AuditedImage, denied } from "./audited.ts";
import type { KubeObject } from "../kube/mod.ts";

/** The name of toolkit's PolicyReport in each namespace. */
export const POLICY_REPORT_NAME = "toolkit-image-policy";

/** The annotation naming the replica that wrote the report (its Lease identity). */
export const REPORTER_ANNOTATION = "toolkit.dev/reporter";

/** The annotation set when a namespace had more results than a report holds. */
export const TRUNCATED_ANNOTATION = "toolkit.dev/results-truncated";

/** The `source` of every result. */
export const REPORT_SOURCE = "toolkit";

/** The `rule` of every result: the image verification of the policy that decided. */
export const REPORT_RULE = "verify-image-signatures";

/**
 * The most results one report holds: about 1 KB each, the object stays well under the API
 * server's request limit (3 MiB) and etcd's value limit (1.5 MiB). The summary still counts every
 * image; the report then carries {@linkcode TRUNCATED_ANNOTATION} with the number left out.
 */
export const MAX_REPORT_RESULTS = 1000;

/** The labels of toolkit's reports. */
export const REPORT_LABELS: Readonly<Record<string, string>> = {
  "app.kubernetes.io/managed-by": "toolkit",
  "app.kubernetes.io/part-of": "toolkit",
};

/** The `apiVersion` of each kind the audit reads. */
const API_VERSIONS: Readonly<Record<string, string>> = {
  Pod: "v1",
  Deployment: "apps/v1",
  ReplicaSet: "apps/v1",
  StatefulSet: "apps/v1",
  DaemonSet: "apps/v1",
  Job: "batch/v1",
  CronJob: "batch/v1",
};

/** A result of a PolicyReport (the fields toolkit writes). */
export interface ReportResult {
  policy: string;
  rule: string;
  result: "pass" | "fail" | "warn" | "error";
  message: string;
  source: string;
  timestamp: { seconds: number; nanos: number };
  resources: Array<{
    apiVersion: string;
    kind: string;
    name: string;
    namespace: string;
    uid?: string;
  }>;
  properties: Record<string, string>;
}

/** The summary counts of a PolicyReport. */
export interface ReportSummary {
  pass: number;
  fail: number;
  warn: number;
  error: number;
  skip: number;
}

/** The identity of a result across audits: workload, container, image. */
function resultKey(result: Pick<ReportResult, "resources" | "properties">): string {
  const r = result.resources[0];
  return [
    r?.kind,
    r?.name,
    r?.uid ?? "",
    result.properties.container,
    result.properties.image,
  ].join("\u0000");
}

/** How many images would be denied: `fail` and `error` verdicts. */
export function violations(images: readonly Pick<AuditedImage, "verdict">[]): number {
  return images.filter(denied).length;
}

/** One result of an audited image. */
export function reportResult(image: AuditedImage, nowMs: number): ReportResult {
  const { kind, name, uid } = image.workload;
  return {
    policy: image.policy ?? "none",
    rule: REPORT_RULE,
    result: image.verdict,
    message: image.message,
    source: REPORT_SOURCE,
    timestamp: { seconds: Math.floor(nowMs / 1000), nanos: 0 },
    resources: [{
      apiVersion: API_VERSIONS[kind] ?? "v1",
      kind,
      name,
      namespace: image.namespace,
      ...(uid ? { uid } : {}),
    }],
    properties: {
      container: image.container,
      image: image.image,
      ...(image.digest ? { digest: image.digest } : {}),
    },
  };
}

/** What to build a report with. */
export interface BuildReportOptions {
  /** The time of this audit, in ms. */
  readonly nowMs: number;
  /** The replica writing it (its Lease identity). */
  readonly reporter: string;
  /** The report as written before, when there is one: its unchanged results keep their time. */
  readonly previous?: KubeObject | undefined;
  /** The most results kept. @default {@linkcode MAX_REPORT_RESULTS} */
  readonly maxResults?: number;
}

/** Results in report order: by workload, container and image. */
function byKey(a: ReportResult, b: ReportResult): number {
  const ka = resultKey(a);
  const kb = resultKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** Denials first, then by key: which results a full report keeps. */
function keptFirst(a: ReportResult, b: ReportResult): number {
  const pa = a.result === "pass" ? 1 : 0;
  const pb = b.result === "pass" ? 1 : 0;
  return pa - pb || byKey(a, b);
}

/**
 * One namespace's report, built as its audit goes: every image is counted in the summary, and at
 * most `maxResults` results are held at any time (denials first, then by workload, container and
 * image), so that what building a report holds is bounded whatever the namespace runs.
 */
export class ReportBuilder {
  readonly #namespace: string;
  readonly #options: BuildReportOptions;
  readonly #max: number;
  /** The results kept, in {@linkcode keptFirst} order. */
  readonly #kept: ReportResult[] = [];
  readonly #summary: ReportSummary = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  #total = 0;

  /** A report of `namespace`; `options.previous` is read at {@linkcode build}. */
  constructor(namespace: string, options: Omit<BuildReportOptions, "previous">) {
    this.#namespace = namespace;
    this.#options = options;
    this.#max = options.maxResults ?? MAX_REPORT_RESULTS;
  }

  /** Images counted so far. */
  get total(): number {
    return this.#total;
  }

  /** The summary counts so far. */
  get summary(): Readonly<ReportSummary> {
    return this.#summary;
  }

  /** Counts `images`, keeping their results while they are among the first `maxResults`. */
  add(images: readonly AuditedImage[]): void {
    for (const image of images) {
      this.#summary[image.verdict]++;
      this.#total++;
      const result = reportResult(image, this.#options.nowMs);
      const kept = this.#kept;
      if (kept.length >= this.#max && keptFirst(result, kept[kept.length - 1]!) >= 0) continue;
      // Binary search of its place: at most maxResults held, each insertion O(maxResults).
      let low = 0;
      let high = kept.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (keptFirst(kept[mid]!, result) <= 0) low = mid + 1;
        else high = mid;
      }
      kept.splice(low, 0, result);
      if (kept.length > this.#max) kept.pop();
    }
  }

  /**
   * The PolicyReport: the kept results (by key when every result fits, else denials first),
   * unchanged ones keeping the time of `previous`'s.
   */
  build(previous?: KubeObject): KubeObject {
    const before = new Map<string, ReportResult>();
    const previousResults = (previous as { results?: unknown } | undefined)?.results;
    if (Array.isArray(previousResults)) {
      for (const r of previousResults as ReportResult[]) {
        if (Array.isArray(r?.resources) && r.properties) before.set(resultKey(r), r);
      }
    }
    const results = this.#kept.map((r) => {
      const old = before.get(resultKey(r));
      return old && old.result === r.result && old.message === r.message && old.timestamp
        ? { ...r, timestamp: old.timestamp }
        : r;
    });
    if (this.#total <= this.#max) results.sort(byKey);
    return {
      apiVersion: "wgpolicyk8s.io/v1alpha2",
      kind: "PolicyReport",
      metadata: {
        name: POLICY_REPORT_NAME,
        namespace: this.#namespace,
        labels: { ...REPORT_LABELS },
        annotations: {
          [REPORTER_ANNOTATION]: this.#options.reporter,
          ...(results.length < this.#total
            ? { [TRUNCATED_ANNOTATION]: String(this.#total - results.length) }
            : {}),
        },
      },
      summary: { ...this.#summary },
      results,
    };
  }
}

/** The PolicyReport of `namespace` from the audit of its workloads (`images`). */
export function buildPolicyReport(
  namespace: string,
  images: readonly AuditedImage[],
  options: BuildReportOptions,
): KubeObject {
  const builder = new ReportBuilder(namespace, options);
  builder.add(images);
  return builder.build(options.previous);
}
