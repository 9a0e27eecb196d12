/**
 * The admission decision shared by the webhook and `toolkit image-security check`: workloads
 * and their image sites (containers and image volumes), policy choice, image verification
 * (digest resolution, signatures from the registry extension, `storeURL` or the registries.d
 * lookaside, keys from Secrets, identity rules) with a verdict cache, the JSON patch that pins
 * images, warn mode and exemptions, and where policies come from (watches of the API server, or
 * YAML files).
 *
 * Everything Kubernetes is `lib/kube`'s: the webhook's connection (`kube_connection.ts` only
 * picks what the webhook accepts), the list+watch reflectors and the resource paths the cluster
 * policy source (`kube_source.ts`) is built on, and the Events recorder behind the denial Events
 * (`events.ts`).
 *
 * ```ts
 * import {
 *   createAdmissionEvaluator,
 *   createImageVerifier,
 *   filePolicySource,
 *   loadPolicyFiles,
 *   parseAdmissionReview,
 * } from "./mod.ts";
 *
 * const source = filePolicySource(await loadPolicyFiles(["policies.yaml"], { groups: ["toolkit.dev"] }));
 * const verifier = createImageVerifier({
 *   source,
 *   clusterKeyNamespace: "toolkit-system",
 *   flightTimeoutMs: 8000,
 *   verdictCache: { ttlMs: 300_000, maxEntries: 10_000 },
 *   digestCache: { ttlMs: 30_000, maxEntries: 10_000 },
 * });
 * const evaluator = createAdmissionEvaluator({
 *   source,
 *   verifier,
 *   settings: { mode: "enforce", noMatch: "deny", controllerNamespace: "toolkit-system", budgetMs: 8000 },
 * });
 * declare const body: unknown;
 * const decision = await evaluator.evaluate(parseAdmissionReview(body));
 * ```
 *
 * @module
 */
export * from "./review.ts";
export * from "./workload.ts";
export * from "./errors.ts";
export * from "./deadline.ts";
export * from "./cache.ts";
export * from "./source.ts";
export * from "./keys.ts";
export * from "./sigstore_material.ts";
export * from "./trust_expiry.ts";
export * from "./credentials.ts";
export * from "./verifier.ts";
export * from "./evaluate.ts";
export * from "./response.ts";
export * from "./file_source.ts";
export * from "./kube_connection.ts";
export * from "./kube_source.ts";
export * from "./events.ts";
export * from "./memory_budget.ts";
