/**
 * The one list of importers: each source format is one module, registered here with one line.
 * A document goes to the first importer that accepts it.
 *
 * @module
 */
import { kyvernoClusterPolicyImporter } from "./kyverno_clusterpolicy.ts";
import { kyvernoImageValidatingPolicyImporter } from "./kyverno_ivp.ts";
import { CONNAISSEUR_IMPORTER } from "./connaisseur.ts";
import { POLICY_CONTROLLER_IMPORTER } from "./policy_controller.ts";
import { POLICY_CONTROLLER_TRUST_ROOT_IMPORTER } from "./policy_controller_trust_root.ts";
import type { PolicyImporter } from "./types.ts";

/** Every importer, in the order documents are offered to them. */
export const IMPORTERS: readonly PolicyImporter[] = [
  POLICY_CONTROLLER_IMPORTER,
  POLICY_CONTROLLER_TRUST_ROOT_IMPORTER,
  kyvernoClusterPolicyImporter,
  kyvernoImageValidatingPolicyImporter,
  CONNAISSEUR_IMPORTER,
];
