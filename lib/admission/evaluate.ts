/**
 * The decision for one AdmissionReview, shared by the webhook and `toolkit image-security
 * check`: which image sites (containers and image volumes) to check, which policy applies to each
 * image, the verdicts (distinct images checked concurrently under one time budget), and the
 * answer: denial reasons in site order, warnings, and the JSON patch that pins each verified
 * image to its digest.
 *
 * The work of a review is bounded before it starts: a review naming more distinct images than
 * `maxImagesPerReview` is denied before any parsing or registry work, and the verifications of
 * all reviews share `maxVerificationsInFlight` slots, fairly by namespace and registry host
 * (`fair_slots.ts`): a verification takes one only for registry work no cache answers, waits
 * for it under its review's signal (waiting counts against the review's budget) and gives it
 * back when its review stops waiting. Only valid references are cached, in a cache bounded by
 * bytes.
 *
 * The answer is a deny unless every image was explicitly allowed. A failure (a registry that
 * cannot be reached, a missing key Secret, the budget running out, a bug) denies with its
 * reason; only warn mode turns denials into warnings.
 *
 * @module
 */
import { TurnScheduler } from "../turns.ts";
import type { ImageReference } from "../image/mod.ts";
import type { NoPolicyMatch, PolicyMatch } from "../policy/mod.ts";
import { quoteInput } from "../quote.ts";
import type { CacheStats } from "./cache.ts";
import { type PullCredentials, pullCredentials } from "./credentials.ts";
import { DeadlineScheduler } from "./deadline.ts";
import { type Deadline, DeadlineExceededError, raceSignal } from "./errors.ts";
import type { AdmissionRequest } from "./review.ts";
import { FairSlots } from "./fair_slots.ts";
import { ImageChoices } from "./image_choices.ts";
import {
  type AdmissionDecision,
  decisionOf,
  type EnforcementMode,
  type NoMatchAction,
  type PlannedSite,
} from "./decision.ts";
import type { PolicySource } from "./source.ts";
import { DENIAL_PREFIX, type ImageVerdict, type ImageVerifier } from "./verifier.ts";
import { imageList, type ImageSite, type WorkloadImages, workloadImages } from "./workload.ts";

export type {
  AdmissionDecision,
  EnforcementMode,
  NoMatchAction,
  SiteDecision,
} from "./decision.ts";

/** The settings of the decision. */
export interface AdmissionSettings {
  /** `warn` turns every denial into a warning (a dry run for the whole cluster). */
  readonly mode: EnforcementMode;
  /** What happens to an image that no policy matches. */
  readonly noMatch: NoMatchAction;
  /** The controller's own namespace: always exempt, so the webhook can always be repaired. */
  readonly controllerNamespace: string;
  /** The time all the checks of one review may take, in milliseconds. */
  readonly budgetMs: number;
  /** The most distinct images one review may name. @default {@linkcode MAX_IMAGES_PER_REVIEW} */
  readonly maxImagesPerReview?: number;
  /**
   * The most verifications in flight, across all reviews, shared fairly by namespace and
   * registry host (no host more than three quarters); the others wait under their review's
   * deadline. @default {@linkcode MAX_VERIFICATIONS_IN_FLIGHT}
   */
  readonly maxVerificationsInFlight?: number;
}

/** The default bound of distinct images in one review. */
export const MAX_IMAGES_PER_REVIEW = 256;
/** The default bound of verifications in flight across reviews. */
export const MAX_VERIFICATIONS_IN_FLIGHT = 64;

/** What the evaluator holds and how it is bounded, for metrics. */
export interface EvaluatorBounds {
  /** Its caches (parsed images, policy selections). */
  readonly caches: readonly CacheStats[];
  /** The most distinct images of one review. */
  readonly maxImagesPerReview: number;
  /** The most verifications in flight. */
  readonly maxVerificationsInFlight: number;
  /** Verifications in flight now. */
  readonly verificationsInFlight: number;
  /** Verifications waiting for a slot now. */
  readonly verificationsWaiting: number;
}

/** What the decision depends on. */
export interface AdmissionDeps {
  /** Policies, exempt namespaces, Secrets, ServiceAccounts. */
  readonly source: PolicySource;
  /** Checks images. */
  readonly verifier: ImageVerifier;
  /** The settings. */
  readonly settings: AdmissionSettings;
  /** Where review deadlines are scheduled. @default a scheduler of its own */
  readonly deadlines?: DeadlineScheduler;
  /**
   * Where work cut into slices (policy matching) waits for its next turn of the event loop; the
   * process shares one, so that slices of all reviews take turns with I/O. @default its own
   */
  readonly turns?: TurnScheduler;
}

