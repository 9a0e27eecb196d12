/**
 * Validation of policy objects read from files or the API server: the same rules as the
 * CRDs' OpenAPI schema and CEL validations, reported with the path of each wrong field.
 *
 * @module
 */
import { ToolkitError } from "../errors.ts";
import { quoteInput } from "../quote.ts";
import { POLICY_MODES, REQUIREMENT_TYPES, SIGNED_IDENTITY_TYPES } from "./crds.ts";
import {
  MAX_ATTESTATION_CONDITIONS,
  MAX_CONDITION_NAME_LENGTH,
  MAX_FIELD_LENGTHS,
  MAX_IDENTITY_STATES,
  MAX_KEYLESS_IDENTITIES,
  MAX_POLICY_PLATFORMS,
  MAX_REPOSITORIES,
  MAX_REQUIREMENTS,
  MAX_STRING_LENGTH,
  MULTI_ARCH_RULES,
  TLOG_POLICIES,
  TRUST_ROOT_KINDS,
} from "./crds.ts";
import { compileLinearRegExp, RegExpSyntaxError } from "../linear_regexp.ts";
import { patternProblem } from "./pattern.ts";
import { PREDICATE_TYPE_SHORT_NAMES, predicateTypeURI } from "./predicate_types.ts";
import {
  compileAttestationCondition,
  hasAttestationConditions,
  loadAttestationConditions,
} from "./attestation_conditions.ts";
import { CelLimitError } from "../cel/mod.ts";
import type { Slicer } from "../turns.ts";
import type {
  AttestationCondition,
  ImagePolicy,
  KeylessIdentity,
  KeylessPolicy,
  RepositoryPolicy,
  RepositoryRule,
  Requirement,
  SignedIdentity,
  TrustRootRef,
} from "./types.ts";

/** One problem in a policy object: the path of the field and what is wrong. */
export interface FieldProblem {
  /** E.g. `spec.repositories[0].policy.simple.requirements[1].keySecret`. */
  readonly path: string;
  readonly message: string;
}

/** A policy object that does not validate; lists every problem found. */
export class InvalidPolicyError extends ToolkitError {
  /** Every problem, in document order. */
  readonly problems: readonly FieldProblem[];
  /** Creates the error for the named object. */
  constructor(object: string, problems: readonly FieldProblem[]) {
    super(
      `Cannot use policy ${object}: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`,
    );
    this.name = "InvalidPolicyError";
    this.problems = problems;
  }
}

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

class Checker {
  readonly problems: FieldProblem[] = [];
  fail(path: string, message: string): void {
    this.problems.push({ path, message });
  }
  optionalString(o: Obj, key: string, path: string): string | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string") {
      this.fail(`${path}.${key}`, `must be a string, not ${typeof v}`);
      return undefined;
    }
    const max = MAX_FIELD_LENGTHS[key] ?? MAX_STRING_LENGTH;
    if (v.length > max) {
      this.fail(`${path}.${key}`, `is ${v.length} characters long; at most ${max} are allowed`);
      return undefined;
    }
    return v;
  }
  unknownKeys(o: Obj, allowed: readonly string[], path: string): void {
    for (const key of Object.keys(o)) {
      if (!allowed.includes(key)) this.fail(`${path}.${key}`, "is not a known field");
    }
  }
}

function enumValue<T extends string>(
  c: Checker,
  value: unknown,
  values: readonly T[],
  path: string,
): T | undefined {
  if (typeof value === "string" && (values as readonly string[]).includes(value)) return value as T;
  c.fail(
    path,
    `${value === undefined ? "is required" : `"${String(value)}" is not supported`}: use one of ${
      values.filter((v) => v !== "").map((v) => `"${v}"`).join(", ")
    }`,
  );
  return undefined;
}

