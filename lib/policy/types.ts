/**
 * The typed form of toolkit's (and Portieris's) image policies, after validation.
 *
 * @module
 */
import type {
  MULTI_ARCH_RULES,
  POLICY_MODES,
  REQUIREMENT_TYPES,
  SIGNED_IDENTITY_TYPES,
  TLOG_POLICIES,
  TRUST_ROOT_KINDS,
} from "./crds.ts";

/**
 * A requirement type: `signedBy`, `sigstoreSigned`, `attestation`, `insecureAcceptAnything` or
 * `reject`.
 */
export type RequirementType = typeof REQUIREMENT_TYPES[number];

/** `required` or `optional`. */
export type TlogPolicy = typeof TLOG_POLICIES[number];

/** A signedIdentity type, under either of its names. */
export type SignedIdentityType = typeof SIGNED_IDENTITY_TYPES[number];

/** `index`, `everyPlatform` or `either`: what must be signed when the image is an index. */
export type MultiArchRule = typeof MULTI_ARCH_RULES[number];

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

/** Where a sigstore `trusted_root.json` is kept in the cluster. */
export interface TrustRootRef {
  /** `ConfigMap` (the default) or `Secret`. */
  readonly kind: typeof TRUST_ROOT_KINDS[number];
  readonly name: string;
  /** Default: the controller's namespace (ClusterImagePolicy), the policy's (ImagePolicy). */
  readonly namespace?: string;
  /** The data entry. @default "trusted_root.json" */
  readonly key?: string;
}

/** One identity a keyless requirement accepts: issuer and subject, each exact or a regexp. */
export interface KeylessIdentity {
  readonly issuer?: string;
  readonly issuerRegExp?: string;
  readonly subject?: string;
  readonly subjectRegExp?: string;
}

/** `requirements[].keyless` of a `sigstoreSigned` requirement. */
export interface KeylessPolicy {
  readonly trustRootRef: TrustRootRef;
  readonly identities: readonly KeylessIdentity[];
}

/** `requirements[].conditions[]` of an `attestation` requirement: a CEL condition. */
export interface AttestationCondition {
  /** Names the condition in denials. */
  readonly name: string;
  /** A CEL expression of type bool over the statement. */
  readonly expression: string;
  /** Said in the denial when the condition is false. */
  readonly message?: string;
}

/** The fields a requirement may carry; which of them a kind reads is its own module's business. */
export interface RequirementFields {
  /** signedBy: OpenPGP keys; sigstoreSigned (keyed): PEM public keys. */
  readonly keySecret?: string;
  readonly keySecretNamespace?: string;
  readonly signedIdentity?: SignedIdentity;
  /** sigstoreSigned: keyless signatures instead of a key Secret. */
  readonly keyless?: KeylessPolicy;
  /** sigstoreSigned: whether a transparency log entry is required. */
  readonly tlog?: TlogPolicy;
  /** sigstoreSigned with a key and `tlog: required`: the trust root of the logs. */
  readonly trustRootRef?: TrustRootRef;
  /**
   * Signature and attestation requirements: what must be signed when the image is a
   * multi-platform index. @default "index"
   */
  readonly multiArch?: MultiArchRule;
  /**
   * Signature and attestation requirements: the platforms (`os/arch[/variant]`) that count when
   * platform manifests are verified; the others are ignored. @default every platform
   */
  readonly platforms?: readonly string[];
  /** attestation: the predicate type URI (a short name is resolved when validated). */
  readonly predicateType?: string;
  /** attestation: CEL conditions over the statement, all true for one attestation. */
  readonly conditions?: readonly AttestationCondition[];
}

/** `signedBy`: a simple (GnuPG) signature by one of the keys of `keySecret`. */
export interface SignedByRequirement extends RequirementFields {
  readonly type: "signedBy";
}

/** `sigstoreSigned`: a cosign signature, by a key of `keySecret` or `keyless`. */
export interface SigstoreSignedRequirement extends RequirementFields {
  readonly type: "sigstoreSigned";
}

/** `insecureAcceptAnything`: no signature needed (the image is still pinned). */
export interface AcceptAnythingRequirement extends RequirementFields {
  readonly type: "insecureAcceptAnything";
}

/**
 * `attestation`: an in-toto attestation of `predicateType` for the digest, signed by a key of
 * `keySecret` (PEM or OpenPGP) or `keyless`, whose statement meets every condition.
 */
export interface AttestationRequirement extends RequirementFields {
  readonly type: "attestation";
  readonly predicateType: string;
}

/** `reject`: no image is admitted. */
export interface RejectRequirement extends RequirementFields {
  readonly type: "reject";
}

/**
 * `policy.simple.requirements[]`, one member a kind. A type added to `REQUIREMENT_TYPES` needs
 * its member here (the check below) and its module in lib/admission's `REQUIREMENT_KINDS`.
 */
export type Requirement =
  | SignedByRequirement
  | SigstoreSignedRequirement
  | AcceptAnythingRequirement
  | RejectRequirement
  | AttestationRequirement;

/** The requirement of one kind. */
export type RequirementOf<T extends RequirementType> = Extract<Requirement, { type: T }>;

/** Fails `deno check` when a requirement type has no member in {@linkcode Requirement}. */
const everyTypeHasAMember: [Exclude<RequirementType, Requirement["type"]>] extends [never] ? true
  : never = true;
void everyTypeHasAMember;

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