/** Decides admission reviews. */
export interface AdmissionEvaluator {
  /**
   * Decides one request. Never throws: failures are denials with a reason. The decision itself
   * when nothing had to be waited for (every image's verdict known), else a promise of it.
   * `signal` aborts when nobody waits for the answer any more (the client has gone): the
   * review's verifications then end as they do at its deadline.
   */
  evaluate(
    request: AdmissionRequest,
    signal?: AbortSignal,
  ): AdmissionDecision | Promise<AdmissionDecision>;
  /** Its caches and limits. */
  bounds?(): EvaluatorBounds;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function isDeleting(object: unknown): boolean {
  return isObject(object) && isObject(object.metadata) &&
    typeof object.metadata.deletionTimestamp === "string";
}

function simple(
  allowed: boolean,
  outcome: AdmissionDecision["outcome"],
  kind: string,
  note: string,
  reasons: readonly string[] = [],
): AdmissionDecision {
  return { allowed, outcome, kind, reasons, warnings: [], patch: [], sites: [], note };
}

/** The denial line for a reason that is not about one image site. */
export function denialLine(reason: string): string {
  return `${DENIAL_PREFIX}${reason}`;
}

/** Creates an evaluator. */
export function createAdmissionEvaluator(deps: AdmissionDeps): AdmissionEvaluator {
  const { source, verifier, settings } = deps;
  const choices = new ImageChoices();
  const deadlines = deps.deadlines ?? new DeadlineScheduler();
  const turns = deps.turns ?? new TurnScheduler();
  const maxImages = settings.maxImagesPerReview ?? MAX_IMAGES_PER_REVIEW;
  const inFlight = new FairSlots(settings.maxVerificationsInFlight ?? MAX_VERIFICATIONS_IN_FLIGHT);

  /**
   * The decision for the images of `workload`: the decision itself when every image's policy and
   * verdict were known already (a warm review waits for nothing, not even a promise), else a
   * promise of it.
   */
  function decide(
    request: AdmissionRequest,
    workload: WorkloadImages,
    gone: AbortSignal | undefined,
  ): AdmissionDecision | Promise<AdmissionDecision> {
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
            signal = gone === undefined
              ? deadline.signal
              : AbortSignal.any([deadline.signal, gone]);
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
        pending.push({ site, immediate: { outcome: "deny", reason: problem } });
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
        settings.mode,
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

  function evaluate(
    request: AdmissionRequest,
    signal?: AbortSignal,
  ): AdmissionDecision | Promise<AdmissionDecision> {
    let kind = request.kind.kind;
    const failed = (error: unknown) => {
      const line = denialLine(
        `Cannot evaluate the request: internal error (${
          error instanceof Error ? error.name : "unknown"
        })`,
      );
      return simple(false, "deny", kind, "internal error", [line]);
    };
    try {
      if (request.operation !== "CREATE" && request.operation !== "UPDATE") {
        return simple(true, "skip", kind, `${request.operation} is not checked`);
      }
      const namespace = request.namespace;
      if (namespace !== "" && namespace === settings.controllerNamespace) {
        return simple(true, "exempt", kind, `namespace "${namespace}" is the controller's own`);
      }
      if (namespace !== "" && source.exemptNamespaces().has(namespace)) {
        return simple(true, "exempt", kind, `namespace "${namespace}" is labelled exempt`);
      }
      const workload = workloadImages(request);
      if (workload.sites === undefined) {
        if (workload.skip === "subresource") return simple(true, "skip", kind, workload.reason);
        const line = denialLine(workload.reason);
        return settings.mode === "warn"
          ? { ...simple(true, "warn", kind, workload.reason), warnings: [line] }
          : simple(false, "deny", kind, workload.reason, [line]);
      }
      kind = workload.kind;
      if (request.operation === "UPDATE" && isDeleting(request.object)) {
        const old = workloadImages({ ...request, object: request.oldObject });
        if (
          old.sites !== undefined &&
          imageList(old).join("\n") === imageList(workload).join("\n")
        ) {
          return simple(
            true,
            "skip",
            kind,
            "the object is being deleted and its images are unchanged",
          );
        }
      }
      if (workload.sites.length === 0) {
        return simple(true, "skip", kind, "no images");
      }
      const distinct = new Set(workload.sites.map((s) => s.image)).size;
      if (distinct > maxImages) {
        // Refused before any parsing or registry work: the work of a review stays bounded.
        const reason =
          `the object names ${distinct} distinct images; at most ${maxImages} are checked per request`;
        const line = denialLine(reason);
        return settings.mode === "warn"
          ? { ...simple(true, "warn", kind, reason), warnings: [line] }
          : simple(false, "deny", kind, reason, [line]);
      }
      if (!source.ready()) {
        const line = denialLine("Cannot check images: the policies have not been loaded yet");
        return simple(false, "deny", kind, "not ready", [line]);
      }
      const decision = decide(request, workload, signal);
      return decision instanceof Promise ? decision.catch(failed) : decision;
    } catch (error) {
      return failed(error);
    }
  }

  function bounds(): EvaluatorBounds {
    return {
      caches: choices.stats(),
      maxImagesPerReview: maxImages,
      maxVerificationsInFlight: inFlight.permits,
      verificationsInFlight: inFlight.running,
      verificationsWaiting: inFlight.waiting,
    };
  }

  return { evaluate, bounds };
}
