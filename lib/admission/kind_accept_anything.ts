/**
 * The `insecureAcceptAnything` requirement kind: any image is admitted; the verifier still
 * resolves its digest to pin it, unless the policy says `mutateImage: false`.
 *
 * @module
 */
import type { AcceptAnythingRequirement } from "../policy/mod.ts";
import type { RequirementKind } from "./requirement_kind.ts";
import { neverDenies, notVerified } from "./kind_not_verified.ts";

/** `insecureAcceptAnything`. */
export const acceptAnythingKind: RequirementKind<AcceptAnythingRequirement, never> = {
  type: "insecureAcceptAnything",
  needs: "digest",
  denial: neverDenies("insecureAcceptAnything"),
  ...notVerified("insecureAcceptAnything"),
};
