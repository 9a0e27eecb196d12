/**
 * The one list of importers: each source format is one module, registered here with one line.
 * A document goes to the first importer that accepts it.
 *
 * @module
 */
import { CONNAISSEUR_IMPORTER } from "./connaisseur.ts";
import { POLICY_CONTROLLER_IMPORTER } from "./policy_controller.ts";
import type { PolicyImporter } from "./types.ts";

/** Every importer, in the order documents are offered to them. */
export const IMPORTERS: readonly PolicyImporter[] = [
  POLICY_CONTROLLER_IMPORTER,
  CONNAISSEUR_IMPORTER,
];
