/**
 * The decision of a review, built from its image sites as they were planned (a policy and a
 * verification each, or an outcome decided at once) and the verdicts of their verifications:
 * each site's outcome and reason, the denial lines and warnings, the patch that pins verified
 * images; admitted only when every site was explicitly allowed.
 *
 * @module
 */
import type { ImageReference } from "../image/mod.ts";
import type { PolicyMatch } from "../policy/mod.ts";
import { quoteInput } from "../quote.ts";
import type { JsonPatchOperation } from "./review.ts";
import { DENIAL_PREFIX, type ImageVerdict, pinnedReference } from "./verifier.ts";
import type { ImageSite, WorkloadImages } from "./workload.ts";

/** `enforce`: deny what fails; `warn`: admit it with a warning. */
export type EnforcementMode = "enforce" | "warn";

/** What happens to an image no policy matches. */
export type NoMatchAction = "deny" | "allow" | "warn";

/** The decision for one image site (a container or an image volume). */
export interface SiteDecision {
  /** The site. */
  readonly site: ImageSite;
  /** `allow`, `deny` or `warn` (a denial admitted in warn mode). */
  readonly outcome: "allow" | "deny" | "warn";
  /** The denial line (also the warning text), when not allowed. */
  readonly reason?: string;
  /** The same reason without the site's location (`policy denied the request: …`). */
  readonly detail?: string;
  /** The policy that applied: `ClusterImagePolicy "default" (pattern "icr.io/*")`. */
  readonly policy?: string;
  /** The policy that applied as `kind/name` or `kind/namespace/name`: `ImagePolicy/team/app`. */
  readonly policyRef?: string;
  /** The verified digest, when the image was resolved. */
  readonly digest?: string;
  /**
   * When not allowed: `policy` (the image does not satisfy it, or nothing allows it) or `error`
   * (it could not be checked: a registry, a key Secret, the time budget; denied because the
   * webhook fails closed). Absent when allowed.
   */
  readonly cause?: DenialCause;
  /** The image after the patch, when it is pinned. */
  readonly pinned?: string;
  /** What an admitted verdict tells besides (an index admitted by its platforms' signatures). */
  readonly notes?: readonly string[];
}

/** Why something was not allowed: the policy said so, or it could not be checked (`error`). */
export type DenialCause = "policy" | "error";

/** The decision for a review. */
export interface AdmissionDecision {
  /** Whether the request is admitted. */
  readonly allowed: boolean;
  /** `allow`, `deny`, `warn` (admitted with warnings), `exempt` (namespace), `skip` (nothing to check). */
  readonly outcome: "allow" | "deny" | "warn" | "exempt" | "skip";
  /** The workload kind (`Pod`, `Deployment`, …), "" when unknown. */
  readonly kind: string;
  /** Every denial line, in site order; joined by newlines they are the status message. */
  readonly reasons: readonly string[];
  /**
   * Warnings for the response (warn mode; the notes of admitted verdicts, such as an index
   * admitted by its platforms' signatures; skipped pull secrets never).
   */
  readonly warnings: readonly string[];
  /** The operations that pin verified images; empty when denied or nothing changes. */
  readonly patch: readonly JsonPatchOperation[];
  /** Per-site decisions, in site order (init, regular, ephemeral containers, image volumes). */
  readonly sites: readonly SiteDecision[];
  /** Why nothing was checked (`exempt`/`skip`). */
  readonly note?: string;
  /**
   * When denied or warned about: `error` when only failures (nothing the policy decided) were
   * found — a fail-closed denial, or a warning that would be one in enforce mode; else `policy`.
   */
  readonly cause?: DenialCause;
}

/** One image site as the evaluator planned it. */
export interface PlannedSite {
  readonly site: ImageSite;
  readonly match?: PolicyMatch;
  readonly ref?: ImageReference;
  readonly slot?: number;
  readonly immediate?: { outcome: "allow" | "deny" | "warn"; reason?: string; cause?: DenialCause };
}

/** Where a reason applies: `(container "app" at spec.containers[0], image "…")`. */
function location(site: ImageSite): string {
  return `(${site.type} "${quoteInput(site.name)}" at ${site.field}, image "${
    quoteInput(site.image)
  }")`;
}

