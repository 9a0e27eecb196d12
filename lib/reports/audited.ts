/**
 * What the report controller receives from an audit (`lib/audit`'s `AuditedImage`, the fields it
 * reads) and how it asks for one.
 *
 * @module
 */
import type { KubeClient } from "../kube/mod.ts";

/** One image site of one workload and its verdict (`lib/audit`'s `AuditedImage`). */
export interface AuditedImage {
  readonly namespace: string;
  readonly workload: { readonly kind: string; readonly name: string; readonly uid?: string };
  readonly container: string;
  readonly image: string;
  readonly verdict: "pass" | "fail" | "warn" | "error";
  readonly message: string;
  readonly policy?: string;
  readonly digest?: string;
}

/** The part of a client an audit lists workloads with. */
export type AuditLister = Pick<KubeClient, "list">;

/**
 * Audits the workloads of `namespaces` as `lister` lists them (the controller's reflectors'
 * copies): `lib/audit`'s `auditWorkloads` with the controller's evaluator.
 */
export type AuditFunction = (
  lister: AuditLister,
  namespaces: readonly string[] | undefined,
  signal: AbortSignal,
) => Promise<readonly AuditedImage[]>;
