/**
 * Container image references: parsing, normalisation (`nginx` → `docker.io/library/nginx`) and
 * formatting, by the distribution reference grammar.
 *
 * ```ts
 * import { formatReference, parseReference, withDefaultTag } from "./mod.ts";
 *
 * const ref = parseReference("nginx");
 * formatReference(withDefaultTag(ref)); // "docker.io/library/nginx:latest"
 * ```
 *
 * @module
 */
export * from "./reference.ts";
