/**
 * Regular expressions from policies, matched in linear time. A policy's `subjectRegExp` or
 * `issuerRegExp` is written by whoever may write a policy and evaluated by the webhook for every
 * review: a backtracking engine (JavaScript's `RegExp`) would let one pattern such as `(a+)+$`
 * hold the event loop for minutes, and the webhook fails closed, so the cluster with it. Patterns
 * are therefore compiled here to a Thompson NFA and simulated one input character at a time
 * (every live state advanced together, each state at most once per character): the work is at
 * most the input length times the number of states, whatever the pattern.
 *
 * The syntax is the part of Go's RE2 syntax (what cosign, sigstore's policy-controller and
 * Kyverno use for the same fields) that a policy needs, so patterns carry over unchanged:
 *
 * - literals, `.` (any character but a newline), `\` before any punctuation character;
 * - classes `[abc]`, `[a-z0-9]`, `[^/]`, and `\d \w \s \D \W \S` (ASCII, as in RE2), in and out
 *   of classes; `\t \n \r \f \v`;
 * - groups `(…)`, `(?:…)`, `(?P<name>…)`, `(?<name>…)` (captures are not reported), alternation
 *   `|`;
 * - repetition `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` (n, m ≤ 1000), each also lazy (`*?`), which
 *   makes no difference to whether a pattern matches;
 * - anchors `^`, `$`, `\A`, `\z` (of the whole text: no multi-line mode).
 *
 * Anything else (flags such as `(?i)`, `\b`, back-references, look-around, POSIX classes, `\p`)
 * is refused with a {@linkcode RegExpSyntaxError} rather than read differently from Go. As with
 * Go's `MatchString`, a pattern matches when it matches anywhere in the text: anchor it with `^…$`
 * to match the whole text.
 *
 * Sizes are bounded when the pattern is compiled ({@linkcode MAX_PATTERN_LENGTH},
 * {@linkcode MAX_STATES}) and when it runs ({@linkcode MAX_INPUT_LENGTH}): a longer text does not
 * match.
 *
 * @module
 */
import { ToolkitError } from "./errors.ts";

/** The longest pattern accepted, in characters. */
export const MAX_PATTERN_LENGTH = 1024;
/** The most NFA states a pattern may compile to (counted repetition is expanded). */
export const MAX_STATES = 2048;
/** The longest text matched, in characters; a longer text does not match. */
export const MAX_INPUT_LENGTH = 1024;
/**
 * Steps (a state advanced over one character) after which {@linkcode LinearRegExp.testAsync}
 * lets the event loop run: about a millisecond of work. One test takes at most
 * `MAX_STATES × MAX_INPUT_LENGTH` steps.
 */
export const STEPS_PER_TURN = 100_000;
/** The largest count of a counted repetition (`{n,m}`), as in RE2. */
export const MAX_REPEAT = 1000;

/** A pattern that is not valid in the accepted syntax, or too large. */
export class RegExpSyntaxError extends ToolkitError {
  /** The pattern. */
  readonly pattern: string;
  /** Creates the error; `detail` says what is wrong and where. */
  constructor(pattern: string, detail: string) {
    super(`Cannot use regular expression ${JSON.stringify(pattern)}: ${detail}`);
    this.name = "RegExpSyntaxError";
    this.pattern = pattern;
  }
}

/** A compiled pattern. */
export interface LinearRegExp {
  /** The pattern as written. */
  readonly source: string;
  /** The NFA's states: a test takes at most this many steps per character of the text. */
  readonly states: number;
  /** Whether the pattern matches anywhere in `text` (false for a text over the length bound). */
  test(text: string): boolean;
  /**
   * {@linkcode test}, letting the event loop run (`pause`: the webhook's TurnScheduler, by default
   * a timer of 0 ms) every {@linkcode STEPS_PER_TURN} steps, so that no pattern holds it.
   */
  testAsync(text: string, pause?: () => Promise<void>): Promise<boolean>;
}

