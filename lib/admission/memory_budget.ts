/**
 * The webhook's memory, added up in one place. Every part of what the webhook holds that a
 * request, a policy or a remote answer decides has a bound of its own (docs/admission.md,
 * "Bounds"); this module holds the byte bounds of the caches and pools by name, so that their sum
 * with the runtime's own memory is one expression, and `memory_budget_test.ts` fails when a bound
 * is raised past the chart's memory limit. Two configurations: without the PolicyReport controller
 * (256 MiB) and with it ({@linkcode REPORTS_BYTES} added, 320 MiB).
 *
 * The figures that are not bounds are measurements, rounded up: the runtime at rest (Deno and
 * the webhook's code: 91 MiB resident with the release's flags) and
 * one open TLS connection (29 KiB each with 500 idle ones held, measured on the real process).
 * Cache bounds are estimates of what their entries hold (string lengths and a fixed overhead an
 * entry), not heap measurements; pools count bytes before they are held.
 *
 * @module
 */

const MiB = 1024 * 1024;
const KiB = 1024;

/**
 * The memory limit of the webhook's container in the chart and in `enable`'s Deployment without
 * the PolicyReport controller (`--policy-reports` off): what the admission path adds up to,
 * 271 MiB, leaves 17 MiB for what the estimates miss.
 */
export const WEBHOOK_MEMORY_LIMIT = 288 * MiB;

/**
 * The memory limit with the PolicyReport controller (`--policy-reports`: on in `enable` and the
 * chart): the admission path's 271 MiB and {@linkcode REPORTS_BYTES} (50 MiB) add up to 321 MiB;
 * 352 MiB leaves 31 MiB for what the estimates miss.
 */
export const WEBHOOK_MEMORY_LIMIT_WITH_REPORTS = 352 * MiB;

/**
 * The memory limit as a Kubernetes quantity (`288Mi`, `352Mi`), with or without the reports; with
 * a bound of the reports' workload copies above its default (`--reports-max-copy-bytes`), raised
 * by as much (rounded up to MiB).
 */
export function webhookMemoryLimitQuantity(
  policyReports: boolean,
  maxCopyBytes: number = REPORTS_BYTES.workloadCopies,
): string {
  if (!policyReports) return `${WEBHOOK_MEMORY_LIMIT / MiB}Mi`;
  const more = Math.max(0, maxCopyBytes - REPORTS_BYTES.workloadCopies);
  return `${Math.ceil((WEBHOOK_MEMORY_LIMIT_WITH_REPORTS + more) / MiB)}Mi`;
}

/** The byte bound of each cache, by the name it has on `/metrics`. */
export const CACHE_BYTES = {
  /** Parsed image references (`image_choices.ts`). */
  "parse": 1 * MiB,
  /** Chosen policies, per policy set (`image_choices.ts`). */
  "policy-selection": 1 * MiB,
  /** Verdicts of verified images (`verifier.ts`). */
  "verdict": 3 * MiB,
  /** Tags resolved to digests (`tag_resolver.ts`). */
  "digest": 2 * MiB,
  /** Registry tokens, shared by every registry client (`registry_clients.ts`). */
  "registry-token": 1 * MiB,
  /** Parsed OpenPGP key Secrets (`keys.ts`). */
  "key": 2 * MiB,
  /** Parsed PEM key Secrets (`sigstore_material.ts`). */
  "sigstore-key": 1 * MiB,
  /** Parsed key Secrets of attestation requirements, PEM and OpenPGP (`attestation_keys.ts`). */
  "attestation-key": 1 * MiB,
  /** Parsed trust roots, one of the largest (1 MiB, held at four times its text) fitting. */
  "trust-root": 4 * MiB,
  /** Secrets read on demand, their data (`object_reads.ts`). */
  "secret": 1 * MiB,
  /** ConfigMaps read on demand, their data (`object_reads.ts`). */
  "config-map": 1 * MiB,
  /** ServiceAccounts' pull Secret names (`kube_source.ts`). */
  "service-account": KiB * 512,
  /** Events recorded lately, not to record one twice (`events.ts`). */
  "event-dedup": KiB * 512,
} as const;