function describeMatch(match: PolicyMatch): string {
  return `${match.source} (pattern "${match.pattern}")`;
}

/**
 * The decision for `workload` from its planned sites (`items`, in site order) and the verdict of
 * each (undefined: none, the site was decided at once or not checked).
 */
export function decisionOf(
  workload: WorkloadImages,
  items: readonly PlannedSite[],
  verdicts: readonly (ImageVerdict | undefined)[],
  enforcement: EnforcementMode,
): AdmissionDecision {
  const sites: SiteDecision[] = [];
  const reasons: string[] = [];
  const warnings: string[] = [];
  const notices: string[] = [];
  const patch: JsonPatchOperation[] = [];
  items.forEach((item, i) => {
    const site = item.site;
    const verdict = verdicts[i];
    const policy = item.match ? describeMatch(item.match) : undefined;
    const policyRef = item.match
      ? [item.match.kind, item.match.namespace, item.match.name].filter((p) => p).join("/")
      : undefined;
    const base = { site, ...(policy ? { policy, policyRef } : {}) };
    let outcome: SiteDecision["outcome"];
    let reason: string | undefined;
    let cause: DenialCause = "policy";
    let digest: string | undefined;
    let pinned: string | undefined;
    if (item.immediate) {
      outcome = item.immediate.outcome;
      reason = item.immediate.reason;
      cause = item.immediate.cause ?? "policy";
      if (enforcement === "warn" && outcome === "deny") outcome = "warn";
      // A denial always says why, so it is never mistaken for "nothing to report".
      if (outcome !== "allow") reason ??= "the image was not checked";
    } else if (verdict?.allowed === true) {
      outcome = "allow";
      digest = verdict.digest;
      for (const note of verdict.notes ?? []) notices.push(`${note} ${location(site)}`);
      if (digest && item.ref && item.match?.policy.mutateImage !== false && site.pinnable) {
        pinned = pinnedReference(item.ref, digest);
      }
    } else {
      const mode = enforcement === "warn" ? "warn" : item.match?.policy.mode ?? "enforce";
      outcome = mode === "warn" ? "warn" : "deny";
      reason = verdict?.reason ?? "the image was not checked";
      cause = verdict?.allowed === false ? verdict.cause : "error";
      digest = verdict?.digest;
    }
    if (reason !== undefined) {
      const line = `${DENIAL_PREFIX}${reason} ${location(site)}`;
      if (outcome === "deny") reasons.push(line);
      if (outcome === "warn") warnings.push(`warn mode, admitted anyway: ${line}`);
      sites.push({
        ...base,
        outcome,
        reason: line,
        detail: `${DENIAL_PREFIX}${reason}`,
        cause,
        ...(digest ? { digest } : {}),
      });
      return;
    }
    if (pinned !== undefined && pinned !== site.image) {
      patch.push({ op: "replace", path: site.pointer, value: pinned });
    }
    const notes = verdict?.allowed === true ? verdict.notes : undefined;
    sites.push({
      ...base,
      outcome,
      ...(digest ? { digest } : {}),
      ...(pinned ? { pinned } : {}),
      ...(notes && notes.length > 0 ? { notes } : {}),
    });
  });
  // Admitted only when every site was explicitly allowed (or warned about in warn mode),
  // never because no reason was collected; a workload whose images are all blank names
  // nothing to check (see workload.ts) and is admitted for that reason alone.
  const nothingToCheck = workload.sites.length === 0;
  const allowed = nothingToCheck ||
    (sites.length === workload.sites.length &&
      sites.every((s) => s.outcome === "allow" || s.outcome === "warn"));
  const outcome = !allowed ? "deny" : warnings.length > 0 ? "warn" : "allow";
  const flagged = sites.filter((s) => s.outcome === outcome && s.cause !== undefined);
  return {
    allowed,
    outcome,
    kind: workload.kind,
    reasons,
    // Notes of admitted images (an index admitted by its platforms) are told, but are no denial.
    warnings: allowed ? [...warnings, ...notices] : warnings,
    patch: allowed ? patch : [],
    sites,
    ...(outcome === "allow"
      ? {}
      : { cause: flagged.some((s) => s.cause === "policy") ? "policy" : "error" }),
  };
}
