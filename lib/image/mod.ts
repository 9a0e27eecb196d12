/**
 * Container image references: parsing, normalisation (`nginx` → `docker.io/library/nginx`) and
 * formatting, by the distribution reference grammar; registry hosts in one canonical spelling
 * (`canonicalDomain`: `REG.example.com:0443` → `reg.example.com`), the one every comparison of
 * registries uses.
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
