/**
 * PolicyReports kept current: the report controller that runs in the webhook's Deployment (one
 * replica at a time, through a Lease) and writes one `wgpolicyk8s.io/v1alpha2` PolicyReport per
 * namespace from the audit of its workloads; the PolicyReport CRDs an installation brings.
 *
 * @module
 */
export * from "./crds.ts";
export * from "./audited.ts";
export * from "./report.ts";
export * from "./token_bucket.ts";
export * from "./lease.ts";
export * from "./controller.ts";
