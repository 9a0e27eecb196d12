/**
 * The importer of sigstore policy-controller's `ClusterImagePolicy` (`policy.sigstore.dev`
 * `v1alpha1` and `v1beta1`, whose fields are the same). One ClusterImagePolicy becomes one toolkit
 * ClusterImagePolicy (a repository per `images[].glob`), with a key Secret for inline keys.
 *
 * The semantics, and how they are kept (docs/migration.md has the field table):
 *
 * - policy-controller admits an image when EVERY ClusterImagePolicy whose glob matches it passes,
 *   a policy passing when ANY of its authorities passes. toolkit applies to an image the one most
 *   specific pattern, whose requirements ALL must hold. So authorities are alternatives that must
 *   be folded into one requirement: keyed authorities with inline keys become one key Secret
 *   holding every key (a signature by any key of a Secret counts), keyless authorities of one
 *   trust root become one requirement listing every identity (any identity counts), a `static:
 *   pass` authority makes the others moot (`insecureAcceptAnything`) and a `static: fail` one
 *   never passes (dropped when there are others, `reject` alone). Alternatives that cannot be
 *   folded (a key and keyless, two trust roots, two Secrets, attestations beside signatures) are
 *   refused: toolkit cannot say "either", and requiring both would deny images policy-controller
 *   admits. Overlapping globs of different policies are reported by {@linkcode importDocuments}.
 * - An authority with `attestations` checks attestations instead of signatures: each becomes an
 *   `attestation` requirement of the same trust (when this build of toolkit has that kind, else
 *   the policy is refused). A CUE `policy` of the simple forms policy-controller's examples use
 *   becomes the requirement's CEL condition (policy_controller_cue.ts, its cost checked as the
 *   policy will be); Rego and other CUE cannot be translated. Where an untranslated content check
 *   is all the policy checks besides signatures (every attestation of the authority has one, or
 *   `spec.policy` beside nothing but `static: pass` authorities), the policy is refused, so nothing
 *   converted admits what the source denies for want of a condition; an attestation's policy
 *   beside attestations checked without one is dropped and reported `weaker`.
 * - Globs: policy-controller's `*` matches within one path segment (`[^/]*`), `**` anything, both
 *   against the fully qualified name with its tag; toolkit's `*` matches any run. `**` becomes
 *   `*` exactly; a single `*` in the path is reported `stronger` (toolkit's pattern also covers
 *   deeper repositories), as is a glob without `*` (policy-controller then matches only the
 *   reference written without a tag, toolkit every tag and digest).
 *
 * @module
 */
import {
  compileAttestationCondition,
  loadAttestationConditions,
  patternProblem,
  REQUIREMENT_TYPES,
} from "../policy/mod.ts";
import { CelLimitError } from "../cel/mod.ts";
import { compileLinearRegExp, RegExpSyntaxError } from "../linear_regexp.ts";
import { InvalidKeyError, KeyNotAcceptedError } from "../signature/mod.ts";
import { readSigstorePublicKeys } from "../sigstore/mod.ts";
import { objectName } from "./naming.ts";
import { Refusal, refuse } from "./refusal.ts";
import { keySecretObject, policyObject, PUBLIC_GOOD_TRUST_ROOT } from "./objects.ts";
import { type CueTranslation, translateCuePolicy } from "./policy_controller_cue.ts";
import type {
  ImportContext,
  ImportedRule,
  ImportFinding,
  ImportSource,
  PolicyImporter,
} from "./types.ts";

/** The API group of policy-controller's policies. */
export const POLICY_CONTROLLER_GROUP = "policy.sigstore.dev";

/** The versions read (their ClusterImagePolicy fields are the same). */
export const POLICY_CONTROLLER_VERSIONS = ["v1alpha1", "v1beta1"] as const;

/** The namespace label by which policy-controller opts namespaces in. */
export const POLICY_CONTROLLER_INCLUDE_LABEL = "policy.sigstore.dev/include";

/** The hosts of the public-good instance's Fulcio and Rekor. */
const PUBLIC_FULCIO = "fulcio.sigstore.dev";
const PUBLIC_REKOR = "rekor.sigstore.dev";

/** Whether `url` names the public-good service at `host` (any scheme, as policy-controller takes it). */
function isPublicGood(url: string | undefined, host: string): boolean {
  if (url === undefined) return true;
  try {
    return new URL(url).hostname.toLowerCase() === host;
  } catch {
    return false;
  }
}