/** A set of code points: sorted, non-overlapping inclusive ranges. */
type Ranges = readonly (readonly [number, number])[];

type Node =
  | { readonly kind: "chars"; readonly ranges: Ranges }
  | { readonly kind: "begin" }
  | { readonly kind: "end" }
  | { readonly kind: "empty" }
  | { readonly kind: "concat"; readonly items: readonly Node[] }
  | { readonly kind: "alternate"; readonly items: readonly Node[] }
  | { readonly kind: "repeat"; readonly item: Node; readonly min: number; readonly max: number };

const MAX_CODE_POINT = 0x10ffff;
const NEWLINE = 0x0a;
const DIGIT: Ranges = [[0x30, 0x39]];
const WORD: Ranges = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
const SPACE: Ranges = [[0x09, 0x0a], [0x0c, 0x0d], [0x20, 0x20]];
const ANY_BUT_NEWLINE: Ranges = [[0, NEWLINE - 1], [NEWLINE + 1, MAX_CODE_POINT]];
/** The punctuation a backslash may quote (RE2 accepts any ASCII punctuation). */
const PUNCTUATION = /^[!-/:-@[-`{-~]$/;

function normalise(ranges: (readonly [number, number])[]): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function negate(ranges: Ranges): Ranges {
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

/** A recursive-descent parser of the accepted syntax over the pattern's code points. */
class Parser {
  readonly #pattern: string;
  readonly #chars: readonly string[];
  #pos = 0;
  #depth = 0;

  constructor(pattern: string) {
    this.#pattern = pattern;
    this.#chars = Array.from(pattern);
  }

  fail(detail: string): never {
    throw new RegExpSyntaxError(this.#pattern, `${detail} at character ${this.#pos + 1}`);
  }

  peek(offset = 0): string | undefined {
    return this.#chars[this.#pos + offset];
  }

  parse(): Node {
    const node = this.alternation();
    if (this.#pos < this.#chars.length) this.fail("unmatched )");
    return node;
  }

  alternation(): Node {
    const items = [this.concatenation()];
    while (this.peek() === "|") {
      this.#pos++;
      items.push(this.concatenation());
    }
    return items.length === 1 ? items[0]! : { kind: "alternate", items };
  }

  concatenation(): Node {
    const items: Node[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === "|" || c === ")") break;
      items.push(this.repetition());
    }
    if (items.length === 0) return { kind: "empty" };
    return items.length === 1 ? items[0]! : { kind: "concat", items };
  }

  repetition(): Node {
    const start = this.#pos;
    let node = this.atom();
    let repeated = false;
    for (;;) {
      const c = this.peek();
      let bounds: { min: number; max: number } | undefined;
      if (c === "*") bounds = { min: 0, max: Infinity };
      else if (c === "+") bounds = { min: 1, max: Infinity };
      else if (c === "?") bounds = { min: 0, max: 1 };
      else if (c === "{") bounds = this.countedRepetition();
      if (bounds === undefined) break;
      if (c !== "{") this.#pos++;
      if (repeated) this.fail("invalid nested repetition operator");
      if (node.kind === "begin" || node.kind === "end" || node.kind === "empty") {
        this.fail("missing argument to repetition operator");
      }
      if (this.peek() === "?") this.#pos++; // lazy: the same set of matching texts
      repeated = true;
      node = { kind: "repeat", item: node, ...bounds };
    }
    if (this.#pos === start) this.fail("missing argument to repetition operator");
    return node;
  }

  /** `{n}`, `{n,}`, `{n,m}` at the current position, consumed; else undefined (a literal `{`). */
  countedRepetition(): { min: number; max: number } | undefined {
    const rest = this.#chars.slice(this.#pos, this.#pos + 16).join("");
    const match = /^\{(\d+)(,(\d*))?\}/.exec(rest);
    if (match === null) return undefined;
    const min = Number(match[1]);
    const max = match[2] === undefined ? min : match[3] === "" ? Infinity : Number(match[3]);
    if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) {
      this.fail(`repetition count above ${MAX_REPEAT}`);
    }
    if (max < min) this.fail("invalid repeat count");
    this.#pos += Array.from(match[0]).length;
    return { min, max };
  }

  atom(): Node {
    const c = this.peek();
    switch (c) {
      case undefined:
        return this.fail("missing argument to repetition operator");
      case "(":
        return this.group();
      case "[":
        return { kind: "chars", ranges: this.characterClass() };
      case ".":
        this.#pos++;
        return { kind: "chars", ranges: ANY_BUT_NEWLINE };
      case "^":
        this.#pos++;
        return { kind: "begin" };
      case "$":
        this.#pos++;
        return { kind: "end" };
      case "*":
      case "+":
      case "?":
        return this.fail("missing argument to repetition operator");
      case "\\": {
        this.#pos++;
        const e = this.peek();
        if (e === "A") {
          this.#pos++;
          return { kind: "begin" };
        }
        if (e === "z") {
          this.#pos++;
          return { kind: "end" };
        }
        return { kind: "chars", ranges: this.escape(false) };
      }
      default: {
        this.#pos++;
        const code = c.codePointAt(0)!;
        return { kind: "chars", ranges: [[code, code]] };
      }
    }
  }

  group(): Node {
    this.#pos++; // (
    if (this.peek() === "?") {
      const rest = this.#chars.slice(this.#pos, this.#pos + 40).join("");
      const named = /^\?P?<[A-Za-z_][A-Za-z0-9_]{0,31}>/.exec(rest);
      if (rest.startsWith("?:")) this.#pos += 2;
      else if (named !== null) this.#pos += named[0].length;
      else this.fail("flags and look-around groups are not supported");
    }
    if (++this.#depth > 100) this.fail("groups nested too deeply");
    const node = this.alternation();
    this.#depth--;
    if (this.peek() !== ")") this.fail("missing )");
    this.#pos++;
    return node;
  }

  /** The character (class) after a backslash, consumed. */
  escape(inClass: boolean): Ranges {
    const e = this.peek();
    if (e === undefined) this.fail("trailing backslash");
    this.#pos++;
    switch (e) {
      case "d":
        return DIGIT;
      case "D":
        return negate(DIGIT);
      case "w":
        return WORD;
      case "W":
        return negate(WORD);
      case "s":
        return SPACE;
      case "S":
        return negate(SPACE);
      case "t":
        return [[0x09, 0x09]];
      case "n":
        return [[0x0a, 0x0a]];
      case "r":
        return [[0x0d, 0x0d]];
      case "f":
        return [[0x0c, 0x0c]];
      case "v":
        return [[0x0b, 0x0b]];
    }
    if (PUNCTUATION.test(e)) {
      const code = e.codePointAt(0)!;
      return [[code, code]];
    }
    this.#pos--;
    return this.fail(`the escape \\${e}${inClass ? " in a class" : ""} is not supported`);
  }

  characterClass(): Ranges {
    this.#pos++; // [
    let negated = false;
    if (this.peek() === "^") {
      negated = true;
      this.#pos++;
    }
    const ranges: (readonly [number, number])[] = [];
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail("missing ]");
      if (c === "]" && !first) {
        this.#pos++;
        break;
      }
      if (c === "[" && this.peek(1) === ":") this.fail("POSIX classes are not supported");
      first = false;
      const low = this.classAtom();
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        if (low.length !== 1 || low[0]![0] !== low[0]![1]) {
          this.fail("invalid character class range");
        }
        this.#pos++; // -
        const high = this.classAtom();
        if (high.length !== 1 || high[0]![0] !== high[0]![1]) {
          this.fail("invalid character class range");
        }
        if (high[0]![0] < low[0]![0]) this.fail("invalid character class range");
        ranges.push([low[0]![0], high[0]![0]]);
      } else {
        ranges.push(...low);
      }
    }
    const set = normalise(ranges);
    return negated ? negate(set) : set;
  }

  classAtom(): Ranges {
    const c = this.peek()!;
    if (c === "\\") {
      this.#pos++;
      return this.escape(true);
    }
    this.#pos++;
    const code = c.codePointAt(0)!;
    return [[code, code]];
  }
}

