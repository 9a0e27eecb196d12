/**
 * One verification per distinct image in an audit. The webhook's verifier caches only admitted
 * verdicts (a denial must be looked at again: the image may be signed a second later) and shares
 * only the verifications in flight; an audit judges a snapshot, so it remembers every verdict,
 * denials too, for as long as it runs: a thousand Pods running one unsigned image cost the
 * registry one verification, not a thousand.
 *
 * Verdicts are remembered by policy match (the evaluator hands the same match object for the same
 * image and policy; a policy that changes gives new ones), image reference and what the pull
 * credentials are read from. At most {@linkcode MAX_AUDIT_VERDICTS} are remembered; past that
 * the verifier answers as it would alone.
 *
 * @module
 */
import type { ImageVerdict, ImageVerifier, VerifyTask } from "../admission/mod.ts";

/** The most verdicts one audit remembers (about 300 bytes each). */
export const MAX_AUDIT_VERDICTS = 100_000;

/** A verifier that remembers every verdict of an audit; `forget()` starts afresh. */
export interface AuditVerifier extends ImageVerifier {
  /** Forgets every remembered verdict (before the next audit). */
  forget(): void;
  /** How many verdicts are remembered. */
  readonly remembered: number;
}

function keyOf(task: VerifyTask): string | undefined {
  if (task.credentialsKey === undefined) return undefined;
  const r = task.reference;
  return `${r.domain}/${r.path}:${r.tag ?? ""}@${r.digest ?? ""}\n${task.credentialsKey}`;
}

/** Wraps `verifier` (the webhook's, `createImageVerifier`) for an audit. */
export function auditVerifier(verifier: ImageVerifier): AuditVerifier {
  let byMatch = new WeakMap<object, Map<string, ImageVerdict>>();
  let count = 0;
  const lookup = (task: VerifyTask): ImageVerdict | undefined => {
    const key = keyOf(task);
    return key === undefined ? undefined : byMatch.get(task.match)?.get(key);
  };
  const remember = (task: VerifyTask, verdict: ImageVerdict) => {
    const key = keyOf(task);
    if (key === undefined || count >= MAX_AUDIT_VERDICTS) return;
    let verdicts = byMatch.get(task.match);
    if (verdicts === undefined) byMatch.set(task.match, verdicts = new Map());
    if (!verdicts.has(key)) count++;
    verdicts.set(key, verdict);
  };
  return {
    known(task) {
      return lookup(task) ?? verifier.known?.(task);
    },
    async verify(task, signal) {
      const known = lookup(task);
      if (known !== undefined) return known;
      const verdict = await verifier.verify(task, signal);
      remember(task, verdict);
      return verdict;
    },
    ...(verifier.caches ? { caches: () => verifier.caches!() } : {}),
    ...(verifier.readPool ? { readPool: () => verifier.readPool!() } : {}),
    forget() {
      byMatch = new WeakMap();
      count = 0;
    },
    get remembered() {
      return count;
    },
  };
}