/** The resources policy-controller's `match` may name (its webhook's types). */
const MATCH_RESOURCES = [
  "replicasets",
  "deployments",
  "pods",
  "cronjobs",
  "jobs",
  "statefulsets",
  "daemonsets",
];

/** policy-controller's own check of a glob's characters (pkg/apis/glob). */
const VALID_GLOB = /^[a-zA-Z0-9\-_:/*.@]+$/;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether an authority names a timestamp authority (`rfc3161timestamp.trustRootRef`). */
function hasTimestamps(authority: Obj): boolean {
  const tsa = authority.rfc3161timestamp;
  return isObject(tsa) && typeof tsa.trustRootRef === "string" && tsa.trustRootRef !== "";
}

/** The findings of one policy, with the check of unknown fields. */
export class Findings {
  readonly list: ImportFinding[] = [];
  /** Why the inline keys of a field (`….key.data`) are not accepted, by path (read beforehand). */
  readonly keyProblems = new Map<string, string>();
  add(path: string, kind: ImportFinding["kind"], reason: string): void {
    this.list.push({ path, kind, reason });
  }
  /** Reports every field of `raw` not in `known` (a field policy-controller does not define). */
  unknownFields(raw: Obj, known: readonly string[], path: string): void {
    for (const key of Object.keys(raw)) {
      if (!known.includes(key)) {
        this.add(
          `${path}.${key}`,
          "unmapped",
          "not a field of policy-controller's schema: ignored",
        );
      }
    }
  }
}

function optionalString(raw: Obj, key: string, path: string): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") refuse(`${path}.${key}`, "must be a string");
  return value;
}

function list(raw: Obj, key: string, path: string): unknown[] {
  const value = raw[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) refuse(`${path}.${key}`, "must be a list");
  return value;
}

function object(value: unknown, path: string): Obj {
  if (!isObject(value)) refuse(path, "must be an object");
  return value;
}

function looksLikeHost(segment: string): boolean {
  return segment.includes(".") || segment.includes(":") || segment === "localhost";
}

/**
 * Translates a policy-controller glob to a toolkit pattern, adding the findings of what differs.
 * policy-controller matches a glob against the fully qualified name (`index.docker.io/library/
 * busybox:latest`), then against the reference as written; a glob without a registry host can
 * only match the latter, a Docker Hub name, so it gets Docker Hub's host (and `library/` when it
 * has no `/`) unless it starts with `**`, which spans hosts too.
 */
export function translateGlob(glob: string, path: string, findings: Findings): string {
  let source = glob.trim();
  // policy-controller reads these two as Docker Hub's (pkg/apis/glob Compile).
  if (source === "*") source = "index.docker.io/library/*";
  if (source === "*/*") source = "index.docker.io/*/*";
  if (!VALID_GLOB.test(source)) refuse(path, `policy-controller refuses this glob: ${glob}`);
  if (source.includes("@")) {
    refuse(
      path,
      "a glob with a digest: toolkit's patterns match repositories and tags, not digests",
    );
  }
  if (!source.startsWith("**")) {
    const slash = source.indexOf("/");
    if (slash < 0) source = `index.docker.io/library/${source}`;
    else if (!looksLikeHost(source.slice(0, slash)) && !source.slice(0, slash).includes("*")) {
      source = `index.docker.io/${source}`;
    }
  }
  const pattern = source.replace(/\*+/g, "*");
  const slash = source.indexOf("/");
  const segments = slash < 0 ? [source] : source.slice(slash + 1).split("/");
  // A single star in the path may match "/" in toolkit, unless it is in the tag (after ":").
  // Docker Hub's repositories have two path segments: nothing deeper for a star to reach.
  const dockerHub = /^(index\.)?docker\.io\//.test(source) && segments.length <= 2;
  const crossing = !dockerHub && segments.some((segment, i) => {
    const beforeTag = i === segments.length - 1 && segment.includes(":")
      ? segment.slice(0, segment.indexOf(":"))
      : segment;
    return /(^|[^*])\*([^*]|$)/.test(beforeTag);
  });
  if (crossing) {
    findings.add(
      path,
      "stronger",
      `"*" matches within one path segment in policy-controller, any run of characters (also "/") in toolkit: ${
        JSON.stringify(pattern)
      } also governs images in deeper repositories`,
    );
  }
  if (!source.includes("*") && !/:[^/]*$/.test(source)) {
    findings.add(
      path,
      "stronger",
      "a glob without a wildcard or tag matches in policy-controller only the reference written without a tag; toolkit's pattern covers every tag and digest of the repository",
    );
  }
  const problem = patternProblem(pattern);
  if (problem !== undefined) refuse(path, `not a toolkit pattern: ${problem}`);
  return pattern;
}

