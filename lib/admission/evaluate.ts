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
import type { CacheStats } from "./cache.ts";
import { DeadlineScheduler } from "./deadline.ts";
import type { AdmissionRequest } from "./review.ts";
import { FairSlots } from "./fair_slots.ts";
import { ImageChoices } from "./image_choices.ts";
import { decideSites, type SitePlanning } from "./site_planning.ts";
import type { AdmissionDecision, EnforcementMode, NoMatchAction } from "./decision.ts";
import type { PolicySource } from "./source.ts";
import { DENIAL_PREFIX, type ImageVerifier } from "./verifier.ts";
import { imageList, workloadImages } from "./workload.ts";

export type {
  AdmissionDecision,
  DenialCause,
  EnforcementMode,
  NoMatchAction,
  SiteDecision,
} from "./decision.ts";

/** The settings of the decision. */
export interface AdmissionSettings {
  /**
   * `warn` turns every denial into a warning (a dry run for the whole cluster); a namespace's
   * `toolkit.dev/enforcement` label sets its own mode instead (`PolicySource.namespaceMode`).
   */
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

  const planning: SitePlanning = {
    source,
    verifier,
    settings,
    choices,
    deadlines,
    turns,
    inFlight,
  };

  function evaluate(
    request: AdmissionRequest,
    signal?: AbortSignal,
  ): AdmissionDecision | Promise<AdmissionDecision> {
    let kind = request.kind.kind;
    const failed = (error: unknown): AdmissionDecision => {
      const line = denialLine(
        `Cannot evaluate the request: internal error (${
          error instanceof Error ? error.name : "unknown"
        })`,
      );
      return { ...simple(false, "deny", kind, "internal error", [line]), cause: "error" };
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
      const warnMode = (source.namespaceMode?.(namespace) ?? settings.mode) === "warn";
      const workload = workloadImages(request);
      if (workload.sites === undefined) {
        if (workload.skip === "subresource") return simple(true, "skip", kind, workload.reason);
        const line = denialLine(workload.reason);
        return warnMode
          ? { ...simple(true, "warn", kind, workload.reason), warnings: [line], cause: "policy" }
          : { ...simple(false, "deny", kind, workload.reason, [line]), cause: "policy" };
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
        return warnMode
          ? { ...simple(true, "warn", kind, reason), warnings: [line], cause: "policy" }
          : { ...simple(false, "deny", kind, reason, [line]), cause: "policy" };
      }
      if (!source.ready()) {
        const line = denialLine("Cannot check images: the policies have not been loaded yet");
        return { ...simple(false, "deny", kind, "not ready", [line]), cause: "error" };
      }
      const decision = decideSites(planning, request, workload, signal);
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
