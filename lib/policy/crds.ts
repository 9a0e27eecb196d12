/**
 * The CustomResourceDefinitions of toolkit's image policies: `ClusterImagePolicy`
 * (cluster-scoped) and `ImagePolicy` (namespaced), version `v1`. The schema is Portieris's, so
 * its policies work once their apiVersion group is changed (or unchanged, with the webhook
 * reading the `portieris.cloud.ibm.com` group). The API server enforces it: a bad policy is
 * refused at `kubectl apply` with the path of the wrong field.
 *
 * @module
 */

import { MAX_PATTERN_LENGTH } from "./pattern.ts";

/** toolkit's API group for image policies. */
export const API_GROUP = "toolkit.dev";

/** Portieris's API group, which the webhook can read instead (`--policy-group`). */
export const PORTIERIS_API_GROUP = "portieris.cloud.ibm.com";

/** The version of the policy API. */
export const API_VERSION = "v1";

/** Requirement types of a simple policy. */
export const REQUIREMENT_TYPES = [
  "signedBy",
  "sigstoreSigned",
  "insecureAcceptAnything",
  "reject",
  "attestation",
] as const;

/** Whether a `sigstoreSigned` requirement needs a transparency log entry. */
export const TLOG_POLICIES = ["required", "optional"] as const;

/**
 * What must be signed when the image is a multi-platform index (an OCI image index or a Docker
 * manifest list): the index itself (the default), every platform manifest it lists, or either.
 */
export const MULTI_ARCH_RULES = ["index", "everyPlatform", "either"] as const;

/** The most platforms one requirement's `platforms` lists. */
export const MAX_POLICY_PLATFORMS = 32;

/** A platform as `platforms` names it: `os/architecture[/variant]`, as in `linux/arm64/v8`. */
export const PLATFORM_PATTERN =
  "^[a-z0-9][a-z0-9._-]{0,31}/[a-z0-9][a-z0-9._-]{0,31}(/[a-z0-9][a-z0-9._-]{0,31})?$";

/** The kinds of object a `trustRootRef` names. */
export const TRUST_ROOT_KINDS = ["ConfigMap", "Secret"] as const;

/** The most identities one keyless requirement lists. */
export const MAX_KEYLESS_IDENTITIES = 64;

/**
 * The most NFA states the regular expressions of one keyless identity list may compile to in
 * all: a certificate is then checked in at most this many steps per character of its issuer and
 * subject, whatever the policy says.
 */
export const MAX_IDENTITY_STATES = 8192;

/** signedIdentity types: Portieris's names and the containers/image names. */
export const SIGNED_IDENTITY_TYPES = [
  "",
  "matchRepoDigestOrExact",
  "matchExact",
  "matchRepository",
  "matchExactReference",
  "exactReference",
  "matchExactRepository",
  "exactRepository",
  "remapIdentity",
] as const;

/** The most repositories one policy lists (one namespace is governed by at most 512). */
export const MAX_REPOSITORIES = 512;

/** The most requirements of one repository's simple policy. */
export const MAX_REQUIREMENTS = 32;

/** The longest value of a string field without a bound of its own. */
export const MAX_STRING_LENGTH = 1024;

/** The longest value of string fields with a bound of their own (object names, URLs). */
export const MAX_FIELD_LENGTHS: Readonly<Record<string, number>> = {
  keySecret: 253,
  keySecretNamespace: 63,
  storeSecret: 253,
  storeURL: 2048,
  predicateType: 1024,
  message: 1024,
  name: 253,
  namespace: 63,
  key: 253,
};

/** The most conditions of one `attestation` requirement. */
export const MAX_ATTESTATION_CONDITIONS = 16;

/** The longest CEL expression of a condition (checked again, with its cost, when compiled). */
export const MAX_CONDITION_EXPRESSION_LENGTH = 5000;

/** The longest condition name. */
export const MAX_CONDITION_NAME_LENGTH = 63;

/** Enforcement modes of a policy. */
export const POLICY_MODES = ["enforce", "warn"] as const;

type Schema = Record<string, unknown>;

