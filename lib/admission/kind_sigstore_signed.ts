/**
 * The `sigstoreSigned` requirement kind: a cosign signature of the digest, read from the
 * image's registry in either storage format (the `.sig` tag, OCI referrers) and verified by
 * lib/sigstore against the PEM keys of `keySecret` or, keyless, the Fulcio CAs and identities
 * of its trust root, with the log and timestamp evidence it asks for.
 *
 * @module
 */
import { withDefaultTag } from "../image/mod.ts";
import type { SigstoreSignedRequirement } from "../policy/mod.ts";
import { openCosignSignatures } from "../registry/mod.ts";
import { type IdentityRule, NO_SIGNATURE_REASON, noSignatureAccepted } from "../signature/mod.ts";
import {
  loadSigstoreVerification,
  type SigstoreTrust,
  type VerifiedCosignSignature,
} from "../sigstore/mod.ts";
import { PolicyConfigError } from "./errors.ts";
import type { KindOutcome, RequirementKind } from "./requirement_kind.ts";
import { neverDenies } from "./kind_not_verified.ts";

/** A `sigstoreSigned` requirement, ready to verify with. */
export interface SigstorePlan {
  readonly trust: SigstoreTrust;
  /** The `signedIdentity` rule; undefined: the default for cosign signatures. */
  readonly rule: IdentityRule | undefined;
  /** Identifies what the verdict depends on, for the cache key. */
  readonly id: string;
}

/** `sigstoreSigned`. */
export const sigstoreSignedKind: RequirementKind<SigstoreSignedRequirement, SigstorePlan> = {
  type: "sigstoreSigned",
  needs: "signature",
  denial: neverDenies("sigstoreSigned"),
  async plan(requirement, { match, policyNamespace, services }) {
    const explicit = requirement.signedIdentity !== undefined &&
      requirement.signedIdentity.type !== "";
    const identity = explicit ? services.identityRules.rule(requirement) : undefined;
    const ruleId = identity?.id ?? "default";
    if (requirement.keySecret) {
      const keys = await services.sigstoreKeys.sigstoreKeys(
        requirement.keySecretNamespace || policyNamespace,
        requirement.keySecret,
      );
      const tlog = requirement.tlog ?? "optional";
      const trustRoot = requirement.trustRootRef
        ? await services.sigstoreMaterial.trustRoot(requirement.trustRootRef, policyNamespace)
        : undefined;
      if (tlog === "required" && trustRoot === undefined) {
        throw new PolicyConfigError(
          `Cannot use ${match.source}: a sigstoreSigned requirement of "${match.pattern}" with tlog: required has no trustRootRef`,
        );
      }
      return {
        trust: { keys: keys.keys, tlog, trustRoot },
        rule: identity?.rule,
        id: `key:${keys.id}/${tlog}/${trustRoot?.id ?? "-"}/${ruleId}`,
      };
    }
    if (requirement.keyless) {
      const trustRoot = await services.sigstoreMaterial.trustRoot(
        requirement.keyless.trustRootRef,
        policyNamespace,
      );
      const identities = await services.identityRules.identities(requirement.keyless.identities);
      const tlog = requirement.tlog ?? "required";
      return {
        trust: { keyless: { trustRoot, identities: identities.matcher }, tlog },
        rule: identity?.rule,
        id: `keyless:${trustRoot.id}/${identities.id}/${tlog}/${ruleId}`,
      };
    }
    throw new PolicyConfigError(
      `Cannot use ${match.source}: a sigstoreSigned requirement of "${match.pattern}" has neither keySecret nor keyless`,
    );
  },
  planKey: (plan) => plan.id,
  async verify(plans, image, services): Promise<KindOutcome> {
    const { digest, signal, budget, listings } = image;
    // Read as they are checked: the first that meets each requirement ends the reading.
    using stored = openCosignSignatures(image.client, image.reference, digest, {
      signal,
      budget,
      listings,
    });
    const { verifyCosignSignature } = await loadSigstoreVerification();
    const reference = withDefaultTag(image.reference);
    const accepted: VerifiedCosignSignature[] = [];
    for (const plan of plans) {
      const reasons: string[] = [];
      let found: VerifiedCosignSignature | undefined;
      for await (const signature of stored.signatures()) {
        // One signature's checks take a few milliseconds at most: the next waits for a turn
        // once the process's shared slice is spent.
        if (reasons.length > 0 && services.turns.due()) await services.turns.next();
        signal.throwIfAborted();
        const result = await verifyCosignSignature(signature, plan.trust, {
          manifestDigest: digest,
          reference,
          identityRule: plan.rule,
        });
        if (result.verified) {
          found = result.signature;
          break;
        }
        reasons.push(result.reason);
      }
      if (found === undefined) {
        reasons.push(...stored.skipped);
        const reason = reasons.length === 0 ? NO_SIGNATURE_REASON : noSignatureAccepted(reasons);
        return { allowed: false, reason, cause: "policy" };
      }
      accepted.push(found);
    }
    return {
      allowed: true,
      signers: accepted.map((s) => s.signer),
      explained: { acceptedCosign: accepted },
    };
  },
};
