/**
 * The configuration `check` and `audit` read from files the user names, as the webhook reads it:
 * policy files (`-f`/`--policy`) and the registries.d directory (`--registries.d`); what is
 * wrong in them is a usage error naming it.
 *
 * @module
 */
import { resolvePath } from "./files.ts";
import { UsageError } from "../../lib/errors.ts";
import {
  loadRegistriesD,
  RegistriesConfigError,
  type RegistriesD,
} from "../../lib/lookaside/mod.ts";
import { API_GROUP, InvalidPolicyError, PORTIERIS_API_GROUP } from "../../lib/policy/mod.ts";
import { loadPolicyFiles, type PolicyDocuments, PolicyFileError } from "../../lib/admission/mod.ts";

/** The policy files at `paths` (toolkit's and Portieris' API groups). */
export async function readPolicyFiles(
  paths: readonly string[],
  options: { readonly defaultNamespace?: string } = {},
): Promise<PolicyDocuments> {
  try {
    return await loadPolicyFiles(paths, { groups: [API_GROUP, PORTIERIS_API_GROUP], ...options });
  } catch (error) {
    if (error instanceof InvalidPolicyError || error instanceof PolicyFileError) {
      throw new UsageError(error.message, { cause: error });
    }
    throw error;
  }
}

/** The registries.d directory at `path` (relative to `cwd`). */
export async function readRegistriesD(cwd: string, path: string): Promise<RegistriesD> {
  try {
    return await loadRegistriesD(resolvePath(cwd, path));
  } catch (error) {
    if (error instanceof RegistriesConfigError) {
      throw new UsageError(error.message, { cause: error });
    }
    throw error;
  }
}
