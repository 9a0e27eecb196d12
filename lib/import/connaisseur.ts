/**
 * The importer of Connaisseur's configuration: its Helm values (`application.validators`,
 * `application.policy`, `application.features`, and the top-level `validators`/`policy` of
 * Connaisseur 2.x/3.x), read as Connaisseur 0c40cab reads them.
 *
 * Each `policy[]` rule becomes one ClusterImagePolicy of one repository (toolkit, like
 * Connaisseur, applies only the most specific matching pattern, across all cluster policies),
 * or is refused. What becomes of every field (docs/migration.md "Connaisseur" lists the same):
 *
 * | Connaisseur | toolkit |
 * |---|---|
 * | `policy[].pattern` | `repositories[].name` ({@linkcode translateConnaisseurPattern}); the choice among patterns is replayed on sample images and every difference reported |
 * | `policy[].validator` (default `default`) | the requirements below |
 * | static validator `approve: true` / `false` | `insecureAcceptAnything` / `reject` |
 * | cosign `trustRoots[].key` (PEM) | a key Secret (`key` entry), `sigstoreSigned.keySecret` |
 * | cosign `trustRoots[].keyless{issuer,subject,issuerRegex,subjectRegex}` | `sigstoreSigned.keyless.identities[]` |
 * | `with.trustRoot` (default `default`; `*` all roots) | which roots the requirements name |
 * | `with.threshold`, `with.required` | one requirement per root that must sign (all-of), or one requirement naming every root (any of them); other thresholds refused |
 * | `with.verifyInTransparencyLog` (default true) | `tlog: required` (with a trust root) / `optional` |
 * | cosign `host.rekorPubkey`, `fulcioCert`, `ctLogPubkey` (PEM), `host.rekor` (its URL) | ConfigMap `connaisseur-<validator>-trust-root` holding the `trusted_root.json` of them (lib/import/trusted_root.ts), checked by the webhook's parser; the policy's `trustRootRef` |
 * | `with.mode` `mutate` / `insecureValidateOnly` | `mutateImage: true` / `false` |
 * | `features.detectionMode` | `mode: warn` on every policy |
 * | notaryv1, notation validators | refused |
 *
 * @module
 */
import { formatReference, type ImageReference, parseReference } from "../image/mod.ts";
import { API_GROUP, PolicySet, validatePolicy } from "../policy/mod.ts";
import {
  connaisseurChoice,
  connaisseurImageName,
  translateConnaisseurPattern,
} from "./connaisseur_pattern.ts";
import { objectName } from "./naming.ts";
import { Refusal } from "./refusal.ts";
import {
  keySecretObject,
  policyObject,
  PUBLIC_GOOD_TRUST_ROOT,
  trustRootObject,
} from "./objects.ts";
import { type PemTrustedRoot, trustedRootJson, trustedRootProblem } from "./trusted_root.ts";
import type {
  ImportContext,
  ImportedRule,
  ImportFinding,
  ImportSource,
  PolicyImporter,
} from "./types.ts";

/** The `apiVersion` reported for Connaisseur's values (they have none). */
const CONNAISSEUR_SOURCE_API_VERSION = "connaisseur/helm-values";
/** The `kind` reported for Connaisseur's values. */
const CONNAISSEUR_SOURCE_KIND = "Values";

type Json = Record<string, unknown>;

/**
 * The field `name` of `object` under its camelCase name or, as Connaisseur 2.x spelled it, its
 * snake_case one (`trust_roots`, `with.trust_root`): the spelling found and the value.
 */