/** A string field, bounded like the validator bounds it (by name, else MAX_STRING_LENGTH). */
const str = (description: string, extra: Schema = {}, field?: string): Schema => ({
  type: "string",
  description,
  maxLength: (field && MAX_FIELD_LENGTHS[field]) || MAX_STRING_LENGTH,
  ...extra,
});

function signedIdentitySchema(): Schema {
  return {
    type: "object",
    description: "Which identity the signature must claim (default matchRepoDigestOrExact)",
    required: ["type"],
    properties: {
      type: str("The identity rule", { enum: [...SIGNED_IDENTITY_TYPES] }),
      dockerReference: str("For matchExactReference: the reference the signature must name"),
      dockerRepository: str("For matchExactRepository: the repository the signature must name"),
      prefix: str("For remapIdentity: the prefix of the image name to replace"),
      signedPrefix: str("For remapIdentity: what the prefix is replaced with"),
    },
    "x-kubernetes-validations": [
      {
        rule:
          "!(self.type in ['matchExactReference', 'exactReference']) || (has(self.dockerReference) && self.dockerReference != '')",
        message: "dockerReference is required for matchExactReference",
        fieldPath: ".dockerReference",
      },
      {
        rule:
          "!(self.type in ['matchExactRepository', 'exactRepository']) || (has(self.dockerRepository) && self.dockerRepository != '')",
        message: "dockerRepository is required for matchExactRepository",
        fieldPath: ".dockerRepository",
      },
      {
        rule:
          "self.type != 'remapIdentity' || (has(self.prefix) && self.prefix != '' && has(self.signedPrefix) && self.signedPrefix != '')",
        message: "prefix and signedPrefix are required for remapIdentity",
        fieldPath: ".prefix",
      },
    ],
  };
}

function trustRootRefSchema(description: string): Schema {
  return {
    type: "object",
    description,
    required: ["name"],
    properties: {
      kind: str("ConfigMap (default) or Secret", { enum: [...TRUST_ROOT_KINDS] }),
      name: str("The ConfigMap or Secret", { minLength: 1 }, "name"),
      namespace: str(
        "Its namespace (default: the controller's for a ClusterImagePolicy, the policy's own for an ImagePolicy)",
        {},
        "namespace",
      ),
      key: str(
        "The data entry holding the trusted_root.json (default trusted_root.json)",
        {},
        "key",
      ),
    },
  };
}

function keylessSchema(): Schema {
  return {
    type: "object",
    description:
      "Keyless (Fulcio certificate) signatures: the trust root and the identities accepted",
    required: ["trustRootRef", "identities"],
    properties: {
      trustRootRef: trustRootRefSchema(
        "The ConfigMap or Secret holding the sigstore trusted_root.json (Fulcio CAs, Rekor and CT log keys, timestamp authorities)",
      ),
      identities: {
        type: "array",
        description: "A certificate is accepted when one entry matches its issuer and subject",
        minItems: 1,
        maxItems: MAX_KEYLESS_IDENTITIES,
        items: {
          type: "object",
          properties: {
            issuer: str("The OIDC issuer, exactly"),
            issuerRegExp: str("The OIDC issuer, by an RE2 regular expression (matched anywhere)"),
            subject: str("The certificate's subject (URI or e-mail), exactly"),
            subjectRegExp: str("The subject, by an RE2 regular expression (matched anywhere)"),
          },
          "x-kubernetes-validations": [
            {
              rule: "has(self.issuer) != has(self.issuerRegExp)",
              message: "one of issuer and issuerRegExp is required",
            },
            {
              rule: "has(self.subject) != has(self.subjectRegExp)",
              message: "one of subject and subjectRegExp is required",
            },
          ],
        },
      },
    },
  };
}

function conditionsSchema(): Schema {
  return {
    type: "array",
    description:
      "attestation: CEL conditions, all true for one verified attestation of predicateType; variables statement, predicate, subject, predicateType and attestations (predicate type to the statements verified with the same trust)",
    maxItems: MAX_ATTESTATION_CONDITIONS,
    items: {
      type: "object",
      required: ["name", "expression"],
      properties: {
        name: str("Names the condition in denials", {
          minLength: 1,
          maxLength: MAX_CONDITION_NAME_LENGTH,
        }),
        expression: str(
          "A CEL expression of type bool (its length and estimated cost are bounded when the policy is read)",
          { minLength: 1, maxLength: MAX_CONDITION_EXPRESSION_LENGTH },
        ),
        message: str("Said in the denial when the condition is false", {}, "message"),
      },
    },
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["name"],
  };
}