/** NFA states: a character test, an epsilon split, an assertion, or the match. */
const CHARS = 0;
const SPLIT = 1;
const BEGIN = 2;
const END = 3;
const MATCH = 4;
const JUMP = 5;

interface State {
  kind: number;
  ranges?: Ranges;
  out: number;
  out2: number;
}

/** Thompson construction: each fragment is a start state and the dangling exits to patch. */
class Builder {
  readonly states: State[] = [];
  readonly #pattern: string;
  /** Compilation steps: a repetition of something empty adds no state but still costs time. */
  #steps = 0;

  constructor(pattern: string) {
    this.#pattern = pattern;
  }

  add(state: State): number {
    if (this.states.length >= MAX_STATES) {
      throw new RegExpSyntaxError(
        this.#pattern,
        `it compiles to more than ${MAX_STATES} states (counted repetitions are expanded)`,
      );
    }
    this.states.push(state);
    return this.states.length - 1;
  }

  /** Compiles `node`; its exits go to `next`. Returns the entry state. */
  compile(node: Node, next: number): number {
    if (++this.#steps > 4 * MAX_STATES) {
      throw new RegExpSyntaxError(this.#pattern, "it is too large to compile");
    }
    switch (node.kind) {
      case "chars":
        return this.add({ kind: CHARS, ranges: node.ranges, out: next, out2: -1 });
      case "begin":
        return this.add({ kind: BEGIN, out: next, out2: -1 });
      case "end":
        return this.add({ kind: END, out: next, out2: -1 });
      case "empty":
        return next;
      case "concat": {
        let entry = next;
        for (let i = node.items.length - 1; i >= 0; i--) {
          entry = this.compile(node.items[i]!, entry);
        }
        return entry;
      }
      case "alternate": {
        let entry = this.compile(node.items[node.items.length - 1]!, next);
        for (let i = node.items.length - 2; i >= 0; i--) {
          const branch = this.compile(node.items[i]!, next);
          entry = this.add({ kind: SPLIT, out: branch, out2: entry });
        }
        return entry;
      }
      case "repeat": {
        let entry = next;
        if (node.max === Infinity) {
          // x*: a split that loops through x back to itself.
          const loop = this.add({ kind: SPLIT, out: -1, out2: next });
          this.states[loop]!.out = this.compile(node.item, loop);
          entry = loop;
        } else {
          for (let i = node.max - node.min; i > 0; i--) {
            const body = this.compile(node.item, entry);
            entry = this.add({ kind: SPLIT, out: body, out2: next });
            next = entry;
          }
        }
        for (let i = 0; i < node.min; i++) entry = this.compile(node.item, entry);
        return entry;
      }
    }
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Compiles `pattern`.
 *
 * @throws {RegExpSyntaxError} for a pattern outside the accepted syntax, longer than
 * {@linkcode MAX_PATTERN_LENGTH} or compiling to more than {@linkcode MAX_STATES} states.
 */
export function compileLinearRegExp(pattern: string): LinearRegExp {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new RegExpSyntaxError(
      `${pattern.slice(0, 40)}…`,
      `longer than ${MAX_PATTERN_LENGTH} characters`,
    );
  }
  const ast = new Parser(pattern).parse();
  const builder = new Builder(pattern);
  const match = builder.add({ kind: MATCH, out: -1, out2: -1 });
  // A jump in front, so that the start is always a state of its own.
  const entry = builder.add({ kind: JUMP, out: builder.compile(ast, match), out2: -1 });
  const states = builder.states;
  const count = states.length;
  // Flat typed arrays: the simulation allocates nothing per character.
  const kinds = new Uint8Array(count);
  const outs = new Int32Array(count);
  const outs2 = new Int32Array(count);
  const rangeStart = new Int32Array(count + 1);
  const flatRanges: number[] = [];
  states.forEach((state, i) => {
    kinds[i] = state.kind;
    outs[i] = state.out;
    outs2[i] = state.out2;
    rangeStart[i] = flatRanges.length / 2;
    for (const [lo, hi] of state.ranges ?? []) flatRanges.push(lo, hi);
  });
  rangeStart[count] = flatRanges.length / 2;
  const ranges = Int32Array.from(flatRanges);

  function accepts(s: number, code: number): boolean {
    let lo = rangeStart[s]!;
    let hi = rangeStart[s + 1]! - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (code < ranges[2 * mid]!) hi = mid - 1;
      else if (code > ranges[2 * mid + 1]!) lo = mid + 1;
      else return true;
    }
    return false;
  }

  /** The simulation; yields whenever it took STEPS_PER_TURN steps since the last yield. */
  function* run(text: string): Generator<void, boolean> {
    if (text.length > MAX_INPUT_LENGTH * 2) return false;
    const input = Array.from(text, (c) => c.codePointAt(0)!);
    if (input.length > MAX_INPUT_LENGTH) return false;
    const end = input.length;
    // Each state is added at most once per position (its mark is the position + 1).
    const mark = new Int32Array(count);
    const stack = new Int32Array(count * 2 + 2);
    let current = new Int32Array(count);
    let next = new Int32Array(count);
    let currentLength = 0;
    let nextLength = 0;
    let found = false;
    /** States visited since the last yield: the work done. */
    let visited = 0;
    /** Adds `start` and what it reaches without a character to `list`; returns the length. */
    const addState = (list: Int32Array, length: number, start: number, pos: number): number => {
      let top = 0;
      stack[top++] = start;
      while (top > 0) {
        const s = stack[--top]!;
        visited++;
        if (s < 0 || mark[s] === pos + 1) continue;
        mark[s] = pos + 1;
        switch (kinds[s]) {
          case SPLIT:
            stack[top++] = outs2[s]!;
            stack[top++] = outs[s]!;
            break;
          case JUMP:
            stack[top++] = outs[s]!;
            break;
          case BEGIN:
            if (pos === 0) stack[top++] = outs[s]!;
            break;
          case END:
            if (pos === end) stack[top++] = outs[s]!;
            break;
          case MATCH:
            found = true;
            break;
          default:
            list[length++] = s;
        }
      }
      return length;
    };
    for (let pos = 0; pos <= end; pos++) {
      // Unanchored: a match may start at every position.
      currentLength = addState(current, currentLength, entry, pos);
      if (found) return true;
      if (pos === end) break;
      if (visited >= STEPS_PER_TURN) {
        visited = 0;
        yield;
      }
      const code = input[pos]!;
      nextLength = 0;
      for (let i = 0; i < currentLength; i++) {
        const s = current[i]!;
        if (accepts(s, code)) nextLength = addState(next, nextLength, outs[s]!, pos + 1);
      }
      if (found) return true;
      [current, next] = [next, current];
      currentLength = nextLength;
    }
    return found;
  }

  return {
    source: pattern,
    states: count,
    test(text: string): boolean {
      const steps = run(text);
      for (;;) {
        const step = steps.next();
        if (step.done) return step.value;
      }
    },
    async testAsync(text, pause = nextTurn): Promise<boolean> {
      const steps = run(text);
      for (;;) {
        const step = steps.next();
        if (step.done) return step.value;
        await pause();
      }
    },
  };
}
