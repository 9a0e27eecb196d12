/**
 * Kyverno attestation conditions (`attestations[].conditions: [{all|any: [{key, operator,
 * value}]}]`, JMESPath over the attestation's predicate) translated to toolkit's CEL conditions
 * where the meaning is exact: a key that is one plain field path (`{{ builder.id }}`, read from
 * the predicate as Kyverno reads it) compared with `Equals`/`NotEquals` to a string or boolean,
 * or with `In`/`NotIn`/`AnyIn`/`AnyNotIn` to a list of strings (the field being a scalar), and
 * `{{ regex_match('RE', '{{ field }}') }}` compared with a boolean (Go's unanchored match, as
 * CEL's RE2 `matches`; the field must be a string, as regex_match needs). Any
 * other condition (JMESPath functions, projections, numbers, durations…) is refused with its
 * path: dropping a condition would admit images Kyverno denies.
 *
 * @module
 */
import { type Findings, isObj, listAt } from "./kyverno_common.ts";

/** One toolkit attestation condition. */
export interface CelCondition {
  readonly name: string;
  readonly expression: string;
  readonly message?: string;
}

const FIELD = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}$/;

function literal(value: unknown): string | undefined {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "boolean") return String(value);
  return undefined;
}

/** `has()` guards for every step of a field path, then the field itself. */
function guarded(fields: string[]): { guard: string; field: string } {
  const steps: string[] = [];
  for (let i = 1; i <= fields.length; i++) {
    steps.push(`has(predicate.${fields.slice(0, i).join(".")})`);
  }
  return { guard: steps.join(" && "), field: `predicate.${fields.join(".")}` };
}

/** `{{ regex_match('RE', '{{ a.b }}') }}`: Go's unanchored `MatchString`, as CEL's `matches`. */
const REGEX_MATCH =
  /^\{\{\s*regex_match\(\s*'([^']*)'\s*,\s*'\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}'\s*\)\s*\}\}$/;

/** `regex_match(…)` compared with a boolean, as CEL, or undefined when it is not that. */
function regexMatch(
  key: string,
  operator: string,
  value: unknown,
  attestationName: string | undefined,
): string | undefined {
  const match = REGEX_MATCH.exec(key);
  if (!match) return undefined;
  const truth = value === true || value === "true"
    ? true
    : value === false || value === "false"
    ? false
    : undefined;
  const lower = operator.toLowerCase();
  if (truth === undefined || !["equals", "equal", "notequals", "notequal"].includes(lower)) {
    return undefined;
  }
  let fields = (match[2] ?? "").split(".");
  if (attestationName !== undefined && fields[0] === attestationName) fields = fields.slice(1);
  const { guard, field } = guarded(fields);
  const wanted = lower.startsWith("not") ? !truth : truth;
  const test = `${field}.matches(${JSON.stringify(match[1] ?? "")})`;
  return wanted ? `${guard} && ${test}` : `!(${guard}) || !${test}`;
}

/** One `{key, operator, value}` as a CEL expression, or a reason it cannot be. */
function one(raw: unknown, attestationName: string | undefined): string | { reason: string } {
  if (!isObj(raw)) return { reason: "a condition must be an object" };
  const key = typeof raw.key === "string" ? raw.key.trim() : undefined;
  const operator = String(raw.operator ?? "Equals");
  const regex = key === undefined
    ? undefined
    : regexMatch(key, operator, raw.value, attestationName);
  if (regex !== undefined) return regex;
  const match = key === undefined ? null : FIELD.exec(key);
  if (!match) {
    return {
      reason: `the key ${
        JSON.stringify(raw.key)
      } is not one plain field of the predicate (JMESPath functions, projections and variables are not translated to CEL)`,
    };
  }
  let fields = (match[1] ?? "").split(".");
  if (attestationName !== undefined && fields[0] === attestationName) fields = fields.slice(1);
  if (fields[0] === "request" || fields[0] === "images" || fields[0] === "element") {
    return { reason: `the key reads ${fields[0]}, not the predicate` };
  }
  const { guard, field } = guarded(fields);
  const lower = operator.toLowerCase();
  if (lower === "equals" || lower === "equal" || lower === "notequals" || lower === "notequal") {
    const value = literal(raw.value);
    if (value === undefined) {
      return {
        reason: `the value ${
          JSON.stringify(raw.value)
        } is not a string or boolean (number comparisons differ between JMESPath and CEL)`,
      };
    }
    return lower.startsWith("not")
      ? `!(${guard}) || ${field} != ${value}`
      : `${guard} && ${field} == ${value}`;
  }
  if (["in", "anyin", "notin", "anynotin"].includes(lower)) {
    const values = Array.isArray(raw.value) ? raw.value : [raw.value];
    const literals = values.map(literal);
    if (literals.some((l) => l === undefined) || values.some((v) => typeof v !== "string")) {
      return { reason: "In/NotIn values must be strings to translate exactly" };
    }
    const list = `[${literals.join(", ")}]`;
    return lower.includes("not")
      ? `!(${guard}) || !(${field} in ${list})`
      : `${guard} && ${field} in ${list}`;
  }
  return { reason: `the operator ${operator} is not translated to CEL` };
}

/**
 * The CEL conditions of an attestation's `conditions`, or undefined (the rule refused, each
 * untranslatable condition reported at its path).
 */
export function jmesConditionsToCel(
  blocks: unknown[],
  path: string,
  f: Findings,
  attestationName?: string,
): CelCondition[] | undefined {
  const out: CelCondition[] = [];
  let ok = true;
  blocks.forEach((block, i) => {
    if (!isObj(block)) {
      f.refuse(`${path}[${i}]`, "a condition block must be an object");
      ok = false;
      return;
    }
    for (const mode of ["all", "any"] as const) {
      const list = listAt(block, mode);
      const expressions: string[] = [];
      const messages: string[] = [];
      list.forEach((cond, j) => {
        const at = `${path}[${i}].${mode}[${j}]`;
        const result = one(cond, attestationName);
        if (typeof result !== "string") {
          f.refuse(at, result.reason);
          ok = false;
          return;
        }
        expressions.push(result);
        if (isObj(cond) && typeof cond.message === "string") messages.push(cond.message);
      });
      if (!ok || expressions.length === 0) continue;
      if (mode === "all") {
        expressions.forEach((expression, j) => {
          const message = isObj(list[j]) && typeof list[j].message === "string"
            ? list[j].message as string
            : undefined;
          out.push({
            name: `condition-${i}-all-${j}`,
            expression,
            ...(message ? { message } : {}),
          });
        });
      } else {
        out.push({
          name: `condition-${i}-any`,
          expression: expressions.map((e) => `(${e})`).join(" || "),
          ...(messages.length > 0 ? { message: messages.join("; ") } : {}),
        });
      }
    }
  });
  return ok ? out : undefined;
}