function requirementSchema(): Schema {
  return {
    type: "object",
    required: ["type"],
    properties: {
      type: str(
        "signedBy: a valid simple signature by one of the keys; sigstoreSigned: a valid cosign signature; attestation: a verified in-toto attestation meeting its conditions; reject; insecureAcceptAnything",
        { enum: [...REQUIREMENT_TYPES] },
      ),
      keySecret: str(
        "Secret whose `key` entry holds the public keys: armoured OpenPGP keys (signedBy), PEM public keys (sigstoreSigned), either (attestation)",
        {},
        "keySecret",
      ),
      keySecretNamespace: str(
        "Namespace of keySecret (default: the workload's namespace)",
        {},
        "keySecretNamespace",
      ),
      signedIdentity: signedIdentitySchema(),
      keyless: keylessSchema(),
      tlog: str(
        "sigstoreSigned, attestation: required (a transparency log entry of the trust root) or optional (default for keys; keyless needs a verified signing time either way)",
        { enum: [...TLOG_POLICIES] },
      ),
      trustRootRef: trustRootRefSchema(
        "sigstoreSigned or attestation with keySecret and tlog: required: the trust root whose transparency logs are trusted",
      ),
      multiArch: str(
        "When the image is a multi-platform index: index (the index's digest must be signed; the default), everyPlatform (every platform manifest it lists must be), or either",
        { enum: [...MULTI_ARCH_RULES] },
      ),
      platforms: {
        type: "array",
        description:
          "The platforms that count when platform manifests are verified (os/architecture[/variant], e.g. linux/amd64); the others are ignored. Default: all",
        maxItems: MAX_POLICY_PLATFORMS,
        items: { type: "string", maxLength: 98, pattern: PLATFORM_PATTERN },
      },
      predicateType: str(
        "attestation: the predicate type of the in-toto statement required, a URI or one of cosign's short names (slsaprovenance1, spdxjson, cyclonedx, …)",
        { minLength: 1 },
        "predicateType",
      ),
      conditions: conditionsSchema(),
    },
    "x-kubernetes-validations": [
      {
        rule: "self.type != 'signedBy' || (has(self.keySecret) && self.keySecret != '')",
        message: "keySecret is required for signedBy",
        fieldPath: ".keySecret",
      },
      {
        rule: "self.type != 'sigstoreSigned' || has(self.keySecret) != has(self.keyless)",
        message: "sigstoreSigned needs keySecret (keyed) or keyless, not both",
        fieldPath: ".keySecret",
      },
      {
        rule: "self.type != 'attestation' || has(self.keySecret) != has(self.keyless)",
        message: "attestation needs keySecret (keys) or keyless, not both",
        fieldPath: ".keySecret",
      },
      {
        rule:
          "self.type in ['sigstoreSigned', 'attestation'] || (!has(self.keyless) && !has(self.tlog) && !has(self.trustRootRef))",
        message: "keyless, tlog and trustRootRef are for sigstoreSigned and attestation",
        fieldPath: ".type",
      },
      {
        rule:
          "(self.type != 'reject' && self.type != 'insecureAcceptAnything') || (!has(self.multiArch) && !has(self.platforms))",
        message: "multiArch and platforms are for signature and attestation requirements",
        fieldPath: ".type",
      },
      {
        rule: "self.type != 'attestation' || has(self.predicateType)",
        message: "predicateType is required for attestation",
        fieldPath: ".predicateType",
      },
      {
        rule: "self.type == 'attestation' || (!has(self.predicateType) && !has(self.conditions))",
        message: "predicateType and conditions are for attestation",
        fieldPath: ".type",
      },
      {
        rule: "self.type != 'attestation' || !has(self.signedIdentity)",
        message: "an attestation names no repository: signedIdentity is not for attestation",
        fieldPath: ".signedIdentity",
      },
      {
        rule: "!has(self.trustRootRef) || has(self.keySecret)",
        message: "trustRootRef is for a keyed requirement (keyless names its own)",
        fieldPath: ".trustRootRef",
      },
      {
        rule:
          "!(has(self.keySecret) && has(self.tlog) && self.tlog == 'required') || has(self.trustRootRef)",
        message: "tlog: required with a keySecret needs trustRootRef (the logs' keys)",
        fieldPath: ".trustRootRef",
      },
    ],
  };
}

