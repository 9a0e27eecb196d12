/**
 * What a requirement kind is: one module that checks a requirement's fields and reads what it
 * trusts (its plan), verifies one image against every requirement of its kind, and describes
 * its denials. The kinds are listed once, in `requirement_kinds.ts`; the verifier composes them.
 *
 * @module
 */
import type { ImageReference } from "../image/mod.ts";
import type { PolicyMatch, Requirement } from "../policy/mod.ts";
import type { CosignListings, RegistryClient, SignatureStoreChoice } from "../registry/mod.ts";
import type { VerifiedSignature } from "../signature/mod.ts";
import type { VerifiedCosignSignature } from "../sigstore/mod.ts";
import type { ReadBudget } from "../read_budget.ts";
import type { TurnScheduler } from "../turns.ts";
import type { IdentityRules } from "./identity_rules.ts";
import type { KeySource } from "./keys.ts";
import type { AttestationKeySource } from "./attestation_keys.ts";
import type { SigstoreKeySource, SigstoreMaterialStore } from "./sigstore_material.ts";

/** What the kinds read through, built once by the verifier. */
export interface KindServices {
  /** The OpenPGP keys of `signedBy` requirements. */
  readonly keys: KeySource;
  /** The PEM keys of keyed `sigstoreSigned` requirements. */
  readonly sigstoreKeys: SigstoreKeySource;
  /**
   * The keys of `attestation` requirements (PEM, OpenPGP or both in one Secret); without it,
   * a Secret is read by both `sigstoreKeys` and `keys`, each keeping what it can read.
   */
  readonly attestationKeys?: AttestationKeySource;
  /** Trust roots from the cluster. */
  readonly sigstoreMaterial: Pick<SigstoreMaterialStore, "trustRoot">;
  /** `signedIdentity` rules and keyless identities, parsed once. */
  readonly identityRules: IdentityRules;
  /** Where one signature's checks wait for their turn. */
  readonly turns: TurnScheduler;
  /** The time signatures and keys must be valid at. */
  readonly clock: () => Date;
}

/** Where a requirement is planned: the policy that holds it, and where its objects are. */
export interface PlanContext {
  /** The policy chosen for the image (its `source` and `pattern` name it in errors). */
  readonly match: PolicyMatch;
  /** The namespace of a policy's Secrets and ConfigMaps by default (its own, or ours). */
  readonly policyNamespace: string;
  readonly services: KindServices;
}

/** One image to verify, resolved to its digest, with what its verification may read. */
export interface ImageToVerify {
  /** The image as the workload names it. */
  readonly reference: ImageReference;
  readonly digest: string;
  /** The registry client of the workload's pull credentials. */
  readonly client: RegistryClient;
  /** The policy's signature store (storeURL, the registry's extension, registries.d), if any. */
  store(): Promise<SignatureStoreChoice | undefined>;
  /** Aborts when nobody waits for the verification any more, or at its deadline. */
  readonly signal: AbortSignal;
  /** What the verification's reads reserve from. */
  readonly budget: ReadBudget;
  /**
   * The referrers lists the verification's cosign readers share (the signature kind's and the
   * attestation kind's list the same referrers of an image): one per verification, never
   * global. Without it, each reader asks for its own.
   */
  readonly listings?: CosignListings;
}

/** What a verifiable kind says about one image. */
export type KindOutcome =
  | { readonly allowed: false; readonly reason: string; readonly cause: "policy" | "error" }
  | {
    readonly allowed: true;
    /** Who signed (key fingerprints, or the cosign signer). */
    readonly signers: readonly string[];
    /** Milliseconds since the epoch until when the signatures and keys relied on are valid. */
    readonly validUntil?: number | undefined;
    /**
     * What the answer should tell besides (an index admitted by its platforms' signatures): sent
     * as warnings.
     */
    readonly notes?: readonly string[];
    /** For `VerifierOptions.explain`: where signatures were read and which were accepted. */
    readonly explained?: {
      readonly store?: string;
      readonly accepted?: readonly VerifiedSignature[];
      readonly acceptedCosign?: readonly VerifiedCosignSignature[];
    };
  };

/**
 * One requirement kind. `needs` says what the verifier does with it:
 *
 * - `deny`: every image is denied without the registry, with {@linkcode RequirementKind.denial};
 * - `digest`: admits, once the digest is known (the image is pinned to it);
 * - `signature`: {@linkcode RequirementKind.plan} and {@linkcode RequirementKind.verify} decide.
 */
export interface RequirementKind<R extends Requirement, P = unknown> {
  readonly type: R["type"];
  readonly needs: "deny" | "digest" | "signature";
  /** Describes the denial of `image` (`docker://…`) by a `deny` kind. */
  denial(image: string): string;
  /**
   * Checks the requirement's fields and reads what it trusts (keys, trust roots, identity
   * rules): a requirement that cannot be used throws a PolicyConfigError naming the policy.
   */
  plan(requirement: R, context: PlanContext): Promise<P>;
  /** What a verdict under the plan depends on (key material, rules), for the verdict cache. */
  planKey(plan: P): string;
  /**
   * Optional: starts the reads of the kind's `verify` for `image` before the kinds before it
   * have verified, so that their registry round trips overlap (an attestation's beside a
   * signature's). What it returns is handed to `verify` and disposed of after the image is
   * verified, whether or not `verify` ran.
   */
  prepare?(plans: readonly P[], image: ImageToVerify): Disposable;
  /**
   * Verifies one image against every requirement of this kind (their plans, in order), with
   * what `prepare` started, if anything.
   */
  verify(
    plans: readonly P[],
    image: ImageToVerify,
    services: KindServices,
    prepared?: Disposable,
  ): Promise<KindOutcome>;
}

/** A kind seen without its own types, as the verifier composes them. */
// deno-lint-ignore no-explicit-any
export type AnyRequirementKind = RequirementKind<any, any>;
