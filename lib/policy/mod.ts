/**
 * Image policies: the CRDs, their validation, and which policy applies to an image.
 *
 * @module
 */
export * from "./crds.ts";
export * from "./types.ts";
export * from "./validate.ts";
export * from "./pattern.ts";
export * from "./select.ts";
export * from "./predicate_types.ts";
export * from "./attestation_conditions.ts";
