/**
 * The audit of running workloads: which images the admission webhook would deny if they were
 * created now, judged by the webhook's own evaluator (`lib/admission`). `toolkit image-security
 * audit` and `rollout` print and act on it; the PolicyReport controller writes it.
 *
 * ```ts
 * import { auditWorkloads, denied } from "./mod.ts";
 * import type { KubeClient } from "../kube/mod.ts";
 * import type { AdmissionEvaluator } from "../admission/mod.ts";
 *
 * declare const kube: KubeClient;
 * declare const evaluator: AdmissionEvaluator;
 * const images = await auditWorkloads({ kube, evaluator }, { namespaces: ["team"] });
 * const wouldBeDenied = images.filter(denied);
 * ```
 *
 * @module
 */
export * from "./workloads.ts";
export * from "./audit.ts";
export * from "./verdicts.ts";