/** A trust root a requirement names: a ConfigMap the user supplies. */
interface TrustRootChoice {
  readonly name: string;
}

/** What one authority checks. */
type Branch =
  | { readonly kind: "pass"; readonly path: string }
  | { readonly kind: "fail"; readonly path: string }
  | {
    readonly kind: "signature";
    readonly path: string;
    /** The requirement's trust fields (keySecret… or keyless…, tlog, trustRootRef). */
    readonly trust: Signer;
    readonly attestations: readonly {
      readonly predicateType: string;
      /** The path of its CUE/Rego `policy`, when it has one that does not translate (dropped). */
      readonly policy?: string;
      /** Why that policy does not translate. */
      readonly refusal?: string;
      /** The CEL condition its CUE policy became. */
      readonly conditions?: readonly Record<string, string>[];
    }[];
  };

/** The trust of a signature or attestation requirement, before it is written. */
type Signer =
  | {
    readonly kind: "key";
    /** Inline PEM keys (`key.data`), to be put in the policy's key Secret. */
    readonly pems?: readonly string[];
    /** `key.secretRef`: the user's Secret. */
    readonly secret?: { readonly name: string; readonly namespace?: string };
    readonly tlog?: TrustRootChoice;
  }
  | {
    readonly kind: "keyless";
    readonly trustRoot: TrustRootChoice;
    readonly identities: readonly Obj[];
  };

function trustRootNamed(
  ref: string | undefined,
  url: string | undefined,
  publicHost: string,
  policyName: string,
  what: string,
  path: string,
  findings: Findings,
): TrustRootChoice {
  if (ref !== undefined) {
    findings.add(
      `${path}.trustRootRef`,
      "unmapped",
      `the ConfigMap ${
        JSON.stringify(ref)
      } in toolkit's namespace holds its trusted_root.json: import policy-controller's TrustRoot ${ref} with the policies (kubectl get trustroots.policy.sigstore.dev ${ref} -o yaml | toolkit image-security import -), or supply it (toolkit image-security trust-root ${ref} -f trusted_root.json)`,
    );
    if (url !== undefined && url !== "ca-cert") {
      findings.add(
        `${path}.url`,
        "unmapped",
        `${what} ${url}: not needed, the trust root's keys are what verify`,
      );
    }
    return { name: ref };
  }
  if (isPublicGood(url, publicHost)) {
    findings.add(
      path,
      "unmapped",
      `${what} of the public-good Sigstore instance: supply its trusted_root.json as the ConfigMap ${PUBLIC_GOOD_TRUST_ROOT} (toolkit image-security trust-root ${PUBLIC_GOOD_TRUST_ROOT} -f trusted_root.json, from cosign trusted-root create or sigstore/root-signing)`,
    );
    return { name: PUBLIC_GOOD_TRUST_ROOT };
  }
  const name = objectName(policyName, "trust-root");
  if (url === "ca-cert") {
    findings.add(
      `${path}.ca-cert`,
      "unmapped",
      `toolkit reads Fulcio's certificate authorities from a trust root: supply a trusted_root.json holding this CA (and the Rekor and CT log keys) as the ConfigMap ${name} (toolkit image-security trust-root ${name} -f trusted_root.json)`,
    );
    return { name };
  }
  findings.add(
    `${path}.url`,
    "unmapped",
    `${what} ${url}: toolkit reads the instance's keys from a trust root, not its URL: supply its trusted_root.json as the ConfigMap ${name} (toolkit image-security trust-root ${name} -f trusted_root.json)`,
  );
  return { name };
}

