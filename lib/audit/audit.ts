/**
 * The audit of what already runs: every workload's image sites (containers, init and ephemeral
 * containers, image volumes) judged by the webhook's own evaluator (`lib/admission`), one
 * synthetic CREATE review per workload, each site's verdict read from the decision. No second
 * implementation: what the audit says would be denied is what the webhook denies.
 *
 * The work is bounded as the webhook's is: the evaluator verifies each distinct image once (its
 * verdict cache and shared flights: workloads that name one digest wait on one verification),
 * its `maxVerificationsInFlight` bounds the registry work in flight, and at most
 * {@linkcode AuditDeps.concurrency} workloads are under review at once.
 *
 * @module
 */
import {
  type AdmissionDecision,
  type AdmissionEvaluator,
  type ImageSite,
  type SiteDecision,
  workloadImages,
} from "../admission/mod.ts";
import { mapLimit } from "../map_limit.ts";
import {
  type AuditKube,
  type AuditTarget,
  createRequest,
  listAuditTargets,
  uidOf,
} from "./workloads.ts";

/** One image site of one workload and its verdict. */
export interface AuditedImage {
  readonly namespace: string;
  readonly workload: { readonly kind: string; readonly name: string; readonly uid?: string };
  /**
   * The container's name; `init:NAME`, `ephemeral:NAME` for init and ephemeral containers,
   * `volume:NAME` for an image volume.
   */
  readonly container: string;
  readonly image: string;
  /**
   * `pass`: admitted; `fail`: would be denied; `warn`: denied under a warn-mode policy or
   * namespace (admitted with a warning); `error`: could not be verified (denied too).
   */
  readonly verdict: "pass" | "fail" | "warn" | "error";
  /** Why (the denial reason without its location), or what was verified. */
  readonly message: string;
  /** The policy that decided: `ClusterImagePolicy/NAME` or `ImagePolicy/NAMESPACE/NAME`. */
  readonly policy?: string;
  /** The digest the image was resolved to, when it was. */
  readonly digest?: string;
  /** The field that names the image: `spec.template.spec.containers[0]`. */
  readonly field?: string;
}

/** Whether an image would be denied: a `fail` or `error` verdict. */
export function denied(image: Pick<AuditedImage, "verdict">): boolean {
  return image.verdict === "fail" || image.verdict === "error";
}

/** What an audit reads and judges with. */
export interface AuditDeps {
  /** Lists the workloads (`lib/kube`'s client, or the part of it with `list`). */
  readonly kube: AuditKube;
  /**
   * The webhook's evaluator (`createAdmissionEvaluator`), over the policies to judge by (the
   * cluster's, or files) and the webhook's verifier wrapped by `auditVerifier` (one
   * verification per distinct image, denials included); its `maxVerificationsInFlight` bounds
   * the registry work in flight.
   */
  readonly evaluator: AdmissionEvaluator;
  /** The most workloads under review at once. @default {@linkcode AUDIT_CONCURRENCY} */
  readonly concurrency?: number;
}

/** What to audit. */
export interface AuditOptions {
  /** The namespaces; undefined: all of them. */
  readonly namespaces?: readonly string[];
  /** Stops the audit: it rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Told after each workload: how many are done, of how many. */
  readonly onProgress?: (done: number, total: number) => void;
  /**
   * Receives each workload's audited images as it is judged, instead of the result: the audit
   * then holds no more than the workloads under review (the report controller counts them as
   * they come, `lib/reports`' `ReportBuilder`), and resolves to an empty list.
   */
  readonly onImages?: (images: readonly AuditedImage[]) => void;
}

/** The default number of workloads under review at once. */
export const AUDIT_CONCURRENCY = 16;

/** How a site is named in a report (see {@linkcode AuditedImage.container}). */
export function siteName(site: ImageSite): string {
  switch (site.list) {
    case "initContainers":
      return `init:${site.name}`;
    case "ephemeralContainers":
      return `ephemeral:${site.name}`;
    case "volumes":
      return `volume:${site.name}`;
    default:
      return site.name;
  }
}

function siteVerdict(site: SiteDecision): AuditedImage["verdict"] {
  if (site.outcome === "allow") return "pass";
  if (site.outcome === "warn") return "warn";
  return site.cause === "error" ? "error" : "fail";
}

function passMessage(site: SiteDecision): string {
  if (site.digest) return `verified ${site.digest}`;
  return site.policy ? `allowed by ${site.policy}` : "allowed: no policy matches";
}

/** The audited images of one workload from its decision. */
export function auditedImages(target: AuditTarget, decision: AdmissionDecision): AuditedImage[] {
  const object = target.object;
  const uid = uidOf(object);
  const base = {
    namespace: object.metadata.namespace ?? "",
    workload: { kind: target.type.kind, name: object.metadata.name, ...(uid ? { uid } : {}) },
  };
  const request = createRequest(target.type, object);
  const images = workloadImages(request);
  const sites = images.sites ?? [];
  if (decision.sites.length === sites.length) {
    return decision.sites.map((s) => ({
      ...base,
      container: siteName(s.site),
      image: s.site.image,
      verdict: siteVerdict(s),
      message: s.outcome === "allow" ? passMessage(s) : s.detail ?? s.reason ?? "",
      ...(s.policyRef ? { policy: s.policyRef } : {}),
      ...(s.digest ? { digest: s.digest } : {}),
      field: s.site.field,
    }));
  }
  // Decided for the whole object (exempt namespace, too many images, policies not loaded,
  // an internal error): every site shares the decision.
  const verdict: AuditedImage["verdict"] = decision.outcome === "exempt" ||
      decision.outcome === "skip" || decision.outcome === "allow"
    ? "pass"
    : decision.outcome === "warn"
    ? "warn"
    : decision.note === "not ready" || decision.note === "internal error"
    ? "error"
    : "fail";
  const message = decision.reasons[0] ?? decision.warnings[0] ?? decision.note ??
    decision.outcome;
  return sites.map((site) => ({
    ...base,
    container: siteName(site),
    image: site.image,
    verdict,
    message,
    field: site.field,
  }));
}

/**
 * Audits the workloads of `options.namespaces` (all when undefined): each image site of each
 * workload, in listing order (owners first, then by namespace and name).
 *
 * @throws the errors of listing (`lib/kube`'s typed errors), or the signal's reason.
 */
export async function auditWorkloads(
  deps: AuditDeps,
  options: AuditOptions = {},
): Promise<readonly AuditedImage[]> {
  const { signal } = options;
  const targets = await listAuditTargets(deps.kube, options.namespaces, signal);
  let done = 0;
  options.onProgress?.(0, targets.length);
  const results = await mapLimit(
    targets,
    deps.concurrency ?? AUDIT_CONCURRENCY,
    async (target) => {
      signal?.throwIfAborted();
      const decision = await deps.evaluator.evaluate(
        createRequest(target.type, target.object),
        signal,
      );
      signal?.throwIfAborted();
      const images = auditedImages(target, decision);
      options.onProgress?.(++done, targets.length);
      if (options.onImages === undefined) return images;
      options.onImages(images);
      return [];
    },
  );
  return results.flat();
}