function field(object: Json, name: string): { readonly key: string; readonly value: unknown } {
  if (object[name] !== undefined) return { key: name, value: object[name] };
  const snake = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return { key: object[snake] !== undefined ? snake : name, value: object[snake] };
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hasRules(value: unknown): boolean {
  return isObject(value) &&
    (Array.isArray(value.validators) || Array.isArray(value.policy) || isObject(value.features));
}

/** A trust root of a cosign validator. */
interface TrustRoot {
  readonly name: string;
  readonly path: string;
  readonly key?: string;
  readonly keyless?: Json;
}

/** A validator, as the rules see it. */
interface Validator {
  readonly name: string;
  readonly type: string;
  readonly path: string;
  readonly raw: Json;
}

/** The fields of a validator each type reads (Connaisseur's structs). */
const VALIDATOR_FIELDS: Readonly<Record<string, readonly string[]>> = {
  static: ["name", "type", "approve"],
  cosign: ["name", "type", "trustRoots", "trust_roots", "host", "auth", "cert"],
  notaryv1: [
    "name",
    "type",
    "host",
    "trustRoots",
    "trust_roots",
    "auth",
    "cert",
    "isAcr",
    "is_acr",
  ],
  notation: ["name", "type", "trustRoots", "auth", "cert", "timestampAuthorities"],
};

/** `policy[].with` fields (Connaisseur's RuleOptions); others make its loader fail. */
const WITH_FIELDS = [
  "trustRoot",
  "trust_root",
  "verifyInTransparencyLog",
  "verify_in_transparency_log",
  "verifySCT",
  "threshold",
  "required",
  "delegations",
  "mode",
  "verificationLevel",
  "verifyTimestamp",
];

/** What one rule's validator became. */
interface Converted {
  readonly requirements: readonly Json[];
  readonly mutateImage: boolean;
  readonly secrets: readonly Json[];
  readonly findings: readonly ImportFinding[];
  /** True when the requirements admit images without a signature. */
  readonly acceptsAnything: boolean;
}

/** Reads Connaisseur's Helm values. */
export const CONNAISSEUR_IMPORTER: PolicyImporter = {
  name: "connaisseur-values",
  accepts(document: unknown): boolean {
    if (!isObject(document) || "apiVersion" in document || "kind" in document) return false;
    return hasRules(document.application) ||
      (Array.isArray(document.validators) && Array.isArray(document.policy));
  },
  async convert(
    document: Json,
    index: number,
    context: ImportContext,
  ): Promise<readonly ImportedRule[]> {
    // The trusted roots made of validators' host keys, parsed as the webhook will, ahead of the
    // (synchronous) conversion of the rules that use them.
    const { root, at } = locate(document);
    const problems = new Map<string, string>();
    const list = Array.isArray(root.validators) ? root.validators : [];
    for (const [i, raw] of list.entries()) {
      if (!isObject(raw) || raw.type !== "cosign") continue;
      const path = `${at}validators[${i}]`;
      try {
        const made = hostTrustedRoot({ name: String(raw.name), type: "cosign", path, raw });
        if (made === undefined) continue;
        const problem = await trustedRootProblem(made.text, `${path}.host`);
        if (problem !== undefined) problems.set(path, problem);
      } catch (error) {
        if (!(error instanceof Refusal)) throw error; // refused again where a rule uses it
      }
    }
    return convertValues(document, index, context, problems);
  },
};

/** Where the rules are: under `application` (Connaisseur 3.x+ chart) or at the top (2.x/3.x). */
function locate(document: Json): { nested: boolean; root: Json; at: string } {
  const nested = hasRules(document.application);
  return {
    nested,
    root: nested ? document.application as Json : document,
    at: nested ? "application." : "",
  };
}

/** The fields of a cosign validator's `host` that hold keys and certificates (PEM). */
const HOST_KEYS = ["rekorPubkey", "fulcioCert", "ctLogPubkey"] as const;

/**
 * The trusted_root.json of a cosign validator's `host` keys (Connaisseur hands them to cosign as
 * its Rekor key, Fulcio roots and CT log key), or undefined when it gives none.
 */
function hostTrustedRoot(
  validator: Validator,
): { readonly text: string; readonly given: readonly string[] } | undefined {
  const host = validator.raw.host;
  if (!isObject(host)) return undefined;
  const given = HOST_KEYS.filter((name) => host[name] !== undefined && host[name] !== null);
  if (given.length === 0) return undefined;
  const pem = (name: string): string => {
    const value = host[name];
    if (typeof value !== "string" || value.trim() === "") {
      throw new Refusal(`${validator.path}.host.${name}`, "is not PEM text");
    }
    return value;
  };
  const rekor = typeof host.rekor === "string" && host.rekor !== ""
    ? host.rekor
    : "rekor.sigstore.dev";
  const root: PemTrustedRoot = {
    tlogs: given.includes("rekorPubkey")
      ? [{
        baseUrl: /^https?:\/\//.test(rekor) ? rekor : `https://${rekor}`,
        publicKeyPem: pem("rekorPubkey"),
        path: `${validator.path}.host.rekorPubkey`,
      }]
      : [],
    certificateAuthorities: given.includes("fulcioCert")
      ? [{
        uri: "",
        certChainPem: pem("fulcioCert"),
        path: `${validator.path}.host.fulcioCert`,
      }]
      : [],
    ctlogs: given.includes("ctLogPubkey")
      ? [{
        baseUrl: "",
        publicKeyPem: pem("ctLogPubkey"),
        path: `${validator.path}.host.ctLogPubkey`,
      }]
      : [],
    timestampAuthorities: [],
  };
  return { text: trustedRootJson(root), given };
}

function convertValues(
  document: Json,
  index: number,
  context: ImportContext,
  hostProblems: ReadonlyMap<string, string>,
): ImportedRule[] {
  const { nested, root, at } = locate(document);
  const source = (rule?: string): ImportSource => ({
    apiVersion: CONNAISSEUR_SOURCE_API_VERSION,
    kind: CONNAISSEUR_SOURCE_KIND,
    name: "connaisseur",
    ...(rule === undefined ? {} : { rule }),
    document: index,
  });
  const settings: ImportFinding[] = [];
  const features = nested ? (isObject(root.features) ? root.features : {}) : root;
  const featuresAt = nested ? `${at}features.` : "";
  const warn = features.detectionMode === true;
  settingsFindings(document, root, at, features, featuresAt, nested, settings);

  const validators = new Map<string, Validator>();
  const list = Array.isArray(root.validators) ? root.validators : [];
  list.forEach((raw, i) => {
    const path = `${at}validators[${i}]`;
    if (!isObject(raw) || typeof raw.name !== "string") {
      settings.push({
        path,
        kind: "unmapped",
        reason: "a validator without a name: no rule can use it",
      });
      return;
    }
    validators.set(raw.name, { name: raw.name, type: String(raw.type ?? ""), path, raw });
  });
  const used = new Set<string>();

  const rules = Array.isArray(root.policy) ? root.policy : [];
  const patterns = rules.map((rule) =>
    isObject(rule) && typeof rule.pattern === "string" ? rule.pattern : ""
  );
  const results: (ImportedRule & { pattern?: string; acceptsAnything?: boolean })[] = [];
  const emittedSecrets = new Set<string>();
  rules.forEach((rule, i) => {
    const path = `${at}policy[${i}]`;
    const name = `policy[${i}] ${JSON.stringify(patterns[i])}`;
    const findings: ImportFinding[] = [];
    try {
      if (!isObject(rule)) throw new Refusal(path, "is not an object");
      for (const field of Object.keys(rule)) {
        if (!["pattern", "validator", "with"].includes(field)) {
          throw new Refusal(
            `${path}.${field}`,
            "is not a field of a Connaisseur rule (its loader refuses the configuration)",
          );
        }
      }
      const pattern = patterns[i]!;
      if (patterns.lastIndexOf(pattern) !== i) {
        throw new Refusal(
          `${path}.pattern`,
          `policy[${
            patterns.lastIndexOf(pattern)
          }] has the same pattern; Connaisseur applies that later rule`,
        );
      }
      const translated = translateConnaisseurPattern(pattern);
      if ("refused" in translated) {
        throw new Refusal(`${path}.pattern`, `${JSON.stringify(pattern)} ${translated.refused}`);
      }
      const validatorName = typeof rule.validator === "string" ? rule.validator : "default";
      const validator = validators.get(validatorName);
      if (validator === undefined) {
        throw new Refusal(
          `${path}.validator`,
          `no validator is named ${
            JSON.stringify(validatorName)
          } (Connaisseur denies every image of this rule)`,
        );
      }
      used.add(validatorName);
      const options = rule.with === undefined ? {} : rule.with;
      if (!isObject(options)) throw new Refusal(`${path}.with`, "is not an object");
      for (const field of Object.keys(options)) {
        if (!WITH_FIELDS.includes(field)) {
          throw new Refusal(
            `${path}.with.${field}`,
            "is not a field of a rule's `with` (Connaisseur's loader refuses the configuration)",
          );
        }
      }
      const converted = convertValidator(
        validator,
        options,
        `${path}.with`,
        context,
        source(name),
        hostProblems,
      );
      findings.push(...converted.findings);
      if (translated.difference !== undefined) {
        findings.push({
          path: `${path}.pattern`,
          kind: converted.acceptsAnything ? "stronger" : "weaker",
          reason:
            `${translated.difference}; the images this leaves out fall to another rule (or are denied when none matches)`,
        });
      }
      const policy = {
        mutateImage: converted.mutateImage,
        ...(warn ? { mode: "warn" } : {}),
        simple: { requirements: converted.requirements },
      };
      const objects: Json[] = [
        policyObject(objectName("connaisseur", pattern), undefined, [{
          name: translated.pattern,
          policy,
        }], source(name)),
      ];
      for (const secret of converted.secrets) {
        const key = `${secret.kind} ${(secret.metadata as Json).namespace}/${
          (secret.metadata as Json).name
        }`;
        if (emittedSecrets.has(key)) continue;
        emittedSecrets.add(key);
        objects.push(secret);
      }
      results.push({
        source: source(name),
        objects,
        findings,
        refused: false,
        pattern: translated.pattern,
        acceptsAnything: converted.acceptsAnything,
      });
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      findings.push({ path: error.path, kind: "refused", reason: error.message });
      results.push({ source: source(name), objects: [], findings, refused: true });
    }
  });
  const usedByConverted = new Set(
    rules.flatMap((rule, i) =>
      results[i]?.refused === false && isObject(rule)
        ? [typeof rule.validator === "string" ? rule.validator : "default"]
        : []
    ),
  );
  for (const validator of validators.values()) {
    if (used.has(validator.name) && !usedByConverted.has(validator.name)) {
      settings.push({
        path: validator.path,
        kind: "unmapped",
        reason: `only refused rules use validator ${JSON.stringify(validator.name)}: not converted`,
      });
    }
    if (!used.has(validator.name)) {
      settings.push({
        path: validator.path,
        kind: "unmapped",
        reason: `no policy rule uses validator ${
          JSON.stringify(validator.name)
        }: nothing to convert`,
      });
    }
  }
  compareChoices(patterns, results, at);
  const out: ImportedRule[] = results.map(({ source, objects, findings, refused }) => ({
    source,
    objects,
    findings,
    refused,
  }));
  out.push({ source: source("settings"), objects: [], findings: settings, refused: false });
  return out;
}

/** Findings of the settings besides validators and rules. */
function settingsFindings(
  document: Json,
  root: Json,
  at: string,
  features: Json,
  featuresAt: string,
  nested: boolean,
  out: ImportFinding[],
): void {
  const featureKeys = new Set([
    "detectionMode",
    "namespacedValidation",
    "automaticChildApproval",
    "automaticUnchangedApproval",
    "resourceValidationMode",
    "cache",
  ]);
  if (nested) {
    for (const key of Object.keys(document)) {
      if (key === "application") continue;
      out.push({
        path: key,
        kind: "unmapped",
        reason: key === "kubernetes"
          ? "Connaisseur's own deployment (replicas, resources, webhook, Redis): toolkit's webhook is installed with `toolkit install`"
          : "not a Connaisseur setting toolkit has",
      });
    }
    for (const key of Object.keys(root)) {
      if (["validators", "policy", "features"].includes(key)) continue;
      out.push({
        path: `${at}${key}`,
        kind: "unmapped",
        reason: UNMAPPED_SETTINGS[key] ?? "not a Connaisseur setting toolkit has",
      });
    }
    for (const key of Object.keys(features)) {
      if (!featureKeys.has(key)) {
        out.push({ path: `${featuresAt}${key}`, kind: "unmapped", reason: "an unknown feature" });
      }
    }
  } else {
    for (const key of Object.keys(root)) {
      if (["validators", "policy"].includes(key) || featureKeys.has(key)) continue;
      out.push({
        path: key,
        kind: "unmapped",
        reason: UNMAPPED_SETTINGS[key] ??
          "Connaisseur's own deployment or a setting toolkit has no equivalent of",
      });
    }
  }
  if (features.detectionMode === true) {
    out.push({
      path: `${featuresAt}detectionMode`,
      kind: "unmapped",
      reason:
        "mapped to mode: warn on every imported policy; Connaisseur also admits images no rule matches with a warning: start toolkit's webhook with --no-match warn for that",
    });
  }
  const namespaced = features.namespacedValidation;
  if (isObject(namespaced) && namespaced.enabled === false) {
    out.push({
      path: `${featuresAt}namespacedValidation`,
      kind: "unmapped",
      reason:
        "disabled: Connaisseur validates every namespace, as toolkit does (but for namespaces labelled toolkit.dev/image-security=exempt)",
    });
  }
  if (isObject(namespaced) && namespaced.enabled !== false) {
    const path = `${featuresAt}namespacedValidation`;
    if (namespaced.mode === "validate") {
      out.push({
        path: `${path}.mode`,
        kind: "stronger",
        reason:
          "Connaisseur validates only namespaces labelled securesystemsengineering.connaisseur/webhook=validate; toolkit validates every namespace not labelled toolkit.dev/image-security=exempt: label the others exempt",
      });
    } else {
      out.push({
        path: `${path}.mode`,
        kind: "unmapped",
        reason:
          "namespaces labelled securesystemsengineering.connaisseur/webhook=ignore must be labelled toolkit.dev/image-security=exempt (the webhook's --exempt-namespace-label); the import cannot see the cluster's namespaces",
      });
    }
  }
  if (features.automaticChildApproval !== undefined) {
    out.push({
      path: `${featuresAt}automaticChildApproval`,
      kind: features.automaticChildApproval === false ||
          (isObject(features.automaticChildApproval) &&
            features.automaticChildApproval.enabled === false)
        ? "unmapped"
        : "stronger",
      reason:
        "toolkit checks the images of every Pod and workload it is sent, children of an admitted Deployment too; there is no switch",
    });
  }
  if (features.automaticUnchangedApproval !== undefined) {
    out.push({
      path: `${featuresAt}automaticUnchangedApproval`,
      kind: features.automaticUnchangedApproval === true ? "stronger" : "unmapped",
      reason:
        "toolkit checks every image of an update, changed or not (its cache makes unchanged ones cheap)",
    });
  }
  if (features.resourceValidationMode !== undefined) {
    out.push({
      path: `${featuresAt}resourceValidationMode`,
      kind: features.resourceValidationMode === "podsOnly" ? "stronger" : "unmapped",
      reason:
        "toolkit checks the resources its webhook configuration sends it (Pods and workloads), no switch",
    });
  }
  if (features.cache !== undefined) {
    out.push({
      path: `${featuresAt}cache`,
      kind: "unmapped",
      reason: "Connaisseur's Redis cache: toolkit keeps its own bounded in-memory caches",
    });
  }
}

const UNMAPPED_SETTINGS: Readonly<Record<string, string>> = {
  alerting:
    "Connaisseur's alerts: toolkit reports verdicts as metrics, events and audit records instead",
  logLevel: "Connaisseur's logging",
  logFormat: "Connaisseur's logging",
};

function stringList(value: unknown, path: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw new Refusal(path, "is not a list of trust root names");
  }
  return value as string[];
}