function keyAuthority(raw: Obj, authority: Obj, path: string, policyName: string, f: Findings) {
  f.unknownFields(raw, ["secretRef", "data", "kms", "hashAlgorithm"], path);
  const kms = optionalString(raw, "kms", path);
  if (kms !== undefined) {
    refuse(
      `${path}.kms`,
      `a KMS key (${
        kms.split("://")[0]
      }://…): toolkit verifies with PEM keys it holds; export the public key and use key.data`,
    );
  }
  const hash = optionalString(raw, "hashAlgorithm", path);
  if (hash !== undefined && hash.toLowerCase() !== "sha256") {
    f.add(
      `${path}.hashAlgorithm`,
      "unmapped",
      `toolkit takes the hash from the key type (P-256 and RSA: SHA-256, P-384: SHA-384 or SHA-256), not ${hash}`,
    );
  }
  const data = optionalString(raw, "data", path);
  const given = [data, kms, raw.secretRef].filter((v) => v !== undefined && v !== null);
  if (given.length > 1) {
    refuse(path, "policy-controller refuses a key with more than one of data, kms and secretRef");
  }
  const at = path.replace(/\.key$/, "");
  const tlog = hasTimestamps(authority) && authority.ctlog !== undefined && authority.ctlog !== null
    ? (f.add(
      `${at}.ctlog`,
      "unmapped",
      "policy-controller ignores the transparency log when rfc3161timestamp is set: not required",
    ),
      undefined)
    : ctlogOf(authority, at, policyName, f);
  if (data !== undefined) {
    const pems = data.match(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g) ?? [];
    if (pems.length === 0) {
      refuse(`${path}.data`, "holds no PEM PUBLIC KEY (toolkit's keySecret holds PEM public keys)");
    }
    const problem = f.keyProblems.get(`${path}.data`);
    if (problem !== undefined) refuse(`${path}.data`, `not a key toolkit accepts: ${problem}`);
    return { kind: "key", pems, ...(tlog ? { tlog } : {}) } as const;
  }
  if (raw.secretRef !== undefined) {
    const ref = object(raw.secretRef, `${path}.secretRef`);
    f.unknownFields(ref, ["name", "namespace"], `${path}.secretRef`);
    const name = optionalString(ref, "name", `${path}.secretRef`);
    if (name === undefined) refuse(`${path}.secretRef.name`, "is required");
    const namespace = optionalString(ref, "namespace", `${path}.secretRef`);
    f.add(
      `${path}.secretRef`,
      "unmapped",
      `toolkit reads the PEM keys of Secret ${
        namespace ?? "<toolkit's namespace>"
      }/${name} from its entry "key"; policy-controller reads its only entry: make sure the entry is named "key"`,
    );
    return {
      kind: "key",
      secret: { name, ...(namespace ? { namespace } : {}) },
      ...(tlog ? { tlog } : {}),
    } as const;
  }
  return refuse(path, "names no key (data, secretRef or kms)");
}

/** The Rekor trust root a keyed authority needs (`ctlog`), or none (policy-controller then ignores the log). */
function ctlogOf(
  authority: Obj,
  path: string,
  policyName: string,
  f: Findings,
): TrustRootChoice | undefined {
  if (authority.ctlog === undefined || authority.ctlog === null) return undefined;
  const ctlog = object(authority.ctlog, `${path}.ctlog`);
  f.unknownFields(ctlog, ["url", "trustRootRef"], `${path}.ctlog`);
  return trustRootNamed(
    optionalString(ctlog, "trustRootRef", `${path}.ctlog`),
    optionalString(ctlog, "url", `${path}.ctlog`),
    PUBLIC_REKOR,
    policyName,
    "Rekor",
    `${path}.ctlog`,
    f,
  );
}

