/**
 * CEL conditions with Kubernetes' bounds: length, estimated cost when compiled, runtime cost
 * when evaluated (`condition.ts`); the bounds of the variables the estimate multiplies out
 * (`shapes.ts`). The language is `@bufbuild/cel`'s standard CEL.
 *
 * ```ts
 * import { compileCondition, jsonShape } from "./mod.ts";
 *
 * const condition = compileCondition("from-our-repo", 'predicate.repo == "x"', {
 *   predicate: jsonShape(64 * 1024),
 * });
 * condition.evaluate({ predicate: { repo: "x" } }); // { ok: true, value: true }
 * ```
 *
 * @module
 */
export {
  type CelCondition,
  CelLimitError,
  type CelLimits,
  compileCondition,
  ConditionInputs,
  type ConditionResult,
  DEFAULT_CEL_LIMITS,
} from "./condition.ts";
export { estimateCost, type VariableShapes } from "./cost.ts";
export { jsonShape, listShape, mapShape, type Shape } from "./shapes.ts";