function convertValidator(
  validator: Validator,
  options: Json,
  at: string,
  context: ImportContext,
  origin: ImportSource,
  hostProblems: ReadonlyMap<string, string>,
): Converted {
  const findings: ImportFinding[] = [];
  const known = VALIDATOR_FIELDS[validator.type];
  if (known === undefined) {
    throw new Refusal(
      `${validator.path}.type`,
      `validator type ${JSON.stringify(validator.type)} is unknown`,
    );
  }
  for (const field of Object.keys(validator.raw)) {
    if (!known.includes(field)) {
      throw new Refusal(
        `${validator.path}.${field}`,
        `is not a field of a ${validator.type} validator (Connaisseur's loader refuses the configuration)`,
      );
    }
  }
  let mutateImage = true;
  if (options.mode !== undefined) {
    if (options.mode === "insecureValidateOnly") mutateImage = false;
    else if (options.mode !== "mutate") {
      throw new Refusal(
        `${at}.mode`,
        `${JSON.stringify(options.mode)} is neither mutate nor insecureValidateOnly`,
      );
    }
  }
  if (validator.type === "notaryv1") {
    throw new Refusal(
      validator.path,
      `validator ${
        JSON.stringify(validator.name)
      } is notaryv1 (Docker Content Trust / Notary v1): toolkit verifies no Notary v1 signatures`,
    );
  }
  if (validator.type === "notation") {
    throw new Refusal(
      validator.path,
      `validator ${
        JSON.stringify(validator.name)
      } is notation (Notary Project): toolkit verifies no Notation signatures`,
    );
  }
  if (validator.type === "static") {
    const approve = validator.raw.approve;
    if (typeof approve !== "boolean") {
      throw new Refusal(
        `${validator.path}.approve`,
        "a static validator needs approve: true or false",
      );
    }
    for (const field of Object.keys(options)) {
      if (field !== "mode") {
        findings.push({
          path: `${at}.${field}`,
          kind: "unmapped",
          reason: "a static validator reads no options",
        });
      }
    }
    return {
      requirements: [{ type: approve ? "insecureAcceptAnything" : "reject" }],
      mutateImage,
      secrets: [],
      findings,
      acceptsAnything: approve,
    };
  }
  return convertCosign(
    validator,
    options,
    at,
    mutateImage,
    findings,
    context,
    origin,
    hostProblems.get(validator.path),
  );
}

