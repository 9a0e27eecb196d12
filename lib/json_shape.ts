/**
 * The shape of a JSON text, bounded before it is parsed. `JSON.parse` allocates every value it
 * meets, so what a parsed text holds is not bounded by its bytes: eight MiB of `[],[],…` parse
 * into 2.8 million arrays (about 300 MiB of heap), and a text nested four million levels deep
 * into as many objects. Whoever sends the webhook a review, or answers it as a registry, a store,
 * a vault or the API server, decides those texts.
 *
 * A {@linkcode JsonShapeScanner} counts the values of a text (objects, arrays, strings, numbers,
 * `true`/`false`/`null`; an object's keys count too, they are strings the parse keeps) and its
 * nesting depth in one linear pass over its bytes, with constant memory and no backtracking, and
 * throws {@linkcode JsonShapeError} the moment a bound is passed. It can be fed the text chunk
 * by chunk as it arrives, so no step holds the event loop for more than one chunk's time and a
 * text over its bounds is refused before the rest of it is even read. It does not validate the
 * JSON (the parse after it does): it only makes sure that what the parse may allocate is bounded
 * by `maxValues` and `maxDepth`, however the text is spelled.
 *
 * {@linkcode parseJsonWithin} is the one way to parse a JSON text from outside: the shape first,
 * then `JSON.parse`.
 *
 * @module
 */
import { ToolkitError } from "./errors.ts";

/** The bounds of a JSON text's shape. */
export interface JsonShapeLimits {
  /** The most values, object keys included. */
  readonly maxValues: number;
  /** The deepest nesting of arrays and objects (a top-level array is depth 1). */
  readonly maxDepth: number;
}

/** A JSON text whose shape passes its bounds. */
export class JsonShapeError extends ToolkitError {
  /** What passed: the count of values or the nesting depth. */
  readonly bound: "values" | "depth";
  /** The bound. */
  readonly limit: number;
  /** What the text was ("the AdmissionReview", "the referrers list of …"). */
  readonly what: string;

  /** Creates the error for `what`, whose `bound` passed `limit`. */
  constructor(what: string, bound: "values" | "depth", limit: number) {
    super(
      bound === "values"
        ? `${what} holds more than ${limit} JSON values`
        : `${what} is nested more than ${limit} levels deep`,
    );
    this.name = "JsonShapeError";
    this.bound = bound;
    this.limit = limit;
    this.what = what;
  }
}

// Byte classes (UTF-8 continuation bytes and every non-ASCII byte are plain content).
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]
const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }

/** 1 for a byte that may be part of a number or a literal (`-+.0-9a-zA-Z`), else 0. */
const SCALAR = new Uint8Array(256);
for (const c of "-+.0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
  SCALAR[c.charCodeAt(0)] = 1;
}

/**
 * Counts the values and the depth of a JSON text fed in chunks (bytes, or text whose UTF-16 code
 * units are read as bytes would be: only ASCII matters). Throws {@linkcode JsonShapeError} from
 * {@linkcode feed} as soon as a bound is passed.
 */
export class JsonShapeScanner {
  readonly #limits: JsonShapeLimits;
  readonly #what: string;
  #values = 0;
  #depth = 0;
  #deepest = 0;
  /** Inside a string. */
  #inString = false;
  /** The previous byte inside a string was an unescaped backslash. */
  #escaped = false;
  /** Inside a number or a literal. */
  #inScalar = false;

  /** A scanner for `what` (named in the error) within `limits`. */
  constructor(limits: JsonShapeLimits, what: string) {
    this.#limits = limits;
    this.#what = what;
  }

  /** The values counted so far. */
  get values(): number {
    return this.#values;
  }

  /** The deepest nesting seen so far. */
  get deepest(): number {
    return this.#deepest;
  }

  /** Scans the next chunk of the text. */
  feed(chunk: Uint8Array | string): void {
    const text = typeof chunk === "string";
    const length = chunk.length;
    let inString = this.#inString;
    let escaped = this.#escaped;
    let inScalar = this.#inScalar;
    let values = this.#values;
    let depth = this.#depth;
    const maxValues = this.#limits.maxValues;
    const maxDepth = this.#limits.maxDepth;
    try {
      for (let i = 0; i < length; i++) {
        const c = text ? (chunk as string).charCodeAt(i) : (chunk as Uint8Array)[i]!;
        if (inString) {
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) inString = false;
          continue;
        }
        if (c < 256 && SCALAR[c] === 1) {
          if (!inScalar) {
            inScalar = true;
            if (++values > maxValues) throw new JsonShapeError(this.#what, "values", maxValues);
          }
          continue;
        }
        inScalar = false;
        if (c === QUOTE) {
          inString = true;
          if (++values > maxValues) throw new JsonShapeError(this.#what, "values", maxValues);
        } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
          if (++values > maxValues) throw new JsonShapeError(this.#what, "values", maxValues);
          if (++depth > maxDepth) throw new JsonShapeError(this.#what, "depth", maxDepth);
          if (depth > this.#deepest) this.#deepest = depth;
        } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
          // An unbalanced close makes the text invalid; the parse says so.
          if (depth > 0) depth--;
        }
      }
    } finally {
      this.#inString = inString;
      this.#escaped = escaped;
      this.#inScalar = inScalar;
      this.#values = values;
      this.#depth = depth;
    }
  }
}

/** Throws {@linkcode JsonShapeError} when the JSON text `text` passes `limits`. */
export function checkJsonShape(
  text: Uint8Array | string,
  limits: JsonShapeLimits,
  what: string,
): void {
  new JsonShapeScanner(limits, what).feed(text);
}

/**
 * Parses a JSON text from outside within `limits`: its shape is checked first (one linear pass,
 * nothing allocated), then it is parsed. Throws {@linkcode JsonShapeError} for a text over its
 * bounds and `SyntaxError` for one that is not JSON.
 */
export function parseJsonWithin(
  text: Uint8Array | string,
  limits: JsonShapeLimits,
  what: string,
): unknown {
  checkJsonShape(text, limits, what);
  return JSON.parse(typeof text === "string" ? text : new TextDecoder().decode(text));
}

/**
 * Bounds for a JSON text of `length` bytes (or UTF-16 code units) whose shape is not known more
 * closely (an API server's object or list, a Git host's answer): at most one value per 4 bytes on
 * average, which parses into at most about 20 times the text's bytes on V8's heap (64 bytes for
 * the costliest value, an empty object, and the text's own bytes), nested at most `maxDepth`
 * levels. Kubernetes objects, the densest real texts met, spend 5 to 15 bytes a value.
 */
export function jsonLimitsForLength(length: number, maxDepth = 64): JsonShapeLimits {
  return { maxValues: Math.floor(length / 4) + 64, maxDepth };
}