/** The pools, each reserved before anything is held. */
export const POOL_BYTES = {
  /**
   * What registries, token services and signature stores answer, 1 MiB a verification: one per
   * verification slot (64), so the slots, not this pool, decide who waits.
   */
  registryReads: 64 * MiB,
  /** Request bodies and their parse, across connections (`webhook/body_pool.ts`). */
  requestBodies: 32 * MiB,
  /** Objects read on demand from the API server (`object_reads.ts`). */
  objectReads: 4 * MiB,
} as const;

/** The parts of the webhook's memory that are not caches or pools, as measured, rounded up. */
export const MEASURED_BYTES = {
  /**
   * Deno and the webhook's code at rest (91 MiB measured). The policies themselves are the
   * cluster's to bound (docs/admission.md, Known limits).
   */
  runtimeAtRest: 92 * MiB,
  /** Every connection the server allows open at once (512), at 32 KiB each. */
  connections: 512 * 32 * KiB,
  /** Objects read on demand while they are parsed: the pool's bytes three times more (text, values). */
  objectReadsParsed: 3 * POOL_BYTES.objectReads,
  /** Pull credentials held by the registry clients (64, one per set of credentials) × 256 KiB. */
  pullCredentials: 64 * 256 * KiB,
  /**
   * The CEL library (`@bufbuild/cel`, `lib/cel/`), loaded when a policy first has `attestation`
   * conditions: 16 MiB more resident, measured.
   */
  celLibrary: 16 * MiB,
} as const;

/**
 * What the PolicyReport controller (`lib/reports`, `webhook/reports.ts`) holds on the replica that
 * leads, each bounded in bytes counted before they are held. A standby holds none of it.
 */
export const REPORTS_BYTES = {
  /**
   * The copies of the cluster's workloads (`lib/reports/workload_copies.ts`): each stripped copy
   * counted as its JSON text and 64 bytes a value, 256 bytes besides. A realistic Pod of four
   * containers counts 5.3 KB (1.6 KB on the heap): some 6,000 Pods; past it, whole namespaces are
   * refused and reported as `error`. `--reports-max-copy-bytes` sets it (the limit rises with it).
   */
  workloadCopies: 32 * MiB,
  /** Verdicts one pass of audits remembers (`lib/audit/verdicts.ts`, about 400 bytes each). */
  auditVerdicts: 8 * MiB,
  /** The audits' verifier's verdict cache (`webhook/reports.ts`). */
  verdictCache: KiB * 512,
  /** The audits' verifier's digest cache (`webhook/reports.ts`). */
  digestCache: KiB * 512,
  /**
   * Building one namespace's report at a time: at most 1000 results (about 1 KiB each) held as
   * it is built, the previous report as read, and the applied object's text.
   */
  reportBuilding: 4 * MiB,
  /**
   * The workloads under review at once (16) and what their reviews hold: the synthetic requests
   * (the copies themselves), their decisions and audited images, at most 256 images each.
   */
  reviews: 1 * MiB,
  /**
   * The workloads of the namespace being audited, listed for its audit (`lib/audit`'s
   * `listAuditTargets`: a reference and the set of its images a copy, under a tenth of what the
   * copy is counted at; the copies themselves are not copied): at most a tenth of the copies'
   * bound, rounded up.
   */
  auditTargets: 4 * MiB,
} as const;

/** Which configuration to add up: with the PolicyReport controller or without. */
export interface MemoryBudgetConfiguration {
  /** `--policy-reports`. */
  readonly policyReports: boolean;
}

/** The memory limit of a configuration (the chart's and `enable`'s). */
export function webhookMemoryLimit(configuration: MemoryBudgetConfiguration): number {
  return configuration.policyReports ? WEBHOOK_MEMORY_LIMIT_WITH_REPORTS : WEBHOOK_MEMORY_LIMIT;
}

/** Everything above, added up (with {@linkcode REPORTS_BYTES} when the reports are on). */
export function memoryBudgetTotal(
  configuration: MemoryBudgetConfiguration = { policyReports: false },
): number {
  const sum = (values: Record<string, number>) =>
    Object.values(values).reduce((total, bytes) => total + bytes, 0);
  return sum(CACHE_BYTES) + sum(POOL_BYTES) + sum(MEASURED_BYTES) +
    (configuration.policyReports ? sum(REPORTS_BYTES) : 0);
}