function policySchema(nullable: boolean): Schema {
  return {
    type: "object",
    description: "What images of the repository must satisfy; empty allows without checks",
    ...(nullable ? { nullable: true } : {}),
    properties: {
      mutateImage: {
        type: "boolean",
        description: "Pin admitted images to the verified digest (default true)",
      },
      mode: str("enforce (deny failures, the default) or warn (admit with a warning)", {
        enum: [...POLICY_MODES],
      }),
      simple: {
        type: "object",
        description: "Simple signing (GnuPG) requirements",
        properties: {
          storeURL: str("Base URL of a lookaside signature store", {}, "storeURL"),
          storeSecret: str("Secret with `username` and `password` for storeURL", {}, "storeSecret"),
          requirements: {
            type: "array",
            nullable: true,
            maxItems: MAX_REQUIREMENTS,
            description: "Every requirement must be met",
            items: requirementSchema(),
          },
        },
      },
      trust: {
        type: "object",
        description:
          "Docker Content Trust (Portieris); not supported: an enabled trust policy denies",
        properties: {
          enabled: { type: "boolean" },
          trustServer: { type: "string" },
          signerSecrets: {
            type: "array",
            items: { type: "object", properties: { name: { type: "string" } } },
          },
        },
      },
      vulnerability: {
        type: "object",
        description: "Vulnerability Advisor (Portieris); not supported: an enabled one denies",
        properties: {
          ICCRVA: {
            type: "object",
            properties: { enabled: { type: "boolean" }, account: { type: "string" } },
          },
        },
      },
    },
  };
}

function specSchema(namespaced: boolean): Schema {
  return {
    type: "object",
    required: ["repositories"],
    properties: {
      repositories: {
        type: "array",
        description: "Image name patterns and their policies; the most specific pattern wins",
        maxItems: MAX_REPOSITORIES,
        items: {
          type: "object",
          required: ["name"],
          properties: {
            name: str("Image name pattern; `*` matches any characters", {
              minLength: 1,
              maxLength: MAX_PATTERN_LENGTH,
              pattern: "^\\s*[A-Za-z0-9._:/*\\[\\]-]+\\s*$",
            }),
            policy: policySchema(namespaced),
          },
        },
      },
    },
  };
}

/** The CRD of one kind, for a group (toolkit's by default). */
export function policyCrd(
  kind: "ClusterImagePolicy" | "ImagePolicy",
  group: string = API_GROUP,
): Record<string, unknown> {
  const namespaced = kind === "ImagePolicy";
  const plural = namespaced ? "imagepolicies" : "clusterimagepolicies";
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${plural}.${group}`,
      labels: { "app.kubernetes.io/name": "toolkit", "app.kubernetes.io/component": "policy" },
    },
    spec: {
      group,
      scope: namespaced ? "Namespaced" : "Cluster",
      names: {
        kind,
        listKind: `${kind}List`,
        plural,
        singular: kind.toLowerCase(),
        shortNames: [namespaced ? "imp" : "cimp"],
        categories: ["toolkit"],
      },
      versions: [{
        name: API_VERSION,
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            description: namespaced
              ? "Image signature policy for the workloads of one namespace; replaces the cluster policies there"
              : "Image signature policy for every namespace without an ImagePolicy",
            required: ["spec"],
            properties: {
              apiVersion: { type: "string" },
              kind: { type: "string" },
              metadata: { type: "object" },
              spec: specSchema(namespaced),
            },
          },
        },
      }],
    },
  };
}

/** Both policy CRDs. */
export function policyCrds(group: string = API_GROUP): Record<string, unknown>[] {
  return [policyCrd("ClusterImagePolicy", group), policyCrd("ImagePolicy", group)];
}
