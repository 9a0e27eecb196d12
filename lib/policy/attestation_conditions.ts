/**
 * The CEL conditions of an `attestation` requirement: the variables they see and how large
 * those can be, and their compilation with lib/cel's bounds, the same when the policy is
 * validated (a condition over a limit is a problem of the policy, with its field path) and when
 * the webhook plans the requirement.
 *
 * The variables: `statement` (the in-toto statement), `predicate` (its predicate), `subject`
 * (its subject list), `predicateType` (its predicate type URI) and `attestations` (from
 * predicate type to the statements of every attestation of the image verified with the same
 * requirement's trust). Their bounds are what the attestation reader lets through.
 *
 * @module
 */
import {
  type CelCondition,
  DEFAULT_CEL_LIMITS,
  jsonShape,
  loadCel,
  type Shape,
  type VariableShapes,
} from "../cel/mod.ts";
import type { AttestationCondition } from "./types.ts";

/** The most bytes of one statement a condition is given (its envelope's payload). */
export const MAX_STATEMENT_BYTES = 256 * 1024;

/** The most attestations of one image read, and so in `attestations`. */
export const MAX_ATTESTATIONS = 64;

const ALL_STATEMENTS = MAX_ATTESTATIONS * MAX_STATEMENT_BYTES;
const STATEMENTS: Shape = {
  bytes: ALL_STATEMENTS,
  count: MAX_ATTESTATIONS,
  element: jsonShape(MAX_STATEMENT_BYTES),
};

/** The variables of a condition, bounded. */
export const ATTESTATION_CONDITION_VARIABLES: VariableShapes = Object.freeze({
  statement: jsonShape(MAX_STATEMENT_BYTES),
  predicate: jsonShape(MAX_STATEMENT_BYTES),
  subject: jsonShape(MAX_STATEMENT_BYTES),
  predicateType: jsonShape(MAX_STATEMENT_BYTES),
  attestations: { bytes: ALL_STATEMENTS, count: MAX_ATTESTATIONS, element: STATEMENTS },
});

/** The CEL limits of conditions. */
export const ATTESTATION_CEL_LIMITS = DEFAULT_CEL_LIMITS;

let evaluator: Awaited<ReturnType<typeof loadCel>> | undefined;

/**
 * Loads the CEL evaluator (some 30 ms and 16 MiB the first time), which
 * {@linkcode compileAttestationCondition} needs: done when a policy first has conditions.
 */
export async function loadAttestationConditions(): Promise<void> {
  evaluator ??= await loadCel();
}

/** Whether a policy object (as read, unvalidated) has conditions, so needs the evaluator. */
export function hasAttestationConditions(raw: unknown): boolean {
  const at = (v: unknown, k: string): unknown =>
    typeof v === "object" && v !== null ? (v as Record<string, unknown>)[k] : undefined;
  const repositories = at(at(raw, "spec"), "repositories");
  if (!Array.isArray(repositories)) return false;
  return repositories.some((repository) => {
    const requirements = at(at(at(repository, "policy"), "simple"), "requirements");
    return Array.isArray(requirements) && requirements.some((r) => {
      const conditions = at(r, "conditions");
      return conditions !== undefined && conditions !== null;
    });
  });
}

/** The most compiled conditions kept (a policy has at most 16 a requirement). */
const MAX_COMPILED = 512;
const compiled = new Map<string, CelCondition>();

/**
 * Compiles one condition (kept, so that validating a policy and planning its requirements for
 * each review compile it once); throws lib/cel's CelLimitError naming it.
 */
export function compileAttestationCondition(condition: AttestationCondition): CelCondition {
  const key = `${condition.name}\n${condition.expression}`;
  let cel = compiled.get(key);
  if (cel === undefined) {
    if (evaluator === undefined) {
      throw new Error("the CEL evaluator is not loaded: await loadAttestationConditions() first");
    }
    cel = evaluator.compileCondition(
      condition.name,
      condition.expression,
      ATTESTATION_CONDITION_VARIABLES,
      ATTESTATION_CEL_LIMITS,
    );
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, cel);
  }
  return cel;
}
