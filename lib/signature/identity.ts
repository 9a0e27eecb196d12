/**
 * `signedIdentity` rules: how the identity a signature vouches for
 * (`critical.identity.docker-reference`) must relate to the image being admitted. The rules and
 * their semantics are those of containers/image (`containers-policy.json(5)`); the names Portieris
 * uses in its CRDs (`matchExactReference`, `matchExactRepository`, `""`) and the upstream names
 * (`exactReference`, `exactRepository`, `matchRepoDigestOrExact`) are both accepted.
 *
 * The signed identity is normalised as containers/image does (`nginx:1` names
 * `docker.io/library/nginx:1`); a remapped image name must be fully qualified.
 *
 * @module
 */

import { ToolkitError } from "../errors.ts";
import {
  canonicalDomain,
  formatReference,
  type ImageReference,
  parseDockerReference,
  parseReference,
  repositoryName,
} from "../image/mod.ts";

/**
 * A `signedIdentity` rule.
 *
 * - `matchRepoDigestOrExact` (the default): when the image is referenced by digest, the signed
 *   identity must be in the same repository; when by tag, it must be the same `name:tag`.
 * - `matchExact`: the signed identity must equal the image reference (both with a tag or digest).
 * - `matchRepository`: the signed identity must be in the same repository.
 * - `matchExactReference`: the signed identity must equal `dockerReference`.
 * - `matchExactRepository`: the signed identity must be in `dockerRepository`.
 * - `remapIdentity`: when the image's repository is `prefix` or lies under `prefix/`, `prefix`
 *   is replaced by `signedPrefix`; then `matchRepoDigestOrExact` applies.
 */
export type IdentityRule =
  | { readonly type: "matchRepoDigestOrExact" }
  | { readonly type: "matchExact" }
  | { readonly type: "matchRepository" }
  | { readonly type: "matchExactReference"; readonly dockerReference: string }
  | { readonly type: "matchExactRepository"; readonly dockerRepository: string }
  | { readonly type: "remapIdentity"; readonly prefix: string; readonly signedPrefix: string };

/** The names of the rules, as {@linkcode IdentityRule} spells them. */
export type IdentityRuleType = IdentityRule["type"];

/** The rule used when a policy names none: `matchRepoDigestOrExact`. */
export const DEFAULT_IDENTITY_RULE: IdentityRule = Object.freeze({
  type: "matchRepoDigestOrExact",
});

/** The outcome of {@linkcode matchIdentity}. */
export type IdentityMatch =
  | { readonly matches: true }
  | { readonly matches: false; readonly reason: string };

