/**
 * The one list of requirement kinds. A kind is one module implementing
 * {@linkcode RequirementKind} (`kind_*.ts`); it is known to the verifier once it is listed here.
 * The list is typed by the requirement types of lib/policy: a type added there without its
 * module here fails `deno check`, and a requirement whose type no module knows (a policy not
 * validated by lib/policy) is denied.
 *
 * The order is the order of verification: the `sigstoreSigned` requirements of a policy are
 * verified before its `signedBy` ones.
 *
 * @module
 */
import type { Requirement, RequirementOf, RequirementType } from "../policy/mod.ts";
import { acceptAnythingKind } from "./kind_accept_anything.ts";
import { attestationKind } from "./kind_attestation.ts";
import { notVerified } from "./kind_not_verified.ts";
import { rejectKind } from "./kind_reject.ts";
import { signedByKind } from "./kind_signed_by.ts";
import { sigstoreSignedKind } from "./kind_sigstore_signed.ts";
import type { AnyRequirementKind, RequirementKind } from "./requirement_kind.ts";

/** Every requirement kind, by type: the one place a kind is registered. */
export const REQUIREMENT_KINDS: {
  readonly [T in RequirementType]: RequirementKind<RequirementOf<T>>;
} = {
  sigstoreSigned: sigstoreSignedKind,
  signedBy: signedByKind,
  insecureAcceptAnything: acceptAnythingKind,
  reject: rejectKind,
  attestation: attestationKind,
};

/** The kinds in order of verification. */
export const KIND_ORDER: readonly AnyRequirementKind[] = Object.values(REQUIREMENT_KINDS);

/** The kind of a requirement whose type no module knows: it denies every image. */
export function unknownKind(type: string): AnyRequirementKind {
  return {
    type,
    needs: "deny",
    denial: (image) =>
      `Running image ${image} is denied: the policy has a requirement of type "${type}", which toolkit does not know`,
    ...notVerified(type),
  };
}

/** The kind of `requirement`; an unknown type's denies. */
export function kindOf(requirement: Requirement): AnyRequirementKind {
  const type: string = requirement.type;
  return Object.hasOwn(REQUIREMENT_KINDS, type)
    ? REQUIREMENT_KINDS[type as RequirementType]
    : unknownKind(type);
}