function signedIdentity(c: Checker, raw: unknown, path: string): SignedIdentity | undefined {
  if (!isObject(raw)) {
    c.fail(path, "must be an object");
    return undefined;
  }
  c.unknownKeys(
    raw,
    ["type", "dockerReference", "dockerRepository", "prefix", "signedPrefix"],
    path,
  );
  const type = enumValue(c, raw.type, SIGNED_IDENTITY_TYPES, `${path}.type`);
  const dockerReference = c.optionalString(raw, "dockerReference", path);
  const dockerRepository = c.optionalString(raw, "dockerRepository", path);
  const prefix = c.optionalString(raw, "prefix", path);
  const signedPrefix = c.optionalString(raw, "signedPrefix", path);
  if ((type === "matchExactReference" || type === "exactReference") && !dockerReference) {
    c.fail(`${path}.dockerReference`, `is required for ${type}`);
  }
  if ((type === "matchExactRepository" || type === "exactRepository") && !dockerRepository) {
    c.fail(`${path}.dockerRepository`, `is required for ${type}`);
  }
  if (type === "remapIdentity" && (!prefix || !signedPrefix)) {
    c.fail(`${path}.prefix`, "prefix and signedPrefix are required for remapIdentity");
  }
  if (type === undefined) return undefined;
  return {
    type,
    ...(dockerReference ? { dockerReference } : {}),
    ...(dockerRepository ? { dockerRepository } : {}),
    ...(prefix ? { prefix } : {}),
    ...(signedPrefix ? { signedPrefix } : {}),
  };
}

function trustRootRef(c: Checker, raw: unknown, path: string): TrustRootRef | undefined {
  if (!isObject(raw)) {
    c.fail(path, "must be an object");
    return undefined;
  }
  c.unknownKeys(raw, ["kind", "name", "namespace", "key"], path);
  const kind = raw.kind === undefined || raw.kind === null
    ? "ConfigMap"
    : enumValue(c, raw.kind, TRUST_ROOT_KINDS, `${path}.kind`);
  const name = c.optionalString(raw, "name", path);
  const namespace = c.optionalString(raw, "namespace", path);
  const key = c.optionalString(raw, "key", path);
  if (!name) c.fail(`${path}.name`, "is required");
  if (kind === undefined || !name) return undefined;
  return { kind, name, ...(namespace ? { namespace } : {}), ...(key ? { key } : {}) };
}

/** An exact value or a regular expression (compiled here, so that a bad one has its path). */
function identityPart(
  c: Checker,
  raw: Record<string, unknown>,
  field: "issuer" | "subject",
  path: string,
): Partial<KeylessIdentity> {
  const exact = c.optionalString(raw, field, path);
  const pattern = c.optionalString(raw, `${field}RegExp`, path);
  if ((exact === undefined) === (pattern === undefined)) {
    c.fail(`${path}.${field}`, `one of ${field} and ${field}RegExp is required`);
    return {};
  }
  if (pattern !== undefined) {
    try {
      compileLinearRegExp(pattern);
    } catch (error) {
      if (!(error instanceof RegExpSyntaxError)) throw error;
      c.fail(`${path}.${field}RegExp`, error.message);
      return {};
    }
    return { [`${field}RegExp`]: pattern };
  }
  return { [field]: exact };
}

function keyless(c: Checker, raw: unknown, path: string): KeylessPolicy | undefined {
  if (!isObject(raw)) {
    c.fail(path, "must be an object");
    return undefined;
  }
  c.unknownKeys(raw, ["trustRootRef", "identities"], path);
  const ref = raw.trustRootRef === undefined || raw.trustRootRef === null
    ? (c.fail(`${path}.trustRootRef`, "is required"), undefined)
    : trustRootRef(c, raw.trustRootRef, `${path}.trustRootRef`);
  const identities: KeylessIdentity[] = [];
  if (!Array.isArray(raw.identities) || raw.identities.length === 0) {
    c.fail(`${path}.identities`, "must be a non-empty list");
  } else if (raw.identities.length > MAX_KEYLESS_IDENTITIES) {
    c.fail(
      `${path}.identities`,
      `has ${raw.identities.length} entries; at most ${MAX_KEYLESS_IDENTITIES} are allowed`,
    );
  } else {
    raw.identities.forEach((entry: unknown, i: number) => {
      const entryPath = `${path}.identities[${i}]`;
      if (!isObject(entry)) return c.fail(entryPath, "must be an object");
      c.unknownKeys(entry, ["issuer", "issuerRegExp", "subject", "subjectRegExp"], entryPath);
      identities.push({
        ...identityPart(c, entry, "issuer", entryPath),
        ...identityPart(c, entry, "subject", entryPath),
      });
    });
    const states = identities.reduce(
      (n, i) =>
        n + [i.issuerRegExp, i.subjectRegExp].reduce(
          (m, p) => m + (p === undefined ? 0 : compileLinearRegExp(p).states),
          0,
        ),
      0,
    );
    if (states > MAX_IDENTITY_STATES) {
      c.fail(
        `${path}.identities`,
        `its regular expressions compile to ${states} states; at most ${MAX_IDENTITY_STATES} are allowed in all`,
      );
    }
  }
  return ref === undefined ? undefined : { trustRootRef: ref, identities };
}