function trustRoots(validator: Validator): TrustRoot[] {
  const { key, value: raw } = field(validator.raw, "trustRoots");
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new Refusal(`${validator.path}.${key}`, "a cosign validator needs trust roots");
  }
  return raw.map((root, i) => {
    const path = `${validator.path}.${key}[${i}]`;
    if (!isObject(root) || typeof root.name !== "string") {
      throw new Refusal(path, "a trust root needs a name");
    }
    for (const field of Object.keys(root)) {
      if (!["name", "key", "keyless"].includes(field)) {
        throw new Refusal(`${path}.${field}`, "is not a field of a cosign trust root");
      }
    }
    if (typeof root.key === "string") return { name: root.name, path, key: root.key };
    if (isObject(root.keyless)) return { name: root.name, path, keyless: root.keyless };
    throw new Refusal(path, "a trust root needs key or keyless");
  });
}

/** The groups of roots the rule needs: every group must sign, any root of a group will do. */
function rootGroups(
  all: readonly TrustRoot[],
  options: Json,
  at: string,
  findings: ImportFinding[],
): TrustRoot[][] {
  const trustRootField = field(options, "trustRoot");
  const trustRootAt = `${at}.${trustRootField.key}`;
  const trustRoot = trustRootField.value === undefined ? "default" : trustRootField.value;
  if (typeof trustRoot !== "string") throw new Refusal(trustRootAt, "is not a string");
  const threshold = options.threshold === undefined ? 0 : options.threshold;
  if (typeof threshold !== "number" || !Number.isInteger(threshold) || threshold < 0) {
    throw new Refusal(`${at}.threshold`, "is not a whole number ≥ 0");
  }
  const required = stringList(options.required, `${at}.required`);
  const byName = (name: string, path: string): TrustRoot => {
    const root = all.find((r) => r.name === name);
    if (root === undefined) {
      throw new Refusal(
        path,
        `the validator has no trust root ${
          JSON.stringify(name)
        } (Connaisseur denies every image of this rule)`,
      );
    }
    return root;
  };
  if (trustRoot !== "*") {
    const root = byName(trustRoot, trustRootAt);
    if (threshold > 0) {
      findings.push({
        path: `${at}.threshold`,
        kind: "unmapped",
        reason: 'Connaisseur ignores threshold unless trustRoot is "*"',
      });
    }
    const others = required.filter((name) => name !== trustRoot);
    if (others.length > 0) {
      throw new Refusal(
        `${at}.required`,
        `requires ${others.join(", ")} besides the one trust root ${
          JSON.stringify(trustRoot)
        } checked: Connaisseur denies every image of this rule`,
      );
    }
    return [[root]];
  }
  const signatureCount =
    `Connaisseur counts valid signatures, so one root's two signatures count twice; toolkit needs a signature by each root`;
  if (required.length > 0 && threshold <= required.length) {
    required.forEach((name, i) => byName(name, `${at}.required[${i}]`));
    if (threshold > 0) {
      findings.push({
        path: `${at}.threshold`,
        kind: "stronger",
        reason: `met by the ${required.length} required roots; ${signatureCount}`,
      });
    }
    return [...new Set(required)].map((name) => [byName(name, `${at}.required`)]);
  }
  if (threshold === 0 || threshold === all.length) {
    required.forEach((name, i) => byName(name, `${at}.required[${i}]`));
    if (threshold > 0 || all.length > 1) {
      findings.push({
        path: threshold > 0 ? `${at}.threshold` : trustRootAt,
        kind: "stronger",
        reason: `every one of the ${all.length} trust roots must sign; ${signatureCount}`,
      });
    }
    return all.map((root) => [root]);
  }
  if (threshold === 1 && required.length === 0) return [all.slice()];
  throw new Refusal(
    `${at}.threshold`,
    `${threshold} of ${all.length} trust roots${
      required.length > 0 ? ` including ${required.join(", ")}` : ""
    }: toolkit's requirements are all-of, so only a threshold of 1 (any root), of every root, or of the required roots converts`,
  );
}