function keylessAuthority(raw: Obj, authority: Obj, path: string, policyName: string, f: Findings) {
  f.unknownFields(raw, ["url", "identities", "ca-cert", "trustRootRef", "insecureIgnoreSCT"], path);
  if (raw.insecureIgnoreSCT === true) {
    f.add(
      `${path}.insecureIgnoreSCT`,
      "stronger",
      "toolkit requires an SCT whenever the trust root lists CT logs; to skip SCTs, supply a trust root without CT logs",
    );
  }
  const identities = list(raw, "identities", path).map((entry, i) => {
    const at = `${path}.identities[${i}]`;
    const identity = object(entry, at);
    f.unknownFields(identity, ["issuer", "subject", "issuerRegExp", "subjectRegExp"], at);
    const out: Obj = {};
    for (const key of ["issuer", "subject", "issuerRegExp", "subjectRegExp"]) {
      const value = optionalString(identity, key, at);
      if (value === undefined) continue;
      if (key.endsWith("RegExp")) {
        try {
          compileLinearRegExp(value);
        } catch (error) {
          if (!(error instanceof RegExpSyntaxError)) throw error;
          refuse(`${at}.${key}`, `not a regular expression toolkit runs: ${error.message}`);
        }
      }
      out[key] = value;
    }
    for (const what of ["issuer", "subject"]) {
      if (out[what] === undefined && out[`${what}RegExp`] === undefined) {
        refuse(
          at,
          `names no ${what} (${what} or ${what}RegExp): toolkit's keyless identities name both`,
        );
      }
    }
    return out;
  });
  if (identities.length === 0) {
    refuse(`${path}.identities`, "no identity: toolkit's keyless requirement names at least one");
  }
  const url = optionalString(raw, "url", path);
  const caCert = raw["ca-cert"] !== undefined && raw["ca-cert"] !== null;
  if (url !== undefined && caCert) {
    refuse(path, "policy-controller refuses keyless with both url and ca-cert");
  }
  const trustRoot = trustRootNamed(
    optionalString(raw, "trustRootRef", path),
    // A CA of one's own is no public-good Fulcio: a trust root of the policy's own.
    caCert && url === undefined ? "ca-cert" : url,
    PUBLIC_FULCIO,
    policyName,
    "Fulcio",
    path,
    f,
  );
  if (authority.ctlog !== undefined && authority.ctlog !== null) {
    const ctlog = object(authority.ctlog, `${path.replace(/\.keyless$/, "")}.ctlog`);
    const at = `${path.replace(/\.keyless$/, "")}.ctlog`;
    f.unknownFields(ctlog, ["url", "trustRootRef"], at);
    const rekorRef = optionalString(ctlog, "trustRootRef", at);
    const rekorUrl = optionalString(ctlog, "url", at);
    const sameAsFulcio = rekorRef === trustRoot.name ||
      (rekorRef === undefined && isPublicGood(rekorUrl, PUBLIC_REKOR) &&
        trustRoot.name === PUBLIC_GOOD_TRUST_ROOT);
    if (!sameAsFulcio) {
      f.add(
        at,
        "unmapped",
        `toolkit takes Fulcio and Rekor from one trust root: the ConfigMap ${trustRoot.name} must also hold the keys of Rekor ${
          rekorRef ?? rekorUrl
        }`,
      );
    }
  }
  return { kind: "keyless", trustRoot, identities } as const;
}

function sourcesOf(authority: Obj, path: string, f: Findings): void {
  list(authority, "source", path).forEach((entry, i) => {
    const at = `${path}.source[${i}]`;
    const source = object(entry, at);
    f.unknownFields(source, ["oci", "signaturePullSecrets", "tagPrefix"], at);
    const oci = optionalString(source, "oci", at);
    if (oci !== undefined) {
      refuse(
        `${at}.oci`,
        `signatures stored in another repository (${oci}): toolkit reads them beside the image only`,
      );
    }
    if (source.tagPrefix !== undefined && source.tagPrefix !== null && source.tagPrefix !== "") {
      refuse(
        `${at}.tagPrefix`,
        "signature tags with a prefix: toolkit reads cosign's own tags and referrers only",
      );
    }
    if (list(source, "signaturePullSecrets", at).length) {
      f.add(
        `${at}.signaturePullSecrets`,
        "unmapped",
        "toolkit reads signatures with the Pod's pull Secrets (and the webhook's), not per-policy Secrets",
      );
    }
  });
}

/**
 * An attestation's `policy` as a CEL condition (lib/import/policy_controller_cue.ts): inline CUE
 * of the forms that translate exactly; Rego, a policy fetched from a ConfigMap or URL, refused.
 */
function translateAttestationPolicy(policy: Obj): CueTranslation {
  if (policy.type !== "cue") {
    return { refused: `a ${String(policy.type ?? "")} policy: only CUE translates` };
  }
  const others = Object.keys(policy).filter((k) => k !== "type" && k !== "data");
  if (others.length > 0) return { refused: `fetched or checked by ${others.join(", ")}` };
  if (typeof policy.data !== "string") return { refused: "no inline data" };
  const translated = translateCuePolicy(policy.data);
  if (!("expression" in translated)) return translated;
  // As the policy will be read: compiled, its estimated cost within toolkit's limit.
  try {
    compileAttestationCondition({ name: "cue", expression: translated.expression });
  } catch (error) {
    if (!(error instanceof CelLimitError)) throw error;
    return { refused: `its CEL is refused by toolkit: ${error.message}` };
  }
  return translated;
}

