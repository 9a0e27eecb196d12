/**
 * CEL conditions, bounded as Kubernetes bounds the CEL of a ValidatingAdmissionPolicy: when the
 * condition is compiled (when the policy is read) its length is checked, it is parsed, and its
 * cost is estimated from the parsed AST and the bounds of its variables (`cost.ts`); over a limit
 * is a {@linkcode CelLimitError} naming the condition. Each evaluation then counts its runtime
 * cost (`input.ts`: the elements and keys it iterates) and stops at the per-evaluation limit.
 * The inputs themselves are bounded by whoever provides them (the attestation reader bounds each
 * statement's bytes), which is what makes the estimate hold.
 *
 * The language is `@bufbuild/cel`'s: the CEL standard library (strings, comparisons, logic,
 * lists and maps, `has`, the macros `all`, `exists`, `exists_one`, `map`, `filter`, `matches`
 * with an RE2 engine, linear in its input), no extension libraries.
 *
 * @module
 */
import { celEnv, isCelError, parse, plan } from "@bufbuild/cel";
import type { Expr } from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";
import { CelLimitError, type CelLimits, DEFAULT_CEL_LIMITS } from "./limits.ts";

export { CelLimitError, type CelLimits, DEFAULT_CEL_LIMITS };
import { estimateCost, type VariableShapes } from "./cost.ts";
import { ConditionInputs, StepLimitError } from "./input.ts";

export { ConditionInputs };

/** The outcome of one evaluation. */
export type ConditionResult =
  | { readonly ok: true; readonly value: boolean }
  | { readonly ok: false; readonly reason: string };

/** A compiled condition. */
export interface CelCondition {
  readonly name: string;
  readonly expression: string;
  /** Its estimated worst-case cost. */
  readonly estimatedCost: number;
  /**
   * Evaluates the condition over `variables` (parsed JSON values, or converted once for several
   * conditions): true or false, or why it has no boolean value (an error in the evaluation, a
   * value not a boolean, the runtime limit).
   */
  evaluate(variables: Readonly<Record<string, unknown>> | ConditionInputs): ConditionResult;
}

const ENV = celEnv();

/**
 * The deepest nesting of an expression (as cel-go's parser's recursion limit): planning,
 * estimating and evaluating recurse that deep.
 */
export const MAX_NESTING = 250;

/** The nesting depth of `expr`, counted without recursion. */
function nestingDepth(root: Expr): number {
  let deepest = 0;
  const stack: [Expr | undefined, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [expr, depth] = stack.pop()!;
    if (expr === undefined) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_NESTING) return deepest;
    const kind = expr.exprKind;
    const next = depth + 1;
    switch (kind.case) {
      case "selectExpr":
        stack.push([kind.value.operand, next]);
        break;
      case "callExpr":
        stack.push(
          [kind.value.target, next],
          ...kind.value.args.map((a) => [a, next] as [Expr, number]),
        );
        break;
      case "listExpr":
        stack.push(...kind.value.elements.map((e) => [e, next] as [Expr, number]));
        break;
      case "structExpr":
        for (const entry of kind.value.entries) {
          stack.push([entry.value, next]);
          if (entry.keyKind.case === "mapKey") stack.push([entry.keyKind.value, next]);
        }
        break;
      case "comprehensionExpr": {
        const c = kind.value;
        for (const e of [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result]) {
          stack.push([e, next]);
        }
        break;
      }
    }
  }
  return deepest;
}

/**
 * Compiles the condition `name`: checks its length, parses it, estimates its cost over
 * `variables`' bounds; throws {@linkcode CelLimitError} when it is over a limit or does not
 * parse.
 */
export function compileCondition(
  name: string,
  expression: string,
  variables: VariableShapes,
  limits: CelLimits = DEFAULT_CEL_LIMITS,
): CelCondition {
  if (expression.length > limits.maxExpressionLength) {
    throw new CelLimitError(
      name,
      `the expression is ${expression.length} characters long, more than ${limits.maxExpressionLength}`,
    );
  }
  let parsed;
  try {
    parsed = parse(expression);
  } catch (error) {
    throw new CelLimitError(
      name,
      `the expression does not parse (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
  const depth = nestingDepth(parsed.expr);
  if (depth > MAX_NESTING) {
    throw new CelLimitError(
      name,
      `the expression is nested ${depth} deep, more than ${MAX_NESTING}`,
    );
  }
  let estimatedCost: number;
  try {
    estimatedCost = estimateCost(parsed.expr, variables);
  } catch (error) {
    throw new CelLimitError(
      name,
      `its cost cannot be estimated (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
  if (!(estimatedCost <= limits.maxEstimatedCost)) {
    throw new CelLimitError(
      name,
      `its estimated cost ${estimatedCost} is more than the limit ${limits.maxEstimatedCost}`,
    );
  }
  let run;
  try {
    run = plan(ENV, parsed);
  } catch (error) {
    throw new CelLimitError(
      name,
      `the expression cannot be planned (${
        error instanceof Error ? error.message : String(error)
      })`,
      { cause: error },
    );
  }
  return {
    name,
    expression,
    estimatedCost,
    evaluate(values) {
      const inputs = values instanceof ConditionInputs ? values : new ConditionInputs(values);
      const meter = inputs.meter;
      meter.reset(limits.maxRuntimeCost);
      let result;
      try {
        result = run(inputs.bindings);
      } catch (error) {
        result = error;
      }
      // A step past the limit throws; where a function caught it as an error value, the
      // meter still says so.
      if (meter.steps > meter.limit || result instanceof StepLimitError) {
        return {
          ok: false,
          reason: `its evaluation took more than the runtime cost limit ${meter.limit}`,
        };
      }
      if (isCelError(result) || result instanceof Error) {
        return { ok: false, reason: `its evaluation failed: ${result.message}` };
      }
      if (typeof result !== "boolean") {
        return { ok: false, reason: "its value is not a boolean" };
      }
      return { ok: true, value: result };
    },
  };
}
