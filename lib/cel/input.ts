/**
 * JSON values as the inputs of a CEL evaluation, with the evaluation's runtime cost counted: each
 * element of a list and each key of a map that the evaluation iterates (a macro's loop, a map
 * lookup by scanning) is one step of a {@linkcode StepMeter}, and the step past its limit throws,
 * which ends the evaluation with that error (the library turns what a value's iteration throws
 * into the evaluation's error; a limit is never absorbed as a `false` the way an error value may
 * be by `||`).
 *
 * Numbers without a fraction become CEL `int`s (as Kubernetes reads JSON integers), others
 * `double`s; objects become maps of string keys; `null` is `null`.
 *
 * @module
 */
import type { CelInput } from "@bufbuild/cel";

/** The steps of one evaluation, and its limit. */
export class StepMeter {
  #steps = 0;
  #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** The most steps. */
  get limit(): number {
    return this.#limit;
  }

  /** Starts counting again from zero, up to `limit` (for the next evaluation). */
  reset(limit: number): void {
    this.#steps = 0;
    this.#limit = limit;
  }

  /** Steps taken so far. */
  get steps(): number {
    return this.#steps;
  }

  /** Counts one step; past the limit, throws {@linkcode StepLimitError}. */
  step(): void {
    if (++this.#steps > this.#limit) throw new StepLimitError(this.#limit);
  }
}

/** Thrown inside an evaluation when its runtime cost passes its limit. */
export class StepLimitError extends Error {
  constructor(limit: number) {
    super(`the evaluation took more than ${limit} steps`);
    this.name = "StepLimitError";
  }
}

/** A map whose iteration is counted. */
class MeteredMap<K, V> extends Map<K, V> {
  #meter: StepMeter;

  constructor(entries: Iterable<readonly [K, V]>, meter: StepMeter) {
    super(entries);
    this.#meter = meter;
  }

  override *keys(): MapIterator<K> {
    for (const key of super.keys()) {
      this.#meter.step();
      yield key;
    }
  }
}

/** An array whose iteration is counted (the library iterates a list with `values()`). */
function meteredArray(values: CelInput[], meter: StepMeter): CelInput[] {
  Object.defineProperty(values, "values", {
    value: function* () {
      for (let i = 0; i < values.length; i++) {
        meter.step();
        yield values[i];
      }
    },
  });
  return values;
}

/** `value` (parsed JSON) as a CEL input whose iteration counts steps of `meter`. */
function celInput(value: unknown, meter: StepMeter): CelInput {
  if (value === null) return null;
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isSafeInteger(value) ? BigInt(value) : value;
    case "object":
      if (Array.isArray(value)) return meteredArray(value.map((v) => celInput(v, meter)), meter);
      return new MeteredMap(
        Object.entries(value as Record<string, unknown>).map((
          [k, v],
        ) => [k, celInput(v, meter)] as const),
        meter,
      ) as unknown as CelInput;
    default:
      return null;
  }
}

/**
 * Variables converted once for several evaluations (each condition of a requirement over one
 * statement): each evaluation counts its own steps from zero.
 */
export class ConditionInputs {
  /** The meter the inputs count on. */
  readonly meter: StepMeter;
  /** The converted variables. */
  readonly bindings: Readonly<Record<string, CelInput>>;

  /**
   * Converts `values` (parsed JSON); with `base`, adds them to its variables, converted once
   * (what several statements' conditions share), on its meter.
   */
  constructor(values: Readonly<Record<string, unknown>>, base?: ConditionInputs) {
    this.meter = base?.meter ?? new StepMeter(Infinity);
    this.bindings = {
      ...base?.bindings,
      ...Object.fromEntries(Object.entries(values).map(([k, v]) => [k, celInput(v, this.meter)])),
    };
  }
}