/** Whether `raw` has `key` set (neither absent nor null). */
function present(raw: Record<string, unknown>, key: string): boolean {
  return raw[key] !== undefined && raw[key] !== null;
}

/** The fields only `sigstoreSigned` and `attestation` take: checked against the type and each other. */
function sigstoreFields(
  c: Checker,
  raw: Record<string, unknown>,
  type: Requirement["type"] | undefined,
  keySecret: string | undefined,
  path: string,
): Pick<Requirement, "keyless" | "tlog" | "trustRootRef"> {
  if (type !== "sigstoreSigned" && type !== "attestation") {
    for (const key of ["keyless", "tlog", "trustRootRef"]) {
      if (present(raw, key)) c.fail(`${path}.${key}`, "is only for sigstoreSigned and attestation");
    }
    return {};
  }
  const keylessPolicy = present(raw, "keyless")
    ? keyless(c, raw.keyless, `${path}.keyless`)
    : undefined;
  if (present(raw, "keyless") === Boolean(keySecret)) {
    c.fail(
      `${path}.keySecret`,
      type === "attestation"
        ? "attestation needs keySecret (keys) or keyless, not both"
        : "sigstoreSigned needs keySecret (keyed) or keyless, not both",
    );
  }
  const tlog = present(raw, "tlog")
    ? enumValue(c, raw.tlog, TLOG_POLICIES, `${path}.tlog`)
    : undefined;
  let ref: TrustRootRef | undefined;
  if (present(raw, "trustRootRef")) {
    if (!keySecret) {
      c.fail(`${path}.trustRootRef`, "is for a keyed requirement (keyless names its own)");
    } else {
      ref = trustRootRef(c, raw.trustRootRef, `${path}.trustRootRef`);
    }
  }
  if (keySecret && tlog === "required" && !present(raw, "trustRootRef")) {
    c.fail(
      `${path}.trustRootRef`,
      "is required for tlog: required with a keySecret (the logs' keys)",
    );
  }
  return {
    ...(keylessPolicy ? { keyless: keylessPolicy } : {}),
    ...(tlog ? { tlog } : {}),
    ...(ref ? { trustRootRef: ref } : {}),
  };
}

/** The fields only `attestation` takes: the predicate type, and conditions compiled and bounded. */
function attestationFields(
  c: Checker,
  raw: Record<string, unknown>,
  type: Requirement["type"] | undefined,
  path: string,
): Pick<Requirement, "predicateType" | "conditions"> {
  if (type !== "attestation") {
    for (const key of ["predicateType", "conditions"]) {
      if (present(raw, key)) c.fail(`${path}.${key}`, "is only for attestation");
    }
    return {};
  }
  if (present(raw, "signedIdentity")) {
    c.fail(`${path}.signedIdentity`, "is not for attestation: an attestation names no repository");
  }
  const name = c.optionalString(raw, "predicateType", path);
  let predicateType: string | undefined;
  if (!present(raw, "predicateType")) {
    c.fail(`${path}.predicateType`, "is required for attestation");
  } else if (name !== undefined) {
    predicateType = predicateTypeURI(name);
    if (predicateType === undefined) {
      c.fail(
        `${path}.predicateType`,
        `"${quoteInput(name)}" is neither a URI nor one of ${
          Object.keys(PREDICATE_TYPE_SHORT_NAMES).join(", ")
        }`,
      );
    }
  }
  const conditions: AttestationCondition[] = [];
  if (present(raw, "conditions")) {
    const list = raw.conditions;
    const listPath = `${path}.conditions`;
    if (!Array.isArray(list)) c.fail(listPath, "must be a list");
    else if (list.length > MAX_ATTESTATION_CONDITIONS) {
      c.fail(
        listPath,
        `has ${list.length} conditions; at most ${MAX_ATTESTATION_CONDITIONS} are allowed`,
      );
    } else {
      const names = new Set<string>();
      list.forEach((item, i) => {
        const at = `${listPath}[${i}]`;
        if (!isObject(item)) return c.fail(at, "must be an object");
        c.unknownKeys(item, ["name", "expression", "message"], at);
        const name = c.optionalString(item, "name", at);
        const expression = c.optionalString(item, "expression", at);
        const message = c.optionalString(item, "message", at);
        if (!name) return c.fail(`${at}.name`, "is required");
        if (name.length > MAX_CONDITION_NAME_LENGTH) {
          return c.fail(`${at}.name`, `is longer than ${MAX_CONDITION_NAME_LENGTH} characters`);
        }
        if (names.has(name)) return c.fail(`${at}.name`, `"${name}" is named twice`);
        names.add(name);
        if (!expression) return c.fail(`${at}.expression`, "is required");
        const condition: AttestationCondition = {
          name,
          expression,
          ...(message ? { message } : {}),
        };
        try {
          compileAttestationCondition(condition);
        } catch (error) {
          if (!(error instanceof CelLimitError)) throw error;
          return c.fail(`${at}.expression`, error.message);
        }
        conditions.push(condition);
      });
    }
  }
  return {
    ...(predicateType ? { predicateType } : {}),
    ...(conditions.length > 0 ? { conditions } : {}),
  };
}