function attestationsOf(authority: Obj, path: string, f: Findings) {
  return list(authority, "attestations", path).map((entry, i) => {
    const at = `${path}.attestations[${i}]`;
    const attestation = object(entry, at);
    f.unknownFields(attestation, ["name", "predicateType", "policy"], at);
    const predicateType = optionalString(attestation, "predicateType", at);
    if (predicateType === undefined) refuse(`${at}.predicateType`, "is required");
    if (attestation.policy === undefined || attestation.policy === null) return { predicateType };
    const policy = object(attestation.policy, `${at}.policy`);
    const translated = translateAttestationPolicy(policy);
    if ("expression" in translated) {
      const name = typeof attestation.name === "string" ? attestation.name : `attestation-${i}`;
      f.add(
        `${at}.policy`,
        "weaker",
        `translated to the CEL condition ${
          JSON.stringify(name)
        } (every attestation of the type, absent fields passing, as CUE unifies); one difference: a field the statement holds as JSON null fails in CUE and reads as absent (passes) in toolkit's CEL`,
      );
      return {
        predicateType,
        conditions: [{
          name: name.slice(0, 63),
          expression: translated.expression,
          message: `policy-controller's CUE policy of attestation ${name}`,
        }],
      };
    }
    f.add(
      `${at}.policy`,
      "weaker",
      `a ${
        String(policy.type ?? "")
      } policy on the attestation's content that cannot be translated to CEL (${translated.refused}): toolkit checks only that an attestation of type ${predicateType} is signed by this authority (write the condition as CEL in conditions[])`,
    );
    return { predicateType, policy: `${at}.policy`, refusal: translated.refused };
  });
}

function branchOf(raw: unknown, path: string, policyName: string, f: Findings): Branch {
  const authority = object(raw, path);
  f.unknownFields(
    authority,
    [
      "name",
      "key",
      "keyless",
      "static",
      "source",
      "ctlog",
      "attestations",
      "rfc3161timestamp",
      "signatureFormat",
    ],
    path,
  );
  const kinds = ["key", "keyless", "static"].filter((k) =>
    authority[k] !== undefined && authority[k] !== null
  );
  if (kinds.length !== 1) refuse(path, "an authority names exactly one of key, keyless and static");
  if (
    !hasTimestamps(authority) && authority.rfc3161timestamp !== undefined &&
    authority.rfc3161timestamp !== null
  ) {
    f.add(`${path}.rfc3161timestamp`, "unmapped", "names no trustRootRef: ignored");
  }
  if (hasTimestamps(authority)) {
    f.add(
      `${path}.rfc3161timestamp`,
      "weaker",
      authority.key !== undefined && authority.key !== null
        ? "policy-controller requires an RFC 3161 timestamp of the signature (and then ignores the transparency log); toolkit's keyed requirement requires none"
        : "policy-controller requires an RFC 3161 timestamp instead of a log entry; toolkit takes timestamp authorities from the keyless trust root (trusted_root.json timestampAuthorities) and still requires the log entry",
    );
  }
  const format = optionalString(authority, "signatureFormat", path);
  if (format !== undefined && format !== "legacy" && format !== "bundle") {
    refuse(`${path}.signatureFormat`, `unknown signature format ${format}`);
  }
  if (authority.static !== undefined && authority.static !== null) {
    for (const other of ["attestations", "source", "ctlog", "rfc3161timestamp"]) {
      const value = authority[other];
      if (value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0)) {
        refuse(`${path}.${other}`, `policy-controller refuses static with ${other}`);
      }
    }
    const stat = object(authority.static, `${path}.static`);
    f.unknownFields(stat, ["action", "message"], `${path}.static`);
    if (optionalString(stat, "message", `${path}.static`) !== undefined) {
      f.add(`${path}.static.message`, "unmapped", "toolkit's denial message is its own");
    }
    const action = stat.action;
    if (action !== "pass" && action !== "fail") {
      refuse(`${path}.static.action`, "must be pass or fail");
    }
    return { kind: action, path };
  }
  sourcesOf(authority, path, f);
  const trust = authority.key !== undefined && authority.key !== null
    ? keyAuthority(object(authority.key, `${path}.key`), authority, `${path}.key`, policyName, f)
    : keylessAuthority(
      object(authority.keyless, `${path}.keyless`),
      authority,
      `${path}.keyless`,
      policyName,
      f,
    );
  return { kind: "signature", path, trust, attestations: attestationsOf(authority, path, f) };
}

