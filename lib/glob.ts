/**
 * Glob matching in linear time, for patterns that come from policies and pull secrets.
 *
 * A glob is text in which `*` matches any run of characters (and, when enabled, `?` matches
 * exactly one); everything else matches itself. Globs are written by whoever administers a
 * namespace, so matching must not be a regular expression: a pattern such as
 * `evil.io/*a*a*a*a*a*a*b` turns into nested `.*` groups that backtrack exponentially on a long
 * name, and a synchronous match cannot be interrupted by any deadline.
 *
 * Here a glob is compiled once into the literal segments between its stars. The first segment
 * must start the text and the last must end it; the ones in between are found leftmost-first,
 * in order, which is enough: taking the earliest place for each segment never rules out a
 * match that a later place would allow. Segments without `?` are searched with
 * Knuth-Morris-Pratt, so one match costs at most about `2 × (text + glob)` character steps and
 * never goes back over the text; segments with `?` (only credential keys use it, on host labels
 * of at most 63 characters) are compared at each position, `text × segment` steps at worst. A
 * glob with more literal characters than the text has is refused before any step.
 *
 * @module
 */

/** Counts the character comparisons of matches, to prove bounds in tests and to budget work. */
export interface StepCounter {
  steps: number;
}

/** How a glob reads its text. */
export interface GlobOptions {
  /** `?` matches exactly one character (credential keys); otherwise it is literal. */
  readonly questionMark?: boolean;
}

interface Segment {
  readonly text: string;
  /** The KMP failure table, for segments without `?`. */
  readonly failure?: Int32Array;
}

function failureTable(segment: string): Int32Array {
  const table = new Int32Array(segment.length);
  let k = 0;
  for (let i = 1; i < segment.length; i++) {
    while (k > 0 && segment.charCodeAt(i) !== segment.charCodeAt(k)) k = table[k - 1]!;
    if (segment.charCodeAt(i) === segment.charCodeAt(k)) k++;
    table[i] = k;
  }
  return table;
}

/** A compiled glob. */
export class Glob {
  /** The glob as written. */
  readonly source: string;
  /** True when the glob has no wildcard: it matches only its own text. */
  readonly literal: boolean;
  /** The number of characters any match needs (the literal characters and the `?`s). */
  readonly minLength: number;
  readonly #questionMark: boolean;
  /** The segments between stars; with no star, one segment that is the whole glob. */
  readonly #segments: readonly Segment[];
  readonly #star: boolean;

  /** Compiles `source`. */
  constructor(source: string, options: GlobOptions = {}) {
    this.source = source;
    this.#questionMark = options.questionMark === true;
    const parts = source.split("*");
    this.#star = parts.length > 1;
    this.#segments = parts.map((text) =>
      this.#questionMark && text.includes("?") ? { text } : { text, failure: failureTable(text) }
    );
    this.minLength = source.length - (parts.length - 1);
    this.literal = !this.#star && !(this.#questionMark && source.includes("?"));
  }

  /** True when `text` matches the whole glob. `counter` receives the steps taken. */
  matches(text: string, counter?: StepCounter): boolean {
    if (text.length < this.minLength) return false;
    const segments = this.#segments;
    if (!this.#star) {
      const whole = segments[0]!.text;
      return text.length === whole.length && this.#at(whole, text, 0, counter);
    }
    const first = segments[0]!.text;
    const last = segments[segments.length - 1]!.text;
    // The first segment starts the text and the last ends it; minLength guarantees they fit
    // without overlapping each other.
    if (!this.#at(first, text, 0, counter)) return false;
    if (!this.#at(last, text, text.length - last.length, counter)) return false;
    let from = first.length;
    const end = text.length - last.length;
    for (let i = 1; i < segments.length - 1; i++) {
      const segment = segments[i]!;
      if (segment.text.length === 0) continue;
      const found = this.#find(segment, text, from, end, counter);
      if (found < 0) return false;
      from = found + segment.text.length;
    }
    return true;
  }

  /** Whether `segment` matches `text` at `offset` (the characters exist: checked by callers). */
  #at(segment: string, text: string, offset: number, counter?: StepCounter): boolean {
    if (offset + segment.length > text.length) return false;
    for (let i = 0; i < segment.length; i++) {
      if (counter) counter.steps++;
      const c = segment.charCodeAt(i);
      if (c === 63 /* ? */ && this.#questionMark) continue;
      if (c !== text.charCodeAt(offset + i)) return false;
    }
    return true;
  }

  /** The first index in [from, end) where `segment` fits entirely before `end`, or -1. */
  #find(segment: Segment, text: string, from: number, end: number, counter?: StepCounter): number {
    const pattern = segment.text;
    const failure = segment.failure;
    if (failure === undefined) {
      for (let start = from; start + pattern.length <= end; start++) {
        if (this.#at(pattern, text, start, counter)) return start;
      }
      return -1;
    }
    let k = 0;
    for (let i = from; i < end; i++) {
      const c = text.charCodeAt(i);
      while (k > 0 && c !== pattern.charCodeAt(k)) {
        if (counter) counter.steps++;
        k = failure[k - 1]!;
      }
      if (counter) counter.steps++;
      if (c === pattern.charCodeAt(k)) k++;
      if (k === pattern.length) return i - pattern.length + 1;
    }
    return -1;
  }
}

/** True when `text` matches `glob` (`*` any run of characters, everything else literal). */
export function globMatch(glob: string, text: string, options?: GlobOptions): boolean {
  return new Glob(glob, options).matches(text);
}
