/**
 * The webhook's Prometheus metrics, in the text exposition format (written by hand: no
 * dependency). Portieris's two counters are kept under their names so its dashboards work.
 *
 * | Metric | Type | Labels |
 * |---|---|---|
 * | `toolkit_admission_reviews_total` | counter | `decision` (allow, deny, warn, exempt, skip, error) |
 * | `toolkit_admission_review_duration_seconds` | histogram | |
 * | `toolkit_admission_verdict_cache_hits_total` | counter | |
 * | `toolkit_admission_verdict_cache_misses_total` | counter | |
 * | `toolkit_admission_registry_errors_total` | counter | |
 * | `toolkit_admission_tls_reloads_total` | counter | |
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
 * @module
 */
import type { MemoryPoolStats } from "../lib/read_budget.ts";
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
  readonly #decisions = new Map<DecisionLabel, number>(DECISIONS.map((d) => [d, 0]));
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
  /** Reads the caches' sizes and the limits; none until set. */
  bounds: (() => BoundsSnapshot) | undefined;
  /** More exposition lines (the report controller's, `report_metrics.ts`); none until set. */
  more: (() => string[]) | undefined;

  /** Counts a review and its duration in seconds. */
  review(decision: DecisionLabel, seconds: number): void {
    this.#decisions.set(decision, (this.#decisions.get(decision) ?? 0) + 1);
    this.#count++;
    this.#sum += seconds;
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
      if (seconds <= LATENCY_BUCKETS[i]!) {
        this.#buckets[i]!++;
        break;
      }
    }
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
      "# HELP toolkit_admission_reviews_total Admission reviews answered, by decision.",
      "# TYPE toolkit_admission_reviews_total counter",
    );
    for (const [decision, value] of this.#decisions) {
      lines.push(`toolkit_admission_reviews_total{decision="${decision}"} ${value}`);
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
    counter("toolkit_admission_tls_reloads_total", "Serving certificate reloads.", this.tlsReloads);
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
    const allowed = (this.#decisions.get("allow") ?? 0) + (this.#decisions.get("warn") ?? 0);
    const denied = (this.#decisions.get("deny") ?? 0) + (this.#decisions.get("error") ?? 0);
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
