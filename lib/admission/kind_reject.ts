/**
 * The `reject` requirement kind: every image it covers is denied, without the registry.
 *
 * @module
 */
import type { RejectRequirement } from "../policy/mod.ts";
import type { RequirementKind } from "./requirement_kind.ts";
import { notVerified } from "./kind_not_verified.ts";

/** `reject`. */
export const rejectKind: RequirementKind<RejectRequirement, never> = {
  type: "reject",
  needs: "deny",
  denial: (image) => `Running image ${image} is rejected by policy.`,
  ...notVerified("reject"),
};
