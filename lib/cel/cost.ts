/**
 * The estimated cost of a CEL expression, from its parsed AST and the bounds of its variables,
 * before it is ever evaluated: as Kubernetes estimates the cost of a ValidatingAdmissionPolicy's
 * expressions when the policy is written, so that an expression whose worst case is too much is
 * refused then, never found out during a review.
 *
 * The cost counts one for each identifier, field selection and call, plus, for a call that
 * reads its arguments through (comparison, `contains`, `startsWith`, `endsWith`, `+`, `in`, …),
 * a tenth of the bytes it may read (`matches`: times the pattern's length); a comprehension (the
 * macros `all`, `exists`, `exists_one`, `map`, `filter`) costs its loop condition and step once
 * per element its range may hold. What a loop body reads of the element it is given is counted
 * against the whole range once, not once per element: the elements of a JSON value of N bytes
 * together hold at most N bytes, so `predicate.materials.all(m, m.uri.startsWith("git+"))` costs
 * about the materials' size, while a loop nested in a loop over the same value costs its square.
 *
 * @module
 */
import type { Expr } from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";
import { elementOf, joinShapes, listShape, SCALAR, type Shape } from "./shapes.ts";

/** A cost that grows with the bytes of some values: `c + Σ k[s] × bytes(s)`. */
interface Linear {
  c: number;
  readonly k: Map<string, number>;
}

/** What is known of a value: its bound, and the value (variable, element) it is part of. */
interface Value {
  readonly shape: Shape;
  /** The variable or loop element this value is part of: its bytes are at most that one's. */
  readonly source?: string;
}

interface Scope {
  readonly vars: ReadonlyMap<string, Value>;
}

/** Functions whose cost does not depend on the size of their arguments. */
const CONSTANT_COST = new Set([
  "_&&_",
  "_||_",
  "!_",
  "@not_strictly_false",
  "__not_strictly_false__",
  "_?_:_",
  "size",
  "_[_]",
  "-_",
  "_-_",
  "_*_",
  "_/_",
  "_%_",
  "int",
  "uint",
  "double",
  "bool",
  "type",
  "dyn",
]);

/** Functions returning a scalar (a boolean, a number). */
const SCALAR_RESULT = new Set([
  "_&&_",
  "_||_",
  "!_",
  "@not_strictly_false",
  "__not_strictly_false__",
  "size",
  "_==_",
  "_!=_",
  "_<_",
  "_<=_",
  "_>_",
  "_>=_",
  "@in",
  "contains",
  "startsWith",
  "endsWith",
  "matches",
  "int",
  "uint",
  "double",
  "bool",
  // A type value (`type(x) == map`), not the bytes of x.
  "type",
]);

/** The names of CEL's types (`type(x) == map`): values of no size. */
const TYPE_NAMES = new Set([
  "bool",
  "bytes",
  "double",
  "int",
  "list",
  "map",
  "null_type",
  "string",
  "type",
  "uint",
]);

function linear(c = 0): Linear {
  return { c, k: new Map() };
}

function add(into: Linear, other: Linear, times = 1): void {
  into.c += other.c * times;
  for (const [s, k] of other.k) into.k.set(s, (into.k.get(s) ?? 0) + k * times);
}

/** Charges `factor` per byte of `value`. */
function chargeBytes(into: Linear, value: Value, factor: number): void {
  if (value.source === undefined) into.c += value.shape.bytes * factor;
  else into.k.set(value.source, (into.k.get(value.source) ?? 0) + factor);
}

/** The bound of a value of unknown origin: any of the variables' values. */
function unknownValue(scope: Scope): Value {
  let shape: Shape = SCALAR;
  for (const value of scope.vars.values()) shape = joinShapes(shape, value.shape);
  return { shape };
}

class Estimator {
  #loops = 0;

