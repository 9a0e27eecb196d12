/**
 * The typed form of toolkit's (and Portieris's) image policies, after validation.
 *
 * @module
 */
import type { POLICY_MODES, REQUIREMENT_TYPES, SIGNED_IDENTITY_TYPES } from "./crds.ts";

/** A requirement type: `signedBy`, `insecureAcceptAnything` or `reject`. */
export type RequirementType = typeof REQUIREMENT_TYPES[number];

/** A signedIdentity type, under either of its names. */
export type SignedIdentityType = typeof SIGNED_IDENTITY_TYPES[number];

/** `enforce` or `warn`. */
export type PolicyMode = typeof POLICY_MODES[number];

/** `policy.simple.requirements[].signedIdentity`. */
export interface SignedIdentity {
  readonly type: SignedIdentityType;
  readonly dockerReference?: string;
  readonly dockerRepository?: string;
  readonly prefix?: string;
  readonly signedPrefix?: string;
}

/** `policy.simple.requirements[]`. */
export interface Requirement {
  readonly type: RequirementType;
  readonly keySecret?: string;
  readonly keySecretNamespace?: string;
  readonly signedIdentity?: SignedIdentity;
}

/** `repositories[].policy`. An empty policy admits without checks. */
export interface RepositoryPolicy {
  /** Pin admitted images to the verified digest (default true). */
  readonly mutateImage?: boolean;
  /** `enforce` (default) or `warn`. */
  readonly mode?: PolicyMode;
  readonly simple?: {
    readonly storeURL?: string;
    readonly storeSecret?: string;
    readonly requirements?: readonly Requirement[];
  };
  /** Portieris's Docker Content Trust: not supported, an enabled one denies. */
  readonly trust?: { readonly enabled?: boolean };
  /** Portieris's Vulnerability Advisor: not supported, an enabled one denies. */
  readonly vulnerability?: { readonly ICCRVA?: { readonly enabled?: boolean } };
}

/** `spec.repositories[]`. */
export interface RepositoryRule {
  /** The image name pattern. */
  readonly name: string;
  /** What matching images must satisfy. */
  readonly policy: RepositoryPolicy;
}

/** A validated ClusterImagePolicy or ImagePolicy. */
export interface ImagePolicy {
  readonly kind: "ClusterImagePolicy" | "ImagePolicy";
  readonly name: string;
  /** The namespace of an ImagePolicy. */
  readonly namespace?: string;
  readonly repositories: readonly RepositoryRule[];
}
