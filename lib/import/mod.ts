/**
 * Importing the peers' image policies (sigstore policy-controller, Kyverno, Connaisseur) as
 * toolkit's policies, with every field that is not carried over as it was reported by its path
 * (`toolkit image-security import`, docs/migration.md).
 *
 * @module
 */
export * from "./types.ts";
export * from "./naming.ts";
export * from "./objects.ts";
export * from "./overlap.ts";
export * from "./report.ts";
export * from "./importers.ts";
export * from "./import_documents.ts";
export {
  POLICY_CONTROLLER_GROUP,
  POLICY_CONTROLLER_IMPORTER,
  POLICY_CONTROLLER_INCLUDE_LABEL,
  POLICY_CONTROLLER_VERSIONS,
} from "./policy_controller.ts";
