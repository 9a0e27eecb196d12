/**
 * The site planning of one review: each image site parsed and given its policy (cached, else
 * chosen in slices that take turns with the rest of the process), one verification per distinct
 * image and policy (a verdict known already is used as it is: no deadline, no slot, no promise),
 * the others started under the review's deadline and slots, then the decision built from them
 * (`decision.ts`). A warm review, every policy and verdict known, is decided without a promise.
 *
 * @module
 */
import type { ImageReference } from "../image/mod.ts";
import type { NoPolicyMatch, PolicyMatch } from "../policy/mod.ts";
import { quoteInput } from "../quote.ts";
import type { TurnScheduler } from "../turns.ts";
import { type PullCredentials, pullCredentials } from "./credentials.ts";
import type { DeadlineScheduler } from "./deadline.ts";
import {
  type AdmissionDecision,
  decisionOf,
  type EnforcementMode,
  type NoMatchAction,
  type PlannedSite,
} from "./decision.ts";
import { type Deadline, DeadlineExceededError, raceSignal } from "./errors.ts";
import type { FairSlots } from "./fair_slots.ts";
import type { ImageChoices } from "./image_choices.ts";
import type { AdmissionRequest } from "./review.ts";
import type { PolicySource } from "./source.ts";
import type { ImageVerdict, ImageVerifier } from "./verifier.ts";
import type { ImageSite, WorkloadImages } from "./workload.ts";

/** What the planning of a review uses, shared by all reviews of an evaluator. */
export interface SitePlanning {
  readonly source: PolicySource;
  readonly verifier: ImageVerifier;
  readonly settings: {
    /** `warn` turns every denial into a warning (where a namespace's label sets no mode). */
    readonly mode: EnforcementMode;
    /** What happens to an image that no policy matches. */
    readonly noMatch: NoMatchAction;
    /** The time all the checks of one review may take, in milliseconds. */
    readonly budgetMs: number;
  };
  readonly choices: ImageChoices;
  readonly deadlines: DeadlineScheduler;
  readonly turns: TurnScheduler;
  /** The verification slots of all reviews. */
  readonly inFlight: FairSlots;
}

/**
 * The decision for the images of `workload`: the decision itself when every image's policy and
 * verdict were known already (a warm review waits for nothing, not even a promise), else a
 * promise of it.
 */