function requirement(c: Checker, raw: unknown, path: string): Requirement | undefined {
  if (!isObject(raw)) {
    c.fail(path, "must be an object");
    return undefined;
  }
  c.unknownKeys(
    raw,
    [
      "type",
      "keySecret",
      "keySecretNamespace",
      "signedIdentity",
      "keyless",
      "tlog",
      "trustRootRef",
      "multiArch",
      "platforms",
      "predicateType",
      "conditions",
    ],
    path,
  );
  const type = enumValue(c, raw.type, REQUIREMENT_TYPES, `${path}.type`);
  const keySecret = c.optionalString(raw, "keySecret", path);
  const keySecretNamespace = c.optionalString(raw, "keySecretNamespace", path);
  if (type === "signedBy" && !keySecret) c.fail(`${path}.keySecret`, "is required for signedBy");
  const identity = raw.signedIdentity === undefined || raw.signedIdentity === null
    ? undefined
    : signedIdentity(c, raw.signedIdentity, `${path}.signedIdentity`);
  const sigstore = sigstoreFields(c, raw, type, keySecret, path);
  const multiArch = multiArchFields(c, raw, type, path);
  const attestation = attestationFields(c, raw, type, path);
  if (type === undefined) return undefined;
  if (type === "attestation") {
    if (attestation.predicateType === undefined) return undefined;
    return {
      type,
      predicateType: attestation.predicateType,
      ...(keySecret ? { keySecret } : {}),
      ...(keySecretNamespace ? { keySecretNamespace } : {}),
      ...sigstore,
      ...(attestation.conditions ? { conditions: attestation.conditions } : {}),
      ...multiArch,
    };
  }
  return {
    type,
    ...(keySecret ? { keySecret } : {}),
    ...(keySecretNamespace ? { keySecretNamespace } : {}),
    ...(identity ? { signedIdentity: identity } : {}),
    ...sigstore,
    ...multiArch,
  };
}

/** `os/architecture[/variant]`, each part as the CRD's `PLATFORM_PATTERN` says (no regexp run). */
export function isPlatformName(value: string): boolean {
  const parts = value.split("/");
  if (parts.length < 2 || parts.length > 3) return false;
  return parts.every((part) =>
    part.length >= 1 && part.length <= 32 && /^[a-z0-9]$/.test(part[0]!) &&
    [...part].every((ch) => /^[a-z0-9._-]$/.test(ch))
  );
}

/**
 * `multiArch` and `platforms`: on every requirement that verifies signatures or attestations
 * (not `reject`, `insecureAcceptAnything`).
 */