function convertCosign(
  validator: Validator,
  options: Json,
  at: string,
  mutateImage: boolean,
  findings: ImportFinding[],
  context: ImportContext,
  origin: ImportSource,
  hostProblem: string | undefined,
): Converted {
  const roots = trustRoots(validator);
  const groups = rootGroups(roots, options, at, findings);
  for (const field of ["delegations", "verificationLevel", "verifyTimestamp"]) {
    if (options[field] !== undefined) {
      findings.push({
        path: `${at}.${field}`,
        kind: "unmapped",
        reason: "a notaryv1/notation option a cosign validator ignores",
      });
    }
  }
  const trustRootAt = `${at}.${field(options, "trustRoot").key}`;
  // Connaisseur 2.x: `host` is the Rekor URL itself.
  const host = typeof validator.raw.host === "string"
    ? { rekor: validator.raw.host }
    : validator.raw.host;
  const hostAt = (name: string) =>
    typeof validator.raw.host === "string"
      ? `${validator.path}.host`
      : `${validator.path}.host.${name}`;
  const customHost = isObject(host) && Object.keys(host).some((name) =>
    name !== "rekor" ||
    !/^(https:\/\/)?rekor\.sigstore\.dev\/?$/.test(String(host[name]))
  );
  const tlogField = field(options, "verifyInTransparencyLog");
  const tlogOption = tlogField.value;
  const tlog = tlogOption === false ? "optional" : "required";
  const trustRootName = customHost
    ? objectName("connaisseur", validator.name, "trust-root")
    : PUBLIC_GOOD_TRUST_ROOT;
  const trustRootRef = {
    kind: "ConfigMap",
    name: trustRootName,
    namespace: context.controllerNamespace,
  };
  const keyless = groups.some((g) => g.some((r) => r.keyless));
  const needsTrustRoot = tlog === "required" || keyless;
  if (isObject(host)) {
    for (const name of Object.keys(host)) {
      if (!["rekor", ...HOST_KEYS].includes(name)) {
        throw new Refusal(hostAt(name), "is not a field of a cosign validator's host");
      }
      if (name === "rekor") {
        findings.push({
          path: hostAt(name),
          kind: "unmapped",
          reason:
            "toolkit verifies the log entry carried with the signature offline, against the Rekor keys of the trust root; it never queries a Rekor server",
        });
      } else if (!needsTrustRoot) {
        findings.push({
          path: hostAt(name),
          kind: "unmapped",
          reason:
            "this rule reads no trust root (keys, verifyInTransparencyLog false): nothing made of it",
        });
      }
    }
  }
  const hostRoot = needsTrustRoot ? hostTrustedRoot(validator) : undefined;
  if (needsTrustRoot && customHost && hostRoot === undefined) {
    findings.push({
      path: `${validator.path}.host`,
      kind: "unmapped",
      reason:
        `a Rekor of its own without keys (Connaisseur then uses the public-good keys): create ConfigMap ${context.controllerNamespace}/${trustRootName} with the trusted_root.json whose Rekor key signed the entries, and the Fulcio certificates for keyless roots`,
    });
  }
  if (hostRoot !== undefined) {
    if (hostProblem !== undefined) {
      throw new Refusal(
        `${validator.path}.host`,
        `the trusted_root.json made of ${hostRoot.given.join(", ")} is refused: ${hostProblem}`,
      );
    }
    const configMap = `${context.controllerNamespace}/${trustRootName}`;
    const missing = (name: string, kind: "weaker" | "stronger", what: string) =>
      findings.push({
        path: `${validator.path}.host`,
        kind,
        reason:
          `without ${name} Connaisseur uses the public-good instance's; the trusted_root.json made in ConfigMap ${configMap} has none: ${what}`,
      });
    if (tlog === "required" && !hostRoot.given.includes("rekorPubkey")) {
      missing(
        "rekorPubkey",
        "stronger",
        "add the Rekor key whose log holds the signatures, else every signature is denied",
      );
    }
    if (keyless && !hostRoot.given.includes("fulcioCert")) {
      missing(
        "fulcioCert",
        "stronger",
        "add the Fulcio certificates, else every keyless signature is denied",
      );
    }
    if (keyless && !hostRoot.given.includes("ctLogPubkey")) {
      missing(
        "ctLogPubkey",
        "weaker",
        "toolkit checks certificates' SCTs only against the trust root's CT logs: add the CT log key",
      );
    }
  }
  if (needsTrustRoot && !customHost) {
    findings.push({
      path: tlog === "required" && tlogOption === undefined
        ? `${at}.${tlogField.key}`
        : trustRootAt,
      kind: "unmapped",
      reason:
        `Connaisseur fetches the public-good Sigstore keys itself; toolkit reads them from ConfigMap ${context.controllerNamespace}/${PUBLIC_GOOD_TRUST_ROOT} (trusted_root.json of the public-good instance), which must be supplied${
          tlog === "required" && tlogOption === undefined
            ? " (verifyInTransparencyLog defaults to true: signatures must be in Rekor)"
            : ""
        }`,
    });
  }
  if (options.verifySCT !== undefined) {
    findings.push({
      path: `${at}.verifySCT`,
      kind: options.verifySCT === false ? "stronger" : "unmapped",
      reason:
        "toolkit checks keyless certificates against the trust root's CT logs when it has them; there is no per-policy switch",
    });
  }
  const auth = validator.raw.auth;
  if (isObject(auth)) {
    for (const field of Object.keys(auth)) {
      findings.push({
        path: `${validator.path}.auth.${field}`,
        kind: "unmapped",
        reason:
          "toolkit reads signatures with the pull secrets of the Pod and its ServiceAccount (and the webhook's own): put these registry credentials there",
      });
    }
  }
  if (validator.raw.cert !== undefined) {
    findings.push({
      path: `${validator.path}.cert`,
      kind: "unmapped",
      reason:
        "a registry's TLS CA: toolkit's webhook takes registry CAs with its own configuration, not per policy",
    });
  }
  const secrets: Json[] = hostRoot !== undefined
    ? [trustRootObject(trustRootName, context.controllerNamespace, hostRoot.text, origin)]
    : [];
  const requirements = groups.map((group) => {
    const keyed = group.filter((r) => r.key !== undefined);
    const keyless = group.filter((r) => r.keyless !== undefined);
    if (keyed.length > 0 && keyless.length > 0) {
      throw new Refusal(
        trustRootAt,
        `any one of keys and keyless identities (${
          group.map((r) => r.name).join(", ")
        }): a toolkit requirement has either keys or identities`,
      );
    }
    const base = {
      type: "sigstoreSigned",
      tlog,
      ...(keyed.length > 0 && tlog === "required" ? { trustRootRef } : {}),
    };
    if (keyed.length > 0) {
      const pems = keyed.map((root) => {
        const key = root.key!.trim();
        if (!key.startsWith("-----BEGIN")) {
          throw new Refusal(
            `${root.path}.key`,
            `${
              JSON.stringify(key.split("\n")[0]!.slice(0, 60))
            } is a key reference (KMS or k8s://): toolkit's key Secrets hold PEM keys; export it (cosign public-key --key REF) and import the PEM`,
          );
        }
        return key;
      });
      const name = objectName("connaisseur", validator.name, ...keyed.map((r) => r.name));
      secrets.push(
        keySecretObject(name, context.controllerNamespace, pems.join("\n") + "\n", origin),
      );
      return { ...base, keySecret: name, keySecretNamespace: context.controllerNamespace };
    }
    const identities = keyless.map((root) => {
      const k = root.keyless!;
      const identity: Json = {};
      for (
        const [from, to] of [["issuer", "issuer"], ["issuerRegex", "issuerRegExp"], [
          "subject",
          "subject",
        ], ["subjectRegex", "subjectRegExp"]] as const
      ) {
        if (k[from] === undefined) continue;
        if (typeof k[from] !== "string") {
          throw new Refusal(`${root.path}.keyless.${from}`, "is not a string");
        }
        identity[to] = k[from];
      }
      for (const field of Object.keys(k)) {
        if (!["issuer", "issuerRegex", "subject", "subjectRegex"].includes(field)) {
          throw new Refusal(
            `${root.path}.keyless.${field}`,
            "is not a field of a keyless trust root",
          );
        }
      }
      if (identity.issuer === undefined && identity.issuerRegExp === undefined) {
        throw new Refusal(
          `${root.path}.keyless`,
          "names no issuer (issuer or issuerRegex): toolkit needs both an issuer and a subject",
        );
      }
      if (identity.subject === undefined && identity.subjectRegExp === undefined) {
        throw new Refusal(
          `${root.path}.keyless`,
          "names no subject (subject or subjectRegex): toolkit needs both an issuer and a subject",
        );
      }
      return identity;
    });
    return { ...base, keyless: { trustRootRef, identities } };
  });
  return { requirements, mutateImage, secrets, findings, acceptsAnything: false };
}