  walk(expr: Expr | undefined, scope: Scope): { value: Value; cost: Linear } {
    const kind = expr?.exprKind;
    switch (kind?.case) {
      case "constExpr": {
        const constant = kind.value.constantKind;
        const bytes = constant.case === "stringValue"
          ? new TextEncoder().encode(constant.value).byteLength + 2
          : constant.case === "bytesValue"
          ? constant.value.byteLength + 2
          : SCALAR.bytes;
        return { value: { shape: { bytes, count: 0 } }, cost: linear() };
      }
      case "identExpr":
        return {
          value: scope.vars.get(kind.value.name) ??
            (TYPE_NAMES.has(kind.value.name) ? { shape: SCALAR } : unknownValue(scope)),
          cost: linear(1),
        };
      case "selectExpr": {
        const operand = this.walk(kind.value.operand, scope);
        operand.cost.c += 1;
        if (kind.value.testOnly) return { value: { shape: SCALAR }, cost: operand.cost };
        const shape = elementOf(operand.value.shape);
        return { value: withSource(shape, operand.value.source), cost: operand.cost };
      }
      case "callExpr":
        return this.call(kind.value.function, [
          ...(kind.value.target ? [kind.value.target] : []),
          ...kind.value.args,
        ], scope);
      case "listExpr": {
        const cost = linear(1);
        let element: Shape | undefined;
        for (const e of kind.value.elements) {
          const walked = this.walk(e, scope);
          add(cost, walked.cost);
          element = element ? joinShapes(element, walked.value.shape) : walked.value.shape;
        }
        const count = kind.value.elements.length;
        return { value: { shape: listShape(count, element ?? SCALAR) }, cost };
      }
      case "structExpr": {
        const cost = linear(1);
        let element: Shape = SCALAR;
        let bytes = 2;
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === "mapKey") {
            const key = this.walk(entry.keyKind.value, scope);
            add(cost, key.cost);
            bytes += key.value.shape.bytes;
          }
          const value = this.walk(entry.value, scope);
          add(cost, value.cost);
          element = joinShapes(element, value.value.shape);
          bytes += value.value.shape.bytes + 2;
        }
        return {
          value: { shape: { bytes, count: kind.value.entries.length, element } },
          cost,
        };
      }
      case "comprehensionExpr": {
        const c = kind.value;
        const range = this.walk(c.iterRange, scope);
        const init = this.walk(c.accuInit, scope);
        const n = range.value.shape.count;
        const element = elementOf(range.value.shape);
        const source = `@loop${this.#loops++}`;
        // What a loop accumulates (`map`, `filter`) is made of its elements: at most the
        // range's bytes, part of what the range is part of.
        const accu = withSource({
          bytes: range.value.shape.bytes + init.value.shape.bytes,
          count: n + init.value.shape.count,
          element: joinShapes(elementOf(init.value.shape), element),
        }, range.value.source);
        const vars = new Map(scope.vars);
        vars.set(c.iterVar, { shape: element, source });
        if (c.iterVar2) vars.set(c.iterVar2, { shape: element, source });
        vars.set(c.accuVar, accu);
        const inner: Scope = { vars };
        const body = linear();
        add(body, this.walk(c.loopCondition, inner).cost);
        add(body, this.walk(c.loopStep, inner).cost);
        const cost = linear(1);
        add(cost, range.cost);
        add(cost, init.cost);
        // What the body reads of its element adds up to the range's bytes at most, once.
        const perElement = body.k.get(source) ?? 0;
        body.k.delete(source);
        add(cost, body, n);
        if (perElement > 0) chargeBytes(cost, range.value, perElement);
        const resultScope: Scope = { vars: new Map([...scope.vars, [c.accuVar, accu]]) };
        const result = this.walk(c.result, resultScope);
        add(cost, result.cost);
        const value = result.value.source === source ? { shape: result.value.shape } : result.value;
        return { value, cost };
      }
      default:
        return { value: unknownValue(scope), cost: linear(1) };
    }
  }

  call(name: string, args: readonly Expr[], scope: Scope): { value: Value; cost: Linear } {
    const cost = linear(1);
    const values = args.map((arg) => {
      const walked = this.walk(arg, scope);
      add(cost, walked.cost);
      return walked.value;
    });
    if (!CONSTANT_COST.has(name)) {
      if (name === "matches" && values.length === 2) {
        // A linear-time engine: the text times the pattern.
        chargeBytes(cost, values[0]!, 0.1 * Math.max(1, values[1]!.shape.bytes));
      } else {
        for (const value of values) {
          // Lists are joined without copying (a macro's `map` and `filter` add each element so).
          if (name === "_+_" && value.shape.count > 0) continue;
          chargeBytes(cost, value, 0.1);
        }
      }
    }
    let value: Value;
    if (SCALAR_RESULT.has(name)) value = { shape: SCALAR };
    else if (name === "_[_]" && values[0]) {
      value = withSource(elementOf(values[0].shape), values[0].source);
    } else if (name === "_?_:_" && values.length === 3) {
      const [, a, b] = values as [Value, Value, Value];
      value = a.source === b.source && a.source !== undefined
        ? withSource(joinShapes(a.shape, b.shape), a.source)
        : { shape: joinShapes(a.shape, b.shape) };
    } else if (name === "_+_" && values.length === 2) {
      const [a, b] = values as [Value, Value];
      const count = a.shape.count + b.shape.count;
      const element = a.shape.element || b.shape.element
        ? joinShapes(elementOf(a.shape), elementOf(b.shape))
        : undefined;
      value = {
        shape: { bytes: a.shape.bytes + b.shape.bytes, count, ...(element ? { element } : {}) },
      };
    } else value = unknownValue(scope);
    return { value, cost };
  }
}

function withSource(shape: Shape, source: string | undefined): Value {
  return source === undefined ? { shape } : { shape, source };
}

/** The variables of an expression: each one's bound. */
export type VariableShapes = Readonly<Record<string, Shape>>;

/**
 * The estimated worst-case cost of evaluating `expr` with variables within `variables`'
 * bounds (see the module's documentation for what is counted).
 */
export function estimateCost(expr: Expr, variables: VariableShapes): number {
  const vars = new Map<string, Value>(
    Object.entries(variables).map(([name, shape]) => [name, { shape, source: name }]),
  );
  const { cost } = new Estimator().walk(expr, { vars });
  let total = cost.c;
  for (const [source, k] of cost.k) total += k * (variables[source]?.bytes ?? 0);
  return Math.ceil(total);
}
