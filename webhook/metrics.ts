/**
 * The webhook's Prometheus metrics, in the text exposition format (written by hand: no
 * dependency). Portieris's two counters are kept under their names so its dashboards work.
 *
 * | Metric | Type | Labels |
 * |---|---|---|
 * | `toolkit_admission_reviews_total` | counter | `decision` (allow, deny, warn, exempt, skip, error), `cause` (policy, error) |
 * | `toolkit_admission_review_duration_seconds` | histogram | |
 * | `toolkit_admission_verdict_cache_hits_total` | counter | |
 * | `toolkit_admission_verdict_cache_misses_total` | counter | |
 * | `toolkit_admission_registry_errors_total` | counter | |
 * | `toolkit_admission_verification_errors_total` | counter | `kind` (registry, timeout, config, source, capacity) |
 * | `toolkit_admission_tls_reloads_total` | counter | |
 * | `toolkit_admission_serving_certificate_expiry_timestamp_seconds` | gauge | |
 * | `toolkit_admission_key_secret_expiry_timestamp_seconds` | gauge | `object_namespace`, `object_name` |
 * | `toolkit_admission_trust_root_expiry_timestamp_seconds` | gauge | `kind`, `object_namespace`, `object_name` |
 * | `toolkit_admission_ready` | gauge | |
 * | `toolkit_admission_cache_entries`, `toolkit_admission_cache_bytes` | gauge | `cache` |
 * | `toolkit_admission_cache_max_entries`, `toolkit_admission_cache_max_bytes` | gauge | `cache` |
 * | `toolkit_admission_limit` | gauge | `limit` (images_per_review, verifications_in_flight, …) |
 * | `toolkit_admission_verifications_in_flight`, `…_waiting` | gauge | |
 * | `toolkit_admission_read_pool_bytes` | gauge | `state` (reserved, peak, capacity) |
 * | `toolkit_admission_read_pool_waiting` | gauge | |
 * | `toolkit_admission_event_loop_max_stall_seconds`, `…_max_busy_stall_seconds` | gauge | |
 * | `toolkit_admission_event_loop_stalls_total` | counter | `over` (10ms, 50ms, 100ms, 500ms) |
 * | `process_resident_memory_bytes`, `deno_heap_used_bytes` | gauge | |
 * | `portieris_pod_admission_decision_allow_count` | counter | |
 * | `portieris_pod_admission_decision_deny_count` | counter | |
 *
 * With `--policy-reports`, the report controller's (`report_metrics.ts`) follow: among them
 * `toolkit_audit_violations{namespace}`, `toolkit_reports_scans_total`,
 * `toolkit_reports_registry_requests_total`.
 *
 * The objects of the expiry gauges are named by `object_namespace` and `object_name`: Prometheus's
 * target labels take `namespace` (the webhook's own), which a scraped label would lose to.
 *
 * @module
 */
import type { MemoryPoolStats } from "../lib/read_budget.ts";
import type { DenialCause, TrustExpiry, VerificationErrorKind } from "../lib/admission/mod.ts";
import type { BodyPoolStats } from "./body_pool.ts";
import { type EventLoopStalls, STALL_THRESHOLDS_MS } from "./event_loop_monitor.ts";

/** Upper bounds of the latency histogram, in seconds. */
export const LATENCY_BUCKETS = [
  0.0005,
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
] as const;

/** The decisions counted. */
export const DECISIONS = ["allow", "deny", "warn", "exempt", "skip", "error"] as const;

/** A decision label. */
export type DecisionLabel = typeof DECISIONS[number];

/**
 * The causes each decision is counted under: `error` when a failure (a registry, a key Secret,
 * the time budget, the webhook itself) rather than the policy decided — for `deny` and `error`
 * the webhook failed closed; for `warn`, warn mode admitted what enforce mode would deny so.
 */
const CAUSES: Readonly<Record<DecisionLabel, readonly DenialCause[]>> = {
  allow: ["policy"],
  deny: ["policy", "error"],
  warn: ["policy", "error"],
  exempt: ["policy"],
  skip: ["policy"],
  error: ["error"],
};

/** The kinds of verification errors counted. */
export const VERIFICATION_ERROR_KINDS: readonly VerificationErrorKind[] = [
  "registry",
  "timeout",
  "config",
  "source",
  "capacity",
];