/** Sample image names for the patterns: each `*` as nothing and as `x1`. */
function samples(
  patterns: readonly string[],
  translated: readonly (string | undefined)[],
): ImageReference[] {
  const names = new Map<string, ImageReference>();
  for (const pattern of [...patterns, ...translated]) {
    if (pattern === undefined || pattern === "") continue;
    for (const fill of ["", "x1", "a/b"]) {
      let text = pattern.replaceAll("*", fill).replace(/^\/+/, "").replace(/:$/, "");
      if (text.startsWith(":")) text = `x1${text}`;
      for (const candidate of [text, `${text}:1`]) {
        try {
          const image = parseReference(candidate);
          names.set(formatReference(image), image);
        } catch { /* not an image name */ }
      }
    }
  }
  return [...names.values()];
}

/**
 * Replays Connaisseur's choice of rule and toolkit's on sample images of the patterns and
 * reports every image for which they differ, on the rule Connaisseur would have applied.
 */
function compareChoices(
  patterns: readonly string[],
  results: readonly (ImportedRule & { pattern?: string; acceptsAnything?: boolean })[],
  at: string,
): void {
  const policies = results.flatMap((result, i) =>
    result.pattern === undefined ? [] : [{
      i,
      policy: validatePolicy({
        apiVersion: `${API_GROUP}/v1`,
        kind: "ClusterImagePolicy",
        metadata: { name: `r${String(i).padStart(4, "0")}` },
        spec: { repositories: [{ name: result.pattern, policy: {} }] },
      }, [API_GROUP]),
    }]
  );
  const set = new PolicySet(policies.map((p) => p.policy));
  const seen = new Set<string>();
  for (const image of samples(patterns, results.map((r) => r.pattern))) {
    const name = connaisseurImageName(image);
    const theirs = connaisseurChoice(patterns, name);
    const match = set.select("default", image, formatReference(image));
    const ours = match.policy === undefined
      ? undefined
      : Number((match as { name: string }).name.slice(1));
    if (theirs === ours) continue;
    if (theirs !== undefined && results[theirs]?.refused) continue;
    const key = `${theirs}/${ours}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const describe = (i: number | undefined) =>
      i === undefined ? "no rule (denied)" : `policy[${i}] (${JSON.stringify(patterns[i])})`;
    const target = theirs ?? ours!;
    const admitsAll = (i: number | undefined) =>
      i !== undefined && results[i]?.acceptsAnything === true;
    const stronger = ours === undefined || (admitsAll(theirs) && !admitsAll(ours));
    (results[target]!.findings as ImportFinding[]).push({
      path: `${at}policy[${target}].pattern`,
      kind: stronger ? "stronger" : "weaker",
      reason: `for ${name} Connaisseur applies ${describe(theirs)}, toolkit ${
        describe(ours)
      }: toolkit prefers an exact name, then the pattern with the most literal characters; Connaisseur the most /-components, then the longest common prefix`,
    });
  }
}
