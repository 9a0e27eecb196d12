/**
 * One verification per distinct image in an audit. The webhook's verifier caches only admitted
 * verdicts (a denial must be looked at again: the image may be signed a second later) and shares
 * only the verifications in flight; an audit judges a snapshot, so it remembers every verdict,
 * denials too, for as long as it runs: a thousand Pods running one unsigned image cost the
 * registry one verification, not a thousand.
 *
 * Verdicts are remembered by the policy's repository rule (a policy that changes is compiled
 * into new ones), the image reference, and the pull credentials the verification would use:
 * workloads in many namespaces that name no pull Secret share one verification of an image. At
 * most {@linkcode MAX_AUDIT_VERDICTS} are remembered, and at most
 * {@linkcode MAX_AUDIT_VERDICT_BYTES} of them (each counted by {@linkcode rememberedBytes} before
 * it is kept: the webhook's memory budget, `lib/admission/memory_budget.ts`, holds the bound);
 * past either the verifier answers as it would alone.
 *
 * @module
 */
import {
  type ImageVerdict,
  type ImageVerifier,
  raceSignal,
  REPORTS_BYTES,
  type VerifyTask,
} from "../admission/mod.ts";

/** The most verdicts one audit remembers (about 300 bytes each). */
export const MAX_AUDIT_VERDICTS = 100_000;

/** The most bytes of verdicts one audit remembers (by {@linkcode rememberedBytes}). */
export const MAX_AUDIT_VERDICT_BYTES: number = REPORTS_BYTES.auditVerdicts;

/** Bytes counted for each remembered verdict besides its strings: the map's entry, the object. */
export const REMEMBERED_OVERHEAD_BYTES = 160;

/** The estimated bytes of remembering `verdict` under `key` (string lengths and an overhead). */
export function rememberedBytes(key: string, verdict: ImageVerdict): number {
  const strings = verdict.allowed
    ? (verdict.digest?.length ?? 0) + 48 * (verdict.signers?.length ?? 0) +
      (verdict.notes ?? []).reduce((n, note) => n + note.length + 16, 0)
    : verdict.reason.length + (verdict.digest?.length ?? 0);
  return key.length + strings + REMEMBERED_OVERHEAD_BYTES;
}

/** The bounds of what an audit remembers. */
export interface AuditVerifierOptions {
  /** @default {@linkcode MAX_AUDIT_VERDICTS} */
  readonly maxVerdicts?: number;
  /** @default {@linkcode MAX_AUDIT_VERDICT_BYTES} */
  readonly maxBytes?: number;
}

/** A verifier that remembers every verdict of an audit; `forget()` starts afresh. */
export interface AuditVerifier extends ImageVerifier {
  /** Forgets every remembered verdict (before the next audit). */
  forget(): void;
  /** How many verdicts are remembered. */
  readonly remembered: number;
  /** Their estimated bytes (by {@linkcode rememberedBytes}). */
  readonly rememberedBytes: number;
}

/**
 * The image and how the policy matched it (the verification's input besides the policy and the
 * credentials), and the workload's namespace when the policy reads a store Secret from it.
 */
function imageKey(task: VerifyTask): string {
  const r = task.reference;
  const byTag = task.match.matchedByTag ? " by tag" : "";
  const store = task.match.policy.simple?.storeSecret ? ` in ${task.namespace}` : "";
  return `${r.domain}/${r.path}:${r.tag ?? ""}@${r.digest ?? ""}${byTag}${store}`;
}

/** Wraps `verifier` (the webhook's, `createImageVerifier`) for an audit. */
export function auditVerifier(
  verifier: ImageVerifier,
  options: AuditVerifierOptions = {},
): AuditVerifier {
  const maxVerdicts = options.maxVerdicts ?? MAX_AUDIT_VERDICTS;
  const maxBytes = options.maxBytes ?? MAX_AUDIT_VERDICT_BYTES;
  // By the policy's repository rule (the same object for every namespace it governs), then by
  // image and what the credentials are: by the workload's names (answered synchronously), and
  // by the credentials read (`PullCredentials.id`: the Secrets used and their versions, "" for
  // none), which workloads of many namespaces without pull Secrets share.
  let byNames = new WeakMap<object, Map<string, ImageVerdict>>();
  let byCredentials = new WeakMap<object, Map<string, ImageVerdict>>();
  /** Verifications in flight, by the key of `byCredentials`: later workloads wait for them. */
  let flights = new WeakMap<object, Map<string, Promise<ImageVerdict>>>();
  let count = 0;
  let bytes = 0;
  const get = (maps: WeakMap<object, Map<string, ImageVerdict>>, task: VerifyTask, key: string) =>
    maps.get(task.match.policy)?.get(key);
  const set = (
    maps: WeakMap<object, Map<string, ImageVerdict>>,
    task: VerifyTask,
    key: string,
    verdict: ImageVerdict,
  ) => {
    let verdicts = maps.get(task.match.policy);
    if (verdicts?.has(key)) return;
    // Counted before it is kept: past either bound, nothing more is remembered.
    const size = rememberedBytes(key, verdict);
    if (count >= maxVerdicts || bytes + size > maxBytes) return;
    if (verdicts === undefined) maps.set(task.match.policy, verdicts = new Map());
    count++;
    bytes += size;
    verdicts.set(key, verdict);
  };
  const namesKey = (task: VerifyTask) =>
    task.credentialsKey === undefined ? undefined : `${imageKey(task)}\n${task.credentialsKey}`;
  return {
    known(task) {
      const key = namesKey(task);
      return (key === undefined ? undefined : get(byNames, task, key)) ?? verifier.known?.(task);
    },
    async verify(task, signal) {
      const names = namesKey(task);
      const known = names === undefined ? undefined : get(byNames, task, names);
      if (known !== undefined) return known;
      let credentials: string | undefined;
      try {
        credentials = `${imageKey(task)}\n${(await task.credentials()).id}`;
      } catch {
        // The verifier reports what cannot be read.
      }
      const shared = credentials === undefined ? undefined : get(byCredentials, task, credentials);
      if (shared !== undefined) {
        if (names !== undefined) set(byNames, task, names, shared);
        return shared;
      }
      let inFlight = flights.get(task.match.policy);
      const flight = credentials === undefined ? undefined : inFlight?.get(credentials);
      if (flight !== undefined) {
        try {
          const verdict = await raceSignal(flight, signal);
          if (names !== undefined) set(byNames, task, names, verdict);
          return verdict;
        } catch (error) {
          // The workload that started it gave up (its own signal): verify for this one.
          if (signal?.aborted) throw error;
        }
      }
      const verifying = verifier.verify(task, signal);
      if (credentials !== undefined && flight === undefined) {
        if (inFlight === undefined) flights.set(task.match.policy, inFlight = new Map());
        inFlight.set(credentials, verifying);
      }
      try {
        const verdict = await verifying;
        if (names !== undefined) set(byNames, task, names, verdict);
        if (credentials !== undefined) set(byCredentials, task, credentials, verdict);
        return verdict;
      } finally {
        if (credentials !== undefined && inFlight?.get(credentials) === verifying) {
          inFlight.delete(credentials);
        }
      }
    },
    ...(verifier.caches ? { caches: () => verifier.caches!() } : {}),
    ...(verifier.readPool ? { readPool: () => verifier.readPool!() } : {}),
    forget() {
      byNames = new WeakMap();
      byCredentials = new WeakMap();
      flights = new WeakMap();
      count = 0;
      bytes = 0;
    },
    get remembered() {
      return count;
    },
    get rememberedBytes() {
      return bytes;
    },
  };
}