function multiArchFields(
  c: Checker,
  raw: Record<string, unknown>,
  type: Requirement["type"] | undefined,
  path: string,
): Pick<Requirement, "multiArch" | "platforms"> {
  if (type === "reject" || type === "insecureAcceptAnything") {
    for (const key of ["multiArch", "platforms"]) {
      if (present(raw, key)) {
        c.fail(`${path}.${key}`, "is only for signature and attestation requirements");
      }
    }
    return {};
  }
  const multiArch = present(raw, "multiArch")
    ? enumValue(c, raw.multiArch, MULTI_ARCH_RULES, `${path}.multiArch`)
    : undefined;
  if (!present(raw, "platforms")) return multiArch ? { multiArch } : {};
  const list = raw.platforms;
  const at = `${path}.platforms`;
  if (!Array.isArray(list)) {
    c.fail(at, "must be a list of platforms (os/architecture[/variant], e.g. linux/amd64)");
    return multiArch ? { multiArch } : {};
  }
  if (list.length > MAX_POLICY_PLATFORMS) {
    c.fail(at, `lists ${list.length} platforms; at most ${MAX_POLICY_PLATFORMS} are allowed`);
    return multiArch ? { multiArch } : {};
  }
  const platforms: string[] = [];
  list.forEach((value, i) => {
    if (typeof value !== "string" || !isPlatformName(value)) {
      c.fail(
        `${at}[${i}]`,
        `must be a platform as os/architecture[/variant] in lower case (e.g. linux/amd64, linux/arm64/v8), not ${
          JSON.stringify(
            quoteInput(typeof value === "string" ? value : JSON.stringify(value) ?? String(value)),
          )
        }`,
      );
    } else if (!platforms.includes(value)) {
      platforms.push(value);
    }
  });
  if (list.length > 0 && platforms.length === 0) return multiArch ? { multiArch } : {};
  if (list.length === 0) c.fail(at, "must name at least one platform (omit it for all)");
  return { ...(multiArch ? { multiArch } : {}), platforms };
}

function repositoryPolicy(c: Checker, raw: unknown, path: string): RepositoryPolicy {
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) {
    c.fail(path, "must be an object");
    return {};
  }
  c.unknownKeys(raw, ["mutateImage", "mode", "simple", "trust", "vulnerability"], path);
  const policy: {
    -readonly [K in keyof RepositoryPolicy]: RepositoryPolicy[K];
  } = {};
  if (raw.mutateImage !== undefined && raw.mutateImage !== null) {
    if (typeof raw.mutateImage === "boolean") policy.mutateImage = raw.mutateImage;
    else c.fail(`${path}.mutateImage`, "must be true or false");
  }
  if (raw.mode !== undefined && raw.mode !== null) {
    const mode = enumValue(c, raw.mode, POLICY_MODES, `${path}.mode`);
    if (mode) policy.mode = mode;
  }
  if (raw.simple !== undefined && raw.simple !== null) {
    const simplePath = `${path}.simple`;
    if (!isObject(raw.simple)) {
      c.fail(simplePath, "must be an object");
    } else {
      c.unknownKeys(raw.simple, ["storeURL", "storeSecret", "requirements"], simplePath);
      const storeURL = c.optionalString(raw.simple, "storeURL", simplePath);
      const storeSecret = c.optionalString(raw.simple, "storeSecret", simplePath);
      if (storeURL) {
        try {
          const url = new URL(storeURL);
          if (!["http:", "https:", "file:"].includes(url.protocol)) throw new Error();
        } catch {
          c.fail(`${simplePath}.storeURL`, `"${storeURL}" is not an http(s) or file URL`);
        }
      }
      const rawRequirements = raw.simple.requirements;
      const requirements: Requirement[] = [];
      if (Array.isArray(rawRequirements) && rawRequirements.length > MAX_REQUIREMENTS) {
        c.fail(
          `${simplePath}.requirements`,
          `has ${rawRequirements.length} requirements; at most ${MAX_REQUIREMENTS} are allowed`,
        );
      } else if (Array.isArray(rawRequirements)) {
        rawRequirements.forEach((r, i) => {
          const parsed = requirement(c, r, `${simplePath}.requirements[${i}]`);
          if (parsed) requirements.push(parsed);
        });
      } else if (rawRequirements !== undefined && rawRequirements !== null) {
        c.fail(`${simplePath}.requirements`, "must be a list");
      }
      policy.simple = {
        ...(storeURL ? { storeURL } : {}),
        ...(storeSecret ? { storeSecret } : {}),
        requirements,
      };
    }
  }
  if (isObject(raw.trust)) policy.trust = { enabled: raw.trust.enabled === true };
  if (isObject(raw.vulnerability) && isObject(raw.vulnerability.ICCRVA)) {
    policy.vulnerability = { ICCRVA: { enabled: raw.vulnerability.ICCRVA.enabled === true } };
  }
  return policy;
}