/** Folds the alternatives (any authority passes) into requirements that all must hold. */
function requirementsOf(
  branches: readonly Branch[],
  policyName: string,
  source: ImportSource,
  context: ImportContext,
  f: Findings,
): { requirements: Obj[]; objects: Obj[] } {
  const pass = branches.find((b) => b.kind === "pass");
  if (pass !== undefined) {
    for (const other of branches) {
      if (other !== pass) {
        f.add(other.path, "unmapped", `${pass.path} is static pass: this authority never decides`);
      }
    }
    return { requirements: [{ type: "insecureAcceptAnything" }], objects: [] };
  }
  const signatures = branches.filter((b) => b.kind === "signature");
  if (signatures.length === 0) return { requirements: [{ type: "reject" }], objects: [] };
  const first = signatures[0]!;
  const alternatives = (other: Branch, why: string): never =>
    refuse(
      other.path,
      `${first.path} and ${other.path} are alternatives (any authority passes) that toolkit cannot express: ${why}; requiring both would deny images policy-controller admits`,
    );
  const objects: Obj[] = [];
  let trust: Obj;
  if (first.trust.kind === "key") {
    const tlog = first.trust.tlog;
    const secret = first.trust.secret;
    const pems = [...(first.trust.pems ?? [])];
    for (const other of signatures.slice(1)) {
      if (other.trust.kind !== "key") return alternatives(other, "a key or keyless signature");
      if (secret !== undefined || other.trust.secret !== undefined) {
        alternatives(other, "keys of two Secrets (put both keys in one Secret)");
      }
      if (other.trust.tlog?.name !== tlog?.name) alternatives(other, "different transparency logs");
      pems.push(...(other.trust.pems ?? []));
    }
    if (secret !== undefined) {
      trust = {
        keySecret: secret.name,
        ...(secret.namespace ? { keySecretNamespace: secret.namespace } : {}),
      };
    } else {
      const name = objectName(policyName, "key");
      objects.push(keySecretObject(name, context.controllerNamespace, pems.join("\n"), source));
      trust = { keySecret: name };
    }
    if (tlog !== undefined) {
      trust = { ...trust, tlog: "required", trustRootRef: { name: tlog.name } };
    }
  } else {
    const trustRoot = first.trust.trustRoot;
    const identities = [...first.trust.identities];
    for (const other of signatures.slice(1)) {
      if (other.trust.kind !== "keyless") return alternatives(other, "a keyless or key signature");
      if (other.trust.trustRoot.name !== trustRoot.name) alternatives(other, "two trust roots");
      identities.push(...other.trust.identities);
    }
    trust = { keyless: { trustRootRef: { name: trustRoot.name }, identities } };
  }
  const withAttestations = signatures.filter((b) => b.attestations.length > 0);
  if (withAttestations.length === 0) {
    return { requirements: [{ type: "sigstoreSigned", ...trust }], objects };
  }
  if (signatures.length > 1) {
    alternatives(
      signatures.find((b) => b !== first)!,
      "an authority with attestations checks them instead of signatures",
    );
  }
  if (first.attestations.every((a) => a.policy !== undefined)) {
    const untranslated = first.attestations[0]!;
    refuse(
      untranslated.policy!,
      `the attestations' CUE/Rego policies are all this policy checks besides their signatures, and cannot be translated to CEL (${untranslated.refusal}): converted without them it would admit what policy-controller denies (write them as CEL conditions of an attestation requirement)`,
    );
  }
  if (!(REQUIREMENT_TYPES as readonly string[]).includes("attestation")) {
    refuse(`${first.path}.attestations`, "this build of toolkit has no attestation requirement");
  }
  return {
    requirements: first.attestations.map((a) => ({
      type: "attestation",
      predicateType: a.predicateType,
      ...trust,
      ...(a.conditions === undefined ? {} : { conditions: a.conditions }),
    })),
    objects,
  };
}

/** The source of a policy-controller document (ClusterImagePolicy, TrustRoot); no name: "". */
export function policyControllerSourceOf(document: Obj, index: number): ImportSource {
  const meta = isObject(document.metadata) ? document.metadata : {};
  return {
    apiVersion: String(document.apiVersion),
    kind: String(document.kind),
    name: typeof meta.name === "string" ? meta.name : "",
    document: index,
  };
}

/**
 * Reads the inline PEM keys of every authority as toolkit's key Secrets are read (types, curves,
 * sizes it accepts), so a key the webhook would refuse refuses the policy now, with its path.
 */
async function keyProblemsOf(document: Obj): Promise<Map<string, string>> {
  const problems = new Map<string, string>();
  const spec = isObject(document.spec) ? document.spec : {};
  const authorities = Array.isArray(spec.authorities) ? spec.authorities : [];
  for (const [i, authority] of authorities.entries()) {
    const key = isObject(authority) && isObject(authority.key) ? authority.key : undefined;
    if (typeof key?.data !== "string" || !key.data.includes("-----BEGIN PUBLIC KEY-----")) continue;
    try {
      await readSigstorePublicKeys(key.data);
    } catch (error) {
      if (!(error instanceof InvalidKeyError || error instanceof KeyNotAcceptedError)) throw error;
      problems.set(`spec.authorities[${i}].key.data`, error.message);
    }
  }
  return problems;
}