/** A `signedIdentity` that is not valid. */
export class InvalidIdentityRuleError extends ToolkitError {
  /** Creates the error; the message says what is wrong. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "InvalidIdentityRuleError";
  }
}

/** Accepted spellings of each rule type. */
const TYPE_ALIASES: Readonly<Record<string, IdentityRuleType>> = {
  "": "matchRepoDigestOrExact",
  matchRepoDigestOrExact: "matchRepoDigestOrExact",
  matchExact: "matchExact",
  matchRepository: "matchRepository",
  matchExactReference: "matchExactReference",
  exactReference: "matchExactReference",
  matchExactRepository: "matchExactRepository",
  exactRepository: "matchExactRepository",
  remapIdentity: "remapIdentity",
};

/** The fields each rule type takes besides `type`. */
const RULE_FIELDS: Readonly<Record<IdentityRuleType, readonly string[]>> = {
  matchRepoDigestOrExact: [],
  matchExact: [],
  matchRepository: [],
  matchExactReference: ["dockerReference"],
  matchExactRepository: ["dockerRepository"],
  remapIdentity: ["prefix", "signedPrefix"],
};

const KNOWN_FIELDS = ["type", "dockerReference", "dockerRepository", "prefix", "signedPrefix"];

const DOMAIN_NAME_COMPONENT = "[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?";
const DOMAIN_REGEXP = new RegExp(
  `^(?:${DOMAIN_NAME_COMPONENT}(?:\\.${DOMAIN_NAME_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?$`,
);

const PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const PATH_REGEXP = new RegExp(`^${PATH_COMPONENT}(?:/${PATH_COMPONENT})*$`);

function errorDetail(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function fieldString(record: Record<string, unknown>, field: string, type: string): string {
  const value = record[field];
  if (typeof value !== "string" || value === "") {
    throw new InvalidIdentityRuleError(
      `Cannot use signedIdentity "${type}": it needs a non-empty "${field}"`,
    );
  }
  return value;
}

/**
 * Checks a remapping prefix as containers/image does: a host[:port], or a name that starts with
 * a host (`quay.io/team`, `quay.io/team/app`). Tags and digests are not allowed.
 */
function checkPrefix(value: string, field: string): void {
  const slash = value.indexOf("/");
  const valid = DOMAIN_REGEXP.test(value) ||
    (slash > 0 && DOMAIN_REGEXP.test(value.slice(0, slash)) &&
      PATH_REGEXP.test(value.slice(slash + 1)));
  if (!valid) {
    throw new InvalidIdentityRuleError(
      `Cannot use signedIdentity "remapIdentity" with ${field} "${value}": it must be a host[:port] or a fully qualified namespace or repository without tag or digest`,
    );
  }
}

/**
 * A remapping prefix with its registry host in canonical form (`REG.example.com:443/team` is
 * `reg.example.com/team`), so that it is compared with image names in the same spelling.
 */
function canonicalPrefix(value: string): string {
  const slash = value.indexOf("/");
  if (slash < 0) return canonicalDomain(value);
  return `${canonicalDomain(value.slice(0, slash))}${value.slice(slash)}`;
}

/**
 * Reads a `signedIdentity` as written in a Portieris `ImagePolicy` (`{type, dockerReference?,
 * dockerRepository?, prefix?, signedPrefix?}`) or a containers/image policy, or a bare type
 * name. `undefined`, `null` and the type `""` give the default rule. A `dockerReference` or
 * `dockerRepository` may be written in short form (`nginx:1`); it is stored fully qualified.
 *
 * @throws {InvalidIdentityRuleError} for an unknown type, a missing or invalid field, or a field
 * the type does not take.
 */
export function parseIdentityRule(raw: unknown): IdentityRule {
  if (raw === undefined || raw === null) return DEFAULT_IDENTITY_RULE;
  let record: Record<string, unknown>;
  if (typeof raw === "string") {
    record = { type: raw };
  } else if (typeof raw === "object" && !Array.isArray(raw)) {
    record = raw as Record<string, unknown>;
  } else {
    throw new InvalidIdentityRuleError(
      `Cannot use signedIdentity "${String(raw)}": it must be an object with a "type"`,
    );
  }
  const rawType = record.type ?? "";
  if (typeof rawType !== "string") {
    throw new InvalidIdentityRuleError(
      `Cannot use signedIdentity type "${String(rawType)}": the type must be a string`,
    );
  }
  const type = Object.hasOwn(TYPE_ALIASES, rawType) ? TYPE_ALIASES[rawType] : undefined;
  if (type === undefined) {
    throw new InvalidIdentityRuleError(
      `Cannot use signedIdentity type "${rawType}": unknown type (known: ${
        Object.keys(TYPE_ALIASES).filter((name) => name !== "").join(", ")
      })`,
    );
  }
  for (const [field, value] of Object.entries(record)) {
    if (!KNOWN_FIELDS.includes(field)) {
      throw new InvalidIdentityRuleError(
        `Cannot use signedIdentity "${type}": unknown field "${field}"`,
      );
    }
    if (
      field !== "type" && !RULE_FIELDS[type].includes(field) && value !== undefined &&
      value !== null && value !== ""
    ) {
      throw new InvalidIdentityRuleError(
        `Cannot use signedIdentity "${type}": it does not take "${field}"`,
      );
    }
  }

  switch (type) {
    case "matchRepoDigestOrExact":
    case "matchExact":
    case "matchRepository":
      return { type };
    case "matchExactReference": {
      const value = fieldString(record, "dockerReference", type);
      let ref: ImageReference;
      try {
        ref = parseReference(value);
      } catch (error) {
        throw new InvalidIdentityRuleError(
          `Cannot use signedIdentity "${type}" with dockerReference "${value}": ${
            errorDetail(error)
          }`,
          { cause: error },
        );
      }
      if (ref.tag === undefined && ref.digest === undefined) {
        throw new InvalidIdentityRuleError(
          `Cannot use signedIdentity "${type}" with dockerReference "${value}": it needs a tag or digest`,
        );
      }
      return { type, dockerReference: formatReference(ref) };
    }
    case "matchExactRepository": {
      const value = fieldString(record, "dockerRepository", type);
      try {
        return { type, dockerRepository: repositoryName(parseReference(value)) };
      } catch (error) {
        throw new InvalidIdentityRuleError(
          `Cannot use signedIdentity "${type}" with dockerRepository "${value}": ${
            errorDetail(error)
          }`,
          { cause: error },
        );
      }
    }
    case "remapIdentity": {
      const prefix = fieldString(record, "prefix", type);
      const signedPrefix = fieldString(record, "signedPrefix", type);
      checkPrefix(prefix, "prefix");
      checkPrefix(signedPrefix, "signedPrefix");
      return { type, prefix: canonicalPrefix(prefix), signedPrefix: canonicalPrefix(signedPrefix) };
    }
  }
}

const MATCH: IdentityMatch = Object.freeze({ matches: true });

function noMatch(reason: string): IdentityMatch {
  return { matches: false, reason };
}

function isNameOnly(ref: ImageReference): boolean {
  return ref.tag === undefined && ref.digest === undefined;
}

/** `matchRepoDigestOrExact` on parsed values. */
function matchRepoDigestOrExact(
  image: ImageReference,
  signed: ImageReference,
  signedText: string,
): IdentityMatch {
  if (isNameOnly(signed)) {
    return noMatch(`signed identity ${signedText} has neither tag nor digest`);
  }
  if (image.digest !== undefined) {
    return repositoryName(signed) === repositoryName(image) ? MATCH : noMatch(
      `signed identity ${signedText} is not in the image's repository ${repositoryName(image)}`,
    );
  }
  if (image.tag !== undefined) {
    const wanted = formatReference(image);
    return signedText === wanted
      ? MATCH
      : noMatch(`signed identity ${signedText} does not match ${wanted}`);
  }
  return noMatch(`image reference ${formatReference(image)} has neither tag nor digest`);
}

/** A configured reference, normalised and formatted; undefined when it is not valid. */
function configured(
  value: string,
  format: (ref: ImageReference) => string,
): string | undefined {
  try {
    return format(parseReference(value));
  } catch {
    return undefined;
  }
}

/** Whether the image's repository is `prefix` or lies under `prefix/`. */
function matchesPrefix(name: string, prefix: string): boolean {
  return name === prefix || (name.startsWith(prefix) && name[prefix.length] === "/");
}

/**
 * Checks the identity a signature vouches for (`signedReference`, its
 * `critical.identity.docker-reference`) against the image being admitted by `rule`. The image
 * reference should carry the tag or digest it was referenced by (add `latest` with
 * `withDefaultTag` when it has neither); a reference with neither matches only the
 * repository-based rules. The signed reference is normalised as containers/image does.
 */
export function matchIdentity(
  rule: IdentityRule,
  image: ImageReference,
  signedReference: string,
): IdentityMatch {
  let signed: ImageReference;
  try {
    // Normalised like containers/image (ParseNormalizedNamed): a signature for "busybox:latest"
    // names docker.io/library/busybox:latest.
    signed = parseReference(signedReference);
  } catch (error) {
    return noMatch(
      `signed identity ${JSON.stringify(signedReference)} is not a valid reference (${
        errorDetail(error)
      })`,
    );
  }
  // Compared in canonical form from here on.
  const signedText = formatReference(signed);
  const imageText = formatReference(image);
  switch (rule.type) {
    case "matchRepoDigestOrExact":
      return matchRepoDigestOrExact(image, signed, signedText);
    case "matchExact":
      if (isNameOnly(image)) {
        return noMatch(`image reference ${imageText} has neither tag nor digest`);
      }
      if (isNameOnly(signed)) {
        return noMatch(`signed identity ${signedText} has neither tag nor digest`);
      }
      return signedText === imageText
        ? MATCH
        : noMatch(`signed identity ${signedText} does not match ${imageText}`);
    case "matchRepository":
      return repositoryName(signed) === repositoryName(image) ? MATCH : noMatch(
        `signed identity ${signedText} is not in the image's repository ${repositoryName(image)}`,
      );
    case "matchExactReference": {
      if (isNameOnly(signed)) {
        return noMatch(`signed identity ${signedText} has neither tag nor digest`);
      }
      const wanted = configured(rule.dockerReference, formatReference);
      if (wanted === undefined) {
        return noMatch(
          `the required reference ${JSON.stringify(rule.dockerReference)} is not valid`,
        );
      }
      return signedText === wanted ? MATCH : noMatch(
        `signed identity ${signedText} does not match the required reference ${wanted}`,
      );
    }
    case "matchExactRepository": {
      const wanted = configured(rule.dockerRepository, repositoryName);
      if (wanted === undefined) {
        return noMatch(
          `the required repository ${JSON.stringify(rule.dockerRepository)} is not valid`,
        );
      }
      return repositoryName(signed) === wanted ? MATCH : noMatch(
        `signed identity ${signedText} is not in the required repository ${wanted}`,
      );
    }
    case "remapIdentity": {
      let intended = image;
      if (matchesPrefix(repositoryName(image), rule.prefix)) {
        const remapped = imageText.replace(rule.prefix, () => rule.signedPrefix);
        try {
          intended = parseDockerReference(remapped);
        } catch (error) {
          return noMatch(
            `image reference ${imageText} remapped to ${remapped} is not valid (${
              errorDetail(error)
            })`,
          );
        }
      }
      return matchRepoDigestOrExact(intended, signed, signedText);
    }
    default:
      return noMatch(
        `unknown signedIdentity type ${JSON.stringify((rule as { type: unknown }).type)}`,
      );
  }
}