export function decideSites(
  planning: SitePlanning,
  request: AdmissionRequest,
  workload: WorkloadImages,
  gone: AbortSignal | undefined,
): AdmissionDecision | Promise<AdmissionDecision> {
  const { source, verifier, settings, choices, deadlines, turns, inFlight } = planning;
  const namespace = request.namespace;
  const policies = source.policies();
  let credentials: Promise<PullCredentials> | undefined;
  const credentialsOnce = () =>
    credentials ??= pullCredentials(
      source,
      namespace,
      workload.imagePullSecrets,
      workload.serviceAccountName,
    );

  // What the credentials depend on, unambiguously: remembered verdicts are found by it.
  let credentialsKey: string | undefined;
  const credentialsKeyOnce = () =>
    credentialsKey ??= JSON.stringify([
      namespace,
      workload.serviceAccountName,
      ...workload.imagePullSecrets,
    ]);

  // One verification per image and policy, found by the objects themselves: the parse and
  // selection caches hand the same reference and match for the same image text, so a warm
  // review builds no key (two spellings of one image are checked twice, alike).
  const checks = new Map<ImageReference, Map<PolicyMatch, number>>(); // → index in `verdicts`
  const verdicts: (ImageVerdict | undefined)[] = [];
  const running: Promise<void>[] = [];
  const pending: PlannedSite[] = [];
  const problem = source.policyProblem?.(namespace) ?? policies.problem(namespace);
  let deadline: Deadline | undefined;
  /** The deadline's signal, or that of the client gone too. */
  let signal: AbortSignal | undefined;
  const sites = workload.sites;

  /** Adds `site` with its policy: a verdict known already, or a verification started. */
  function place(site: ImageSite, ref: ImageReference, match: PolicyMatch | NoPolicyMatch) {
    if (match.policy === undefined) {
      const action = settings.noMatch;
      pending.push({
        site,
        immediate: action === "allow"
          ? { outcome: "allow" }
          : { outcome: action, reason: match.reason },
      });
      return;
    }
    let byMatch = checks.get(ref);
    if (byMatch === undefined) checks.set(ref, byMatch = new Map());
    let slot = byMatch.get(match);
    if (slot === undefined) {
      const index = verdicts.length;
      slot = index;
      byMatch.set(match, index);
      const task = {
        reference: ref,
        match,
        namespace,
        credentials: credentialsOnce,
        credentialsKey: credentialsKeyOnce(),
        slots: inFlight.for({ tenant: namespace, host: ref.domain }),
      };
      // A verdict known already is used as it is: no deadline, no slot, no promise.
      const known = verifier.known?.(task);
      verdicts.push(known);
      if (known === undefined) {
        if (deadline === undefined) {
          deadline = deadlines.start(settings.budgetMs);
          signal = gone === undefined ? deadline.signal : AbortSignal.any([deadline.signal, gone]);
        }
        running.push(
          verifier.verify(task, signal).then(
            (verdict) => void (verdicts[index] = verdict),
            (error) =>
              void (verdicts[index] = {
                allowed: false,
                cause: "error",
                reason: error instanceof DeadlineExceededError
                  ? error.message
                  : `Cannot verify image "${quoteInput(site.image)}": internal error`,
              }),
          ),
        );
      }
    }
    pending.push({ site, match, ref, slot });
  }

  /**
   * Adds `sites[i]`: undefined when done, else the promise of its policy (chosen in slices of
   * about a millisecond that take turns with the rest of the process, so /healthz and other
   * reviews never wait for a namespace's patterns).
   */
  function step(i: number): Promise<void> | undefined {
    const site = sites[i]!;
    if (problem !== undefined) {
      // The policies cannot be used: a failure, the webhook fails closed.
      pending.push({ site, immediate: { outcome: "deny", reason: problem, cause: "error" } });
      return undefined;
    }
    const p = choices.parse(site.image);
    if ("error" in p) {
      pending.push({
        site,
        immediate: { outcome: "deny", reason: `invalid image name: ${p.error}` },
      });
      return undefined;
    }
    const selected = choices.select(policies, namespace, p.ref, site.image, turns);
    if (selected instanceof Promise) return selected.then((match) => place(site, p.ref, match));
    place(site, p.ref, selected);
    return undefined;
  }

  const decided = () =>
    decisionOf(
      workload,
      pending,
      pending.map((p) => p.slot === undefined ? undefined : verdicts[p.slot]),
      source.namespaceMode?.(namespace) ?? settings.mode,
    );

  /** The rest, from `sites[from]` on, once `waiting` (its policy) is chosen. */
  async function rest(from: number, waiting: Promise<void> | undefined) {
    try {
      await waiting;
      for (let i = from; i < sites.length; i++) await step(i);
      if (deadline !== undefined) {
        try {
          await raceSignal(Promise.all(running), deadline.signal);
        } catch (error) {
          if (!(error instanceof DeadlineExceededError)) throw error;
          for (let i = 0; i < verdicts.length; i++) {
            verdicts[i] ??= { allowed: false, cause: "error", reason: error.message };
          }
        }
      }
      return decided();
    } finally {
      deadline?.clear();
    }
  }

  try {
    for (let i = 0; i < sites.length; i++) {
      const waiting = step(i);
      if (waiting !== undefined) return rest(i + 1, waiting);
    }
  } catch (error) {
    deadline?.clear();
    throw error;
  }
  return deadline === undefined ? decided() : rest(sites.length, undefined);
}
