/**
 * What the report controller receives from an audit (`lib/audit`'s `AuditedImage`) and how it
 * asks for one.
 *
 * @module
 */
import type { AuditedImage, AuditKube } from "../audit/mod.ts";

export type { AuditedImage };

/** The part of a client an audit lists workloads with (`lib/audit`'s `AuditKube`). */
export type AuditLister = AuditKube;

/**
 * Audits the workloads of `namespaces` (all when undefined) as `lister` lists them (the
 * controller's reflectors' copies): `lib/audit`'s `auditWorkloads` with the controller's
 * evaluator.
 */
export type AuditFunction = (
  lister: AuditLister,
  namespaces: readonly string[] | undefined,
  signal: AbortSignal,
) => Promise<readonly AuditedImage[]>;
