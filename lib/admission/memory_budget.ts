/**
 * The webhook's memory, added up in one place. Every part of what the webhook holds that a
 * request, a policy or a remote answer decides has a bound of its own (docs/admission.md,
 * "Bounds"); this module holds the byte bounds of the caches and pools by name, so that their sum
 * with the runtime's own memory is one expression, and `memory_budget_test.ts` fails when a bound
 * is raised past the chart's memory limit.
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

/** The memory limit of the webhook's container in the chart and in `enable`'s Deployment. */
export const WEBHOOK_MEMORY_LIMIT = 256 * MiB;

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
} as const;

/** Everything above, added up. */
export function memoryBudgetTotal(): number {
  const sum = (values: Record<string, number>) =>
    Object.values(values).reduce((total, bytes) => total + bytes, 0);
  return sum(CACHE_BYTES) + sum(POOL_BYTES) + sum(MEASURED_BYTES);
}
