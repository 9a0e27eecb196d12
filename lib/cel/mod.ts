/**
 * CEL conditions with Kubernetes' bounds: length, estimated cost when compiled, runtime cost
 * when evaluated (`condition.ts`); the bounds of the variables the estimate multiplies out
 * (`shapes.ts`). The language is `@bufbuild/cel`'s standard CEL, which takes some 30 ms and
 * 16 MiB of resident memory to load: the evaluator is loaded by {@linkcode loadCel}, when a
 * policy first has conditions, and only its types and the bounds are exported here.
 *
 * ```ts
 * import { jsonShape, loadCel } from "./mod.ts";
 *
 * const { compileCondition } = await loadCel();
 * const condition = compileCondition("from-our-repo", 'predicate.repo == "x"', {
 *   predicate: jsonShape(64 * 1024),
 * });
 * condition.evaluate({ predicate: { repo: "x" } }); // { ok: true, value: true }
 * ```
 *
 * @module
 */
export * from "./limits.ts";
export type { CelCondition, ConditionResult } from "./condition.ts";
export { ConditionInputs } from "./input.ts";
export { estimateCost, type VariableShapes } from "./cost.ts";
export { jsonShape, listShape, mapShape, type Shape } from "./shapes.ts";

let loading: Promise<typeof import("./condition.ts")> | undefined;

/** The evaluator (and `@bufbuild/cel` behind it), loaded once. */
export function loadCel(): Promise<typeof import("./condition.ts")> {
  loading ??= import("./condition.ts");
  return loading;
}