/** How many repositories {@linkcode validatePolicyInSlices} checks between two looks at the time. */
export const REPOSITORIES_PER_SLICE = 16;

/**
 * Validates a ClusterImagePolicy or ImagePolicy object (as parsed from YAML or returned by the
 * API server) of the given API group. Throws {@link InvalidPolicyError} listing every problem.
 * A policy with CEL conditions needs the evaluator loaded first
 * (`loadAttestationConditions()`; {@linkcode validatePolicyInSlices} loads it).
 */
export function validatePolicy(raw: unknown, groups: readonly string[]): ImagePolicy {
  const steps = validation(raw, groups);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * {@linkcode validatePolicy}, cut into slices: every {@linkcode REPOSITORIES_PER_SLICE}
 * repositories it asks `slicer.due()` whether its slice has taken long enough, and if so waits
 * for `slicer.next()` before it goes on, so that a policy of 512 repositories never holds the
 * event loop in one piece.
 */
export async function validatePolicyInSlices(
  raw: unknown,
  groups: readonly string[],
  slicer: Slicer,
): Promise<ImagePolicy> {
  // CEL conditions are compiled as they are validated: the evaluator is loaded first.
  if (hasAttestationConditions(raw)) await loadAttestationConditions();
  const steps = validation(raw, groups);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    slicer.counter.steps += REPOSITORIES_PER_SLICE * 100;
    if (slicer.due()) await slicer.next();
  }
}

/** The validation, pausing (yielding) after every {@linkcode REPOSITORIES_PER_SLICE} repositories. */
function* validation(raw: unknown, groups: readonly string[]): Generator<void, ImagePolicy> {
  const c = new Checker();
  if (!isObject(raw)) {
    throw new InvalidPolicyError("(not an object)", [{ path: "", message: "must be an object" }]);
  }
  const kind = raw.kind;
  const metadata = isObject(raw.metadata) ? raw.metadata : {};
  const name = typeof metadata.name === "string" ? metadata.name : "";
  const namespace = typeof metadata.namespace === "string" ? metadata.namespace : undefined;
  const label = `${String(kind ?? "object")} "${namespace ? `${namespace}/` : ""}${name}"`;
  if (kind !== "ClusterImagePolicy" && kind !== "ImagePolicy") {
    c.fail("kind", "must be ClusterImagePolicy or ImagePolicy");
  }
  const apiVersion = typeof raw.apiVersion === "string" ? raw.apiVersion : "";
  if (!groups.some((g) => apiVersion === `${g}/v1`)) {
    c.fail("apiVersion", `"${apiVersion}" is not ${groups.map((g) => `${g}/v1`).join(" or ")}`);
  }
  if (!name) c.fail("metadata.name", "is required");
  const spec = raw.spec;
  const repositories: RepositoryRule[] = [];
  if (!isObject(spec)) {
    c.fail("spec", "is required");
  } else if (!Array.isArray(spec.repositories)) {
    c.fail("spec.repositories", "must be a list");
  } else if (spec.repositories.length > MAX_REPOSITORIES) {
    c.fail(
      "spec.repositories",
      `has ${spec.repositories.length} entries; at most ${MAX_REPOSITORIES} are allowed`,
    );
  } else {
    const list: unknown[] = spec.repositories;
    for (let i = 0; i < list.length; i++) {
      if (i > 0 && i % REPOSITORIES_PER_SLICE === 0) yield;
      const r = list[i];
      const path = `spec.repositories[${i}]`;
      if (!isObject(r)) {
        c.fail(path, "must be an object");
        continue;
      }
      c.unknownKeys(r, ["name", "policy"], path);
      if (typeof r.name !== "string" || r.name === "") {
        c.fail(`${path}.name`, "is required");
        continue;
      }
      const problem = patternProblem(r.name);
      if (problem !== undefined) {
        c.fail(`${path}.name`, `"${quoteInput(r.name)}" ${problem}`);
        continue;
      }
      repositories.push({ name: r.name, policy: repositoryPolicy(c, r.policy, `${path}.policy`) });
    }
  }
  if (c.problems.length > 0) throw new InvalidPolicyError(label, c.problems);
  return {
    kind: kind as ImagePolicy["kind"],
    name,
    ...(kind === "ImagePolicy" ? { namespace: namespace ?? "default" } : {}),
    repositories,
  };
}
