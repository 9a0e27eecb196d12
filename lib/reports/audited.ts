/**
 * What the report controller receives from an audit (`lib/audit`'s `AuditedImage`) and how it
 * asks for one.
 *
 * @module
 */
import { type AuditedImage, type AuditKube, denied } from "../audit/mod.ts";

export { type AuditedImage, denied };

/** The part of a client an audit lists workloads with (`lib/audit`'s `AuditKube`). */
export type AuditLister = AuditKube;

/**
 * Audits the workloads of one namespace as `lister` lists them (the controller's copies):
 * `lib/audit`'s `auditWorkloads` with the controller's evaluator, each workload's images given to
 * `onImages` as they are judged (`AuditOptions.onImages`), so that the controller holds no more
 * than one report's results.
 */
export type AuditFunction = (
  lister: AuditLister,
  namespace: string,
  signal: AbortSignal,
  onImages: (images: readonly AuditedImage[]) => void,
) => Promise<unknown>;