/** A label value in the exposition format (backslash, quote and newline escaped). */
export function labelValue(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

/** A bounded cache's size and bounds (`lib/cache.ts`'s `CacheStats`). */
export interface CacheGauge {
  readonly name: string;
  readonly entries: number;
  readonly bytes: number;
  readonly maxEntries: number;
  /** `Infinity` when the cache is bounded by count only (no line is written). */
  readonly maxBytes: number;
}

/** What the webhook holds and how it is bounded, read when `/metrics` is asked. */
export interface BoundsSnapshot {
  /** Every bounded cache. */
  readonly caches: readonly CacheGauge[];
  /** The configured limits, by name (`images_per_review`, `body_bytes`, …). */
  readonly limits: Readonly<Record<string, number>>;
  /** Verifications running now. */
  readonly verificationsInFlight: number;
  /** Verifications waiting for a slot now. */
  readonly verificationsWaiting: number;
  /** The pool that registry and store reads reserve from. */
  readonly readPool?: MemoryPoolStats | undefined;
  /** The pool that request bodies reserve from. */
  readonly bodyPool?: BodyPoolStats | undefined;
  /** How long the event loop was held, at most, since the start. */
  readonly eventLoop?: EventLoopStalls | undefined;
}

/** The webhook's counters. */
export class WebhookMetrics {
  readonly #decisions = new Map<string, number>(
    DECISIONS.flatMap((d) => CAUSES[d].map((c) => [`${d}|${c}`, 0])),
  );
  readonly #verificationErrors = new Map<VerificationErrorKind, number>(
    VERIFICATION_ERROR_KINDS.map((k) => [k, 0]),
  );
  readonly #buckets = new Array<number>(LATENCY_BUCKETS.length).fill(0);
  #count = 0;
  #sum = 0;
  /** Verified verdicts found in the cache. */
  cacheHits = 0;
  /** Signed images that had to be verified. */
  cacheMisses = 0;
  /** Registry and signature store failures. */
  registryErrors = 0;
  /** Certificate reloads. */
  tlsReloads = 0;
  /** When the serving certificate in use expires, in seconds since the epoch; none until set. */
  servingCertificateExpiry: number | undefined;
  /** The key Secrets and trust roots in use and when they expire; none until set. */
  trustExpiries: (() => readonly TrustExpiry[]) | undefined;
  /** Reads the caches' sizes and the limits; none until set. */
  bounds: (() => BoundsSnapshot) | undefined;
  /** More exposition lines (the report controller's, `report_metrics.ts`); none until set. */
  more: (() => string[]) | undefined;

  /**
   * Counts a review and its duration in seconds; `cause` says whether the policy or a failure
   * decided a denial or warning (an `error` decision is always a failure's, the others the
   * policy's).
   */
  review(decision: DecisionLabel, seconds: number, cause: DenialCause = "policy"): void {
    const causes = CAUSES[decision];
    const key = `${decision}|${causes.includes(cause) ? cause : causes[0]}`;
    this.#decisions.set(key, (this.#decisions.get(key) ?? 0) + 1);
    this.#count++;
    this.#sum += seconds;
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
      if (seconds <= LATENCY_BUCKETS[i]!) {
        this.#buckets[i]!++;
        break;
      }
    }
  }

  /** Counts a verification that ended in an error of `kind`. */
  verificationError(kind: VerificationErrorKind): void {
    this.#verificationErrors.set(kind, (this.#verificationErrors.get(kind) ?? 0) + 1);
  }

  /** The exposition text; `ready` is the readiness gauge; `memory` defaults to the process's. */
  render(
    ready: boolean,
    memory: { rss: number; heapUsed: number } = Deno.memoryUsage(),
  ): string {
    const lines: string[] = [];
    const counter = (name: string, help: string, value: number) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`, `${name} ${value}`);
    };
    lines.push(
      "# HELP toolkit_admission_reviews_total Admission reviews answered, by decision and cause (error: a failure decided; a deny is then a fail-closed denial).",
      "# TYPE toolkit_admission_reviews_total counter",
    );
    for (const [key, value] of this.#decisions) {
      const [decision, cause] = key.split("|");
      lines.push(
        `toolkit_admission_reviews_total{decision="${decision}",cause="${cause}"} ${value}`,
      );
    }
    lines.push(
      "# HELP toolkit_admission_review_duration_seconds Time to answer an admission review.",
      "# TYPE toolkit_admission_review_duration_seconds histogram",
    );
    let cumulative = 0;
    LATENCY_BUCKETS.forEach((bound, i) => {
      cumulative += this.#buckets[i]!;
      lines.push(`toolkit_admission_review_duration_seconds_bucket{le="${bound}"} ${cumulative}`);
    });
    lines.push(
      `toolkit_admission_review_duration_seconds_bucket{le="+Inf"} ${this.#count}`,
      `toolkit_admission_review_duration_seconds_sum ${this.#sum}`,
      `toolkit_admission_review_duration_seconds_count ${this.#count}`,
    );
    counter(
      "toolkit_admission_verdict_cache_hits_total",
      "Verified verdicts served from the cache.",
      this.cacheHits,
    );
    counter(
      "toolkit_admission_verdict_cache_misses_total",
      "Signed images that had to be verified.",
      this.cacheMisses,
    );
    counter(
      "toolkit_admission_registry_errors_total",
      "Registry and signature store requests that failed.",
      this.registryErrors,
    );
    lines.push(
      "# HELP toolkit_admission_verification_errors_total Verifications that ended in an error (the image denied, failing closed), by kind.",
      "# TYPE toolkit_admission_verification_errors_total counter",
      ...[...this.#verificationErrors].map(([kind, value]) =>
        `toolkit_admission_verification_errors_total{kind="${kind}"} ${value}`
      ),
    );
    counter("toolkit_admission_tls_reloads_total", "Serving certificate reloads.", this.tlsReloads);
    if (this.servingCertificateExpiry !== undefined) {
      lines.push(
        "# HELP toolkit_admission_serving_certificate_expiry_timestamp_seconds When the serving certificate in use expires.",
        "# TYPE toolkit_admission_serving_certificate_expiry_timestamp_seconds gauge",
        `toolkit_admission_serving_certificate_expiry_timestamp_seconds ${this.servingCertificateExpiry}`,
      );
    }
    const trust = this.trustExpiries?.();
    if (trust !== undefined) {
      const expiring = trust.filter((t) => t.expiresAt !== undefined);
      const at = (t: TrustExpiry) => t.expiresAt! / 1000;
      const where = (t: TrustExpiry) =>
        `object_namespace="${labelValue(t.namespace)}",object_name="${labelValue(t.name)}"`;
      lines.push(
        "# HELP toolkit_admission_key_secret_expiry_timestamp_seconds When the first OpenPGP key of a key Secret in use expires.",
        "# TYPE toolkit_admission_key_secret_expiry_timestamp_seconds gauge",
        ...expiring.filter((t) => t.material === "key-secret").map((t) =>
          `toolkit_admission_key_secret_expiry_timestamp_seconds{${where(t)}} ${at(t)}`
        ),
        "# HELP toolkit_admission_trust_root_expiry_timestamp_seconds When a sigstore trust root in use stops verifying new signatures.",
        "# TYPE toolkit_admission_trust_root_expiry_timestamp_seconds gauge",
        ...expiring.filter((t) => t.material === "trust-root").map((t) =>
          `toolkit_admission_trust_root_expiry_timestamp_seconds{kind="${t.kind}",${where(t)}} ${
            at(t)
          }`
        ),
      );
    }
    lines.push(
      "# HELP toolkit_admission_ready Whether the policies are loaded (1) or not (0).",
      "# TYPE toolkit_admission_ready gauge",
      `toolkit_admission_ready ${ready ? 1 : 0}`,
    );
    const bounds = this.bounds?.();
    if (bounds !== undefined) {
      const gauge = (name: string, help: string, samples: [string, number][]) => {
        lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`);
        for (const [labels, value] of samples) lines.push(`${name}${labels} ${value}`);
      };
      const perCache = (pick: (c: CacheGauge) => number) =>
        bounds.caches.filter((c) => Number.isFinite(pick(c))).map((
          c,
        ): [string, number] => [`{cache="${c.name}"}`, pick(c)]);
      gauge(
        "toolkit_admission_cache_entries",
        "Entries held by each bounded cache.",
        perCache((c) => c.entries),
      );
      gauge(
        "toolkit_admission_cache_bytes",
        "Estimated bytes held by each bounded cache.",
        perCache((c) => c.bytes),
      );
      gauge(
        "toolkit_admission_cache_max_entries",
        "The bound by count of each cache.",
        perCache((c) => c.maxEntries),
      );
      gauge(
        "toolkit_admission_cache_max_bytes",
        "The bound by bytes of each cache.",
        perCache((c) => c.maxBytes),
      );
      gauge(
        "toolkit_admission_limit",
        "The configured limits of a request.",
        Object.entries(bounds.limits).map(([name, value]) => [`{limit="${name}"}`, value]),
      );
      gauge("toolkit_admission_verifications_in_flight", "Verifications running.", [[
        "",
        bounds.verificationsInFlight,
      ]]);
      gauge("toolkit_admission_verifications_waiting", "Verifications waiting for a slot.", [[
        "",
        bounds.verificationsWaiting,
      ]]);
      const pool = bounds.readPool;
      if (pool !== undefined) {
        gauge(
          "toolkit_admission_read_pool_bytes",
          "Bytes of registry and store answers reserved now, the most ever, and the pool's size.",
          [
            ['{state="reserved"}', pool.reserved],
            ['{state="peak"}', pool.peakReserved],
            ['{state="capacity"}', pool.capacity],
          ],
        );
        gauge("toolkit_admission_read_pool_waiting", "Reads waiting for room in the pool.", [[
          "",
          pool.waiting,
        ]]);
      }
      const bodies = bounds.bodyPool;
      if (bodies !== undefined) {
        gauge(
          "toolkit_admission_body_pool_bytes",
          "Bytes of request bodies and their parse reserved now, the most ever, and the pool's size.",
          [
            ['{state="reserved"}', bodies.reserved],
            ['{state="peak"}', bodies.peakReserved],
            ['{state="capacity"}', bodies.capacity],
          ],
        );
        lines.push(
          "# HELP toolkit_admission_body_pool_refused_total Requests refused with 503: the pool was full.",
          "# TYPE toolkit_admission_body_pool_refused_total counter",
          `toolkit_admission_body_pool_refused_total ${bodies.refused}`,
        );
      }
      const loop = bounds.eventLoop;
      if (loop !== undefined) {
        gauge(
          "toolkit_admission_event_loop_max_stall_seconds",
          "The longest time the event loop did not turn since the start (wall clock).",
          [["", loop.maxStallMs / 1000]],
        );
        gauge(
          "toolkit_admission_event_loop_max_busy_stall_seconds",
          "The longest such time that the process's own CPU time accounts for.",
          [["", loop.maxBusyStallMs / 1000]],
        );
        lines.push(
          "# HELP toolkit_admission_event_loop_stalls_total Times the event loop was held at least `over`.",
          "# TYPE toolkit_admission_event_loop_stalls_total counter",
          ...STALL_THRESHOLDS_MS.map((ms, i) =>
            `toolkit_admission_event_loop_stalls_total{over="${ms}ms"} ${loop.stallsOver[i] ?? 0}`
          ),
        );
      }
    }
    lines.push(
      "# HELP process_resident_memory_bytes Resident memory of the process.",
      "# TYPE process_resident_memory_bytes gauge",
      `process_resident_memory_bytes ${memory.rss}`,
      "# HELP deno_heap_used_bytes JavaScript heap in use.",
      "# TYPE deno_heap_used_bytes gauge",
      `deno_heap_used_bytes ${memory.heapUsed}`,
    );
    const count = (decision: DecisionLabel) =>
      CAUSES[decision].reduce((n, c) => n + (this.#decisions.get(`${decision}|${c}`) ?? 0), 0);
    const allowed = count("allow") + count("warn");
    const denied = count("deny") + count("error");
    counter(
      "portieris_pod_admission_decision_allow_count",
      "Admission requests allowed (Portieris-compatible name).",
      allowed,
    );
    counter(
      "portieris_pod_admission_decision_deny_count",
      "Admission requests denied (Portieris-compatible name).",
      denied,
    );
    if (this.more) lines.push(...this.more());
    return `${lines.join("\n")}\n`;
  }
}
