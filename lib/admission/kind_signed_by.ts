/**
 * The `signedBy` requirement kind: a simple (GnuPG) signature of the digest, by one of the keys
 * of `keySecret`, under the `signedIdentity` rule, read from the policy's signature store
 * (storeURL, the registry's extension, a registries.d lookaside). All `signedBy` requirements
 * of a policy are met from one reading of the store, one signature at a time.
 *
 * @module
 */
import { withDefaultTag } from "../image/mod.ts";
import type { SignedByRequirement } from "../policy/mod.ts";
import { type IdentityRule, verifyRequirements } from "../signature/mod.ts";
import { PolicyConfigError } from "./errors.ts";
import type { TrustedKeys } from "./keys.ts";
import type { KindOutcome, RequirementKind } from "./requirement_kind.ts";
import { neverDenies } from "./kind_not_verified.ts";

/** The largest signature read from a store or accepted (see `MAX_ADMITTED_SIGNATURE_BYTES`). */
export const MAX_SIMPLE_SIGNATURE_BYTES = 256 * 1024;

/** A `signedBy` requirement, ready to verify with. */
export interface SignedByPlan {
  readonly keys: TrustedKeys;
  readonly rule: IdentityRule;
  readonly ruleId: string;
}

/** The denial when no signature store is configured for the image's registry. */
export function noSignatureStore(registry: string): string {
  return `A signature was required, but no signature store is configured for "${registry}" (set storeURL or a registries.d lookaside)`;
}

/** `signedBy`. */
export const signedByKind: RequirementKind<SignedByRequirement, SignedByPlan> = {
  type: "signedBy",
  needs: "signature",
  denial: neverDenies("signedBy"),
  async plan(requirement, { match, policyNamespace, services }) {
    if (!requirement.keySecret) {
      throw new PolicyConfigError(
        `Cannot use ${match.source}: a signedBy requirement of "${match.pattern}" has no keySecret`,
      );
    }
    const keys = await services.keys.keys(
      requirement.keySecretNamespace || policyNamespace,
      requirement.keySecret,
    );
    const { rule, id } = services.identityRules.rule(requirement);
    return { keys, rule, ruleId: id };
  },
  planKey: (plan) => `${plan.keys.id}/${plan.ruleId}`,
  async verify(plans, image, services): Promise<KindOutcome> {
    const { reference, digest, signal, budget } = image;
    const digestRef = { ...reference, digest };
    const choice = await image.store();
    if (choice === undefined) {
      return { allowed: false, reason: noSignatureStore(reference.domain), cause: "error" };
    }
    // Read one signature at a time, only as far as the requirements need.
    const result = await verifyRequirements({
      signatures: choice.store.signatures(digestRef, digest, { budget, signal }),
      requirements: plans.map((plan) => ({ publicKeys: plan.keys.keys, identityRule: plan.rule })),
      expected: { manifestDigest: digest, reference: withDefaultTag(reference) },
      clock: services.clock,
      maxSize: MAX_SIMPLE_SIGNATURE_BYTES,
    });
    if (!result.verified) return { allowed: false, reason: result.reason, cause: "policy" };
    const accepted = result.signatures;
    let validUntil: number | undefined;
    for (const signature of accepted) {
      const until = signature.validUntil?.getTime();
      if (until !== undefined) validUntil = Math.min(validUntil ?? until, until);
    }
    return {
      allowed: true,
      signers: accepted.map((s) => s.keyFingerprint),
      validUntil,
      explained: { store: choice.where, accepted },
    };
  },
};