/** Converts one ClusterImagePolicy (never throws: a problem refuses it with a finding). */
function convertClusterImagePolicy(
  document: Obj,
  index: number,
  context: ImportContext,
  keyProblems: ReadonlyMap<string, string>,
): ImportedRule {
  const source = policyControllerSourceOf(document, index);
  const f = new Findings();
  for (const [path, problem] of keyProblems) f.keyProblems.set(path, problem);
  try {
    if (source.name === "") refuse("metadata.name", "is required");
    const spec = object(document.spec, "spec");
    f.unknownFields(spec, ["images", "authorities", "policy", "mode", "match"], "spec");
    f.add(
      "metadata",
      "stronger",
      `policy-controller checks only namespaces labelled ${POLICY_CONTROLLER_INCLUDE_LABEL}=true; toolkit checks every namespace the webhook does not exempt (label the others toolkit.dev/enforcement=warn to roll out as before)`,
    );
    const mode = optionalString(spec, "mode", "spec");
    if (mode !== undefined && mode !== "enforce" && mode !== "warn") {
      refuse("spec.mode", `must be enforce or warn, not ${mode}`);
    }
    const match = list(spec, "match", "spec");
    match.forEach((entry, i) => {
      const at = `spec.match[${i}]`;
      const resource = optionalString(object(entry, at), "resource", at);
      if (resource !== undefined && !MATCH_RESOURCES.includes(resource)) {
        refuse(`${at}.resource`, `policy-controller refuses the resource ${resource}`);
      }
    });
    if (match.length) {
      f.add(
        "spec.match",
        "stronger",
        "toolkit checks the images of every workload kind (Pods and their controllers), not only the matched resources and labels",
      );
    }
    const globs = list(spec, "images", "spec");
    if (globs.length === 0) refuse("spec.images", "no image glob");
    const patterns = globs.map((entry, i) => {
      const at = `spec.images[${i}]`;
      const image = object(entry, at);
      f.unknownFields(image, ["glob"], at);
      const glob = optionalString(image, "glob", at);
      if (glob === undefined) refuse(`${at}.glob`, "is required");
      return translateGlob(glob, `${at}.glob`, f);
    });
    const authorities = list(spec, "authorities", "spec");
    const branches = authorities.map((a, i) =>
      branchOf(a, `spec.authorities[${i}]`, source.name, f)
    );
    if (spec.policy !== undefined && spec.policy !== null) {
      const policy = object(spec.policy, "spec.policy");
      const onlyCheck = branches.every((b) => b.kind === "pass");
      if (onlyCheck) {
        refuse(
          "spec.policy",
          `the policy's only check is a ${
            String(policy.type ?? "")
          } policy, which cannot be translated to CEL`,
        );
      }
      f.add(
        "spec.policy",
        "weaker",
        `a ${
          String(policy.type ?? "")
        } policy over the authorities' results cannot be translated to CEL: toolkit checks the authorities only`,
      );
    }
    if (branches.length === 0) refuse("spec.authorities", "no authority");
    const { requirements, objects } = requirementsOf(branches, source.name, source, context, f);
    const repositories = patterns.map((name) => ({
      name,
      policy: { ...(mode === "warn" ? { mode: "warn" } : {}), simple: { requirements } },
    }));
    const policy = policyObject(objectName(source.name), undefined, repositories, source);
    return { source, objects: [policy, ...objects], findings: f.list, refused: false };
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return {
      source,
      objects: [],
      findings: [...f.list, { path: error.path, kind: "refused", reason: error.reason }],
      refused: true,
    };
  }
}

/** The importer of policy-controller's ClusterImagePolicy. */
export const POLICY_CONTROLLER_IMPORTER: PolicyImporter = {
  name: "sigstore-policy-controller",
  everyMatchingRuleApplies: true,
  accepts(document: unknown): boolean {
    return isObject(document) && document.kind === "ClusterImagePolicy" &&
      POLICY_CONTROLLER_VERSIONS.some((v) =>
        document.apiVersion === `${POLICY_CONTROLLER_GROUP}/${v}`
      );
  },
  async convert(
    document: Obj,
    index: number,
    context: ImportContext,
  ): Promise<readonly ImportedRule[]> {
    // The evaluator checks the CEL made of attestations' CUE policies (loaded when there are).
    if (JSON.stringify(document).includes('"attestations"')) await loadAttestationConditions();
    return [convertClusterImagePolicy(document, index, context, await keyProblemsOf(document))];
  },
};
