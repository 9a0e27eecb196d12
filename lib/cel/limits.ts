/**
 * The bounds of CEL conditions, and the error of one over them; apart from the evaluator
 * (`condition.ts`, which loads `@bufbuild/cel`) so that naming them loads nothing.
 *
 * @module
 */
import { ToolkitError } from "../errors.ts";

/** The bounds of CEL conditions. */
export interface CelLimits {
  /** The longest expression, in characters. @default 5000 */
  readonly maxExpressionLength: number;
  /**
   * The highest estimated cost of one expression (the worst case over inputs within the
   * variables' bounds). @default 10,000,000 (Kubernetes' static estimated cost limit of a CEL
   * rule)
   */
  readonly maxEstimatedCost: number;
  /**
   * The most runtime steps (elements and keys iterated) of one evaluation. @default 100,000: a
   * tenth of Kubernetes' per-call limit, as a million steps held the event loop for about a third
   * of a second here (a loop nested in a loop over 1,000 elements).
   */
  readonly maxRuntimeCost: number;
}

/** The default bounds. */
export const DEFAULT_CEL_LIMITS: CelLimits = Object.freeze({
  maxExpressionLength: 5000,
  maxEstimatedCost: 10_000_000,
  maxRuntimeCost: 100_000,
});

/** A condition over a limit, or one that does not compile: names the condition. */
export class CelLimitError extends ToolkitError {
  /** The condition's name. */
  readonly condition: string;

  /** Creates the error for condition `condition`. */
  constructor(condition: string, detail: string, options?: ErrorOptions) {
    super(`Cannot use the CEL condition "${condition}": ${detail}`, options);
    this.name = "CelLimitError";
    this.condition = condition;
  }
}
