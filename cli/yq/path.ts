/**
 * The paths of `toolkit yq`: where in a YAML document to read, write or delete. One parser
 * takes the spellings its users have written:
 *
 * - yq's dotted paths: `a.b[0].c`, `a.*.c`, `a[*]`, `a[+]` (a new last item), `a[-1]` (the last);
 * - keys with dots or brackets in quotes: `"a.b".c`, `a['x.y']`;
 * - elements of a list chosen by a field: `a[name==x].c`, `a[name == "x y"]`, yq v3's
 *   `a.(name==x).c`, and the JSONPath filters igc handed to the `jsonpath` library:
 *   `dependencies[?(@.name == "image")].version`, with an optional leading `$` (`$.a.b`).
 *
 * A path that does not parse is a {@link PathSyntaxError} (a usage error, exit 2) that says
 * at which character, counted from 1.
 *
 * @module
 */
import { UsageError } from "../../lib/errors.ts";

/** One step of a path. */
export type Segment =
  /** The value of a key of a mapping (on a sequence, digits are an index, as lodash did). */
  | { readonly kind: "key"; readonly name: string }
  /** An item of a sequence; negative counts from the end. */
  | { readonly kind: "index"; readonly index: number }
  /** A new item after the last one (`[+]`). */
  | { readonly kind: "append" }
  /** Every value of a mapping or item of a sequence (`*`, `[*]`). */
  | { readonly kind: "wildcard" }
  /**
   * The items of a sequence that are mappings whose field at `field` (a key path) reads
   * `value`. `quoted` when the value was written in quotes: it is then a string.
   */
  | {
    readonly kind: "match";
    readonly field: readonly string[];
    readonly value: string;
    readonly quoted: boolean;
  };

/** A path that does not parse. */
export class PathSyntaxError extends UsageError {
  /** The character (1-based) where the mistake is. */
  readonly position: number;

  /** Creates the error for `path`, naming the position and what was expected. */
  constructor(path: string, position: number, detail: string) {
    super(`Cannot read path "${path}": ${detail} at character ${position}`);
    this.name = "PathSyntaxError";
    this.position = position;
  }
}

/** Characters that end a bare key. */
const KEY_END = new Set([".", "["]);

class PathReader {
  #pos = 0;
  constructor(readonly text: string) {}

  get pos(): number {
    return this.#pos;
  }
  get done(): boolean {
    return this.#pos >= this.text.length;
  }
  peek(offset = 0): string {
    return this.text[this.#pos + offset] ?? "";
  }
  next(): string {
    return this.text[this.#pos++] ?? "";
  }
  startsWith(s: string): boolean {
    return this.text.startsWith(s, this.#pos);
  }
  reset(pos: number): void {
    this.#pos = pos;
  }
  skipSpaces(): void {
    while (this.peek() === " " || this.peek() === "\t") this.#pos++;
  }
  fail(detail: string, at = this.#pos): never {
    throw new PathSyntaxError(this.text, at + 1, detail);
  }
  expect(s: string, what = `"${s}"`): void {
    if (!this.startsWith(s)) {
      this.fail(`${what} expected${this.done ? "" : `, found "${this.peek()}"`}`);
    }
    this.#pos += s.length;
  }

  /** A quoted string at the current position: `"…"` (backslash escapes) or `'…'` (`''`). */
  quoted(): string {
    const start = this.#pos;
    const quote = this.next();
    let out = "";
    for (;;) {
      if (this.done) this.fail(`unterminated ${quote === '"' ? "double" : "single"} quote`, start);
      const c = this.next();
      if (c === quote) {
        if (quote === "'" && this.peek() === "'") {
          out += this.next();
          continue;
        }
        return out;
      }
      if (c === "\\" && quote === '"') {
        if (this.done) this.fail("unterminated double quote", start);
        const escaped = this.next();
        out += escaped === "n" ? "\n" : escaped === "t" ? "\t" : escaped;
        continue;
      }
      out += c;
    }
  }

  /** Characters up to (not including) any of `stops`, or the end. */
  until(stops: (c: string) => boolean): string {
    const start = this.#pos;
    while (!this.done && !stops(this.peek())) this.#pos++;
    return this.text.slice(start, this.#pos);
  }
}

/** A key after a dot or at the start: quoted, `*`, yq v3's `(k==v)`, or bare. */
function keySegment(r: PathReader): Segment {
  const c = r.peek();
  if (c === '"' || c === "'") return { kind: "key", name: r.quoted() };
  if (c === "(") {
    r.next();
    const match = matchBody(r, ")");
    r.expect(")");
    return match;
  }
  const start = r.pos;
  const name = r.until((ch) => KEY_END.has(ch));
  if (name === "") r.fail(r.done ? "a key expected after the dot" : "an empty key", start);
  if (name === "*") return { kind: "wildcard" };
  if (name === "..") r.fail("recursive descent (..) is not supported", start);
  for (const [i, ch] of Array.from(name).entries()) {
    if (ch === "]" || ch === '"' || ch === "'") {
      r.fail(`${ch === "]" ? '"]"' : "a quote"} in a key (put the key in quotes)`, start + i);
    }
  }
  return { kind: "key", name };
}

/** `field == value` (also `field==value`, and `@.field == value` inside a JSONPath filter). */
function matchBody(r: PathReader, close: string, jsonPath = false): Segment {
  r.skipSpaces();
  const field: string[] = [];
  if (jsonPath) {
    r.expect("@", '"@" (the current item)');
    while (r.peek() === "." || r.peek() === "[") {
      if (r.next() === ".") {
        const start = r.pos;
        const name = r.until((ch) => ".[ =!)<>".includes(ch));
        if (name === "") r.fail("a field name expected", start);
        field.push(name);
      } else {
        r.skipSpaces();
        if (r.peek() !== '"' && r.peek() !== "'") r.fail("a quoted field name expected");
        field.push(r.quoted());
        r.skipSpaces();
        r.expect("]");
      }
    }
    if (field.length === 0) r.fail('a field expected after "@" (@.name)');
  } else if (r.peek() === '"' || r.peek() === "'") {
    field.push(r.quoted());
  } else {
    const start = r.pos;
    const name = r.until((ch) => " \t=!<>".includes(ch) || ch === close);
    if (name === "") r.fail("a field name expected", start);
    field.push(...name.split("."));
    if (field.includes("")) r.fail("an empty field name", start);
  }
  r.skipSpaces();
  if (!r.startsWith("==")) {
    if (r.startsWith("!=") || r.peek() === "<" || r.peek() === ">" || r.peek() === "=") {
      r.fail("only == is supported");
    }
    r.fail(`"==" expected${r.done ? "" : `, found "${r.peek()}"`}`);
  }
  r.expect("==");
  r.skipSpaces();
  let value: string;
  let quoted = false;
  if (r.peek() === '"' || r.peek() === "'") {
    value = r.quoted();
    quoted = true;
  } else {
    const start = r.pos;
    value = r.until((ch) => ch === " " || ch === "\t" || ch === close);
    if (value === "") r.fail("a value expected after ==", start);
  }
  r.skipSpaces();
  return { kind: "match", field, value, quoted };
}

/** `[…]`: an index, `*`, `+`, a quoted key, `field==value` or a JSONPath filter `?(…)`. */
function bracketSegment(r: PathReader): Segment {
  r.expect("[");
  r.skipSpaces();
  let segment: Segment;
  const c = r.peek();
  if (c === '"' || c === "'") {
    segment = { kind: "key", name: r.quoted() };
  } else if (c === "*") {
    r.next();
    segment = { kind: "wildcard" };
  } else if (c === "+") {
    r.next();
    segment = { kind: "append" };
  } else if (c === "?") {
    r.next();
    r.skipSpaces();
    r.expect("(", '"(" after "?"');
    segment = matchBody(r, ")", true);
    r.expect(")");
  } else if (/[-0-9]/.test(c)) {
    const start = r.pos;
    const digits = r.until((ch) => !/[-0-9]/.test(ch));
    if (!/^-?[0-9]+$/.test(digits)) r.fail("an index expected", start);
    r.skipSpaces();
    if (!r.done && r.peek() !== "]") {
      // `[1==x]`: a field named by digits.
      r.reset(start);
      segment = matchBody(r, "]");
    } else {
      segment = { kind: "index", index: Number(digits) };
    }
  } else if (c === "]") {
    r.fail("an index, *, +, a quoted key or field==value expected");
  } else {
    segment = matchBody(r, "]");
  }
  r.skipSpaces();
  r.expect("]");
  return segment;
}

/**
 * Parses a path. The empty path, `.` and `$` are the document itself (no segments).
 *
 * @throws {PathSyntaxError} naming the character where the path goes wrong.
 */
export function parsePath(text: string): Segment[] {
  const r = new PathReader(text);
  const segments: Segment[] = [];
  if (r.peek() === "$" && (r.peek(1) === "" || r.peek(1) === "." || r.peek(1) === "[")) r.next();
  if (r.done) return segments;
  if (r.peek() === "." && r.text.length === r.pos + 1) return segments;
  if (r.peek() === ".") {
    // `$.a`, or yq's `.a`; `..a` is recursive descent.
    r.next();
    if (r.peek() === ".") r.fail("recursive descent (..) is not supported", r.pos - 1);
    if (r.peek() !== "[") segments.push(keySegment(r));
  } else if (r.peek() !== "[") {
    segments.push(keySegment(r));
  }
  while (!r.done) {
    if (r.peek() === "[") {
      segments.push(bracketSegment(r));
    } else if (r.peek() === ".") {
      r.next();
      if (r.peek() === ".") r.fail("recursive descent (..) is not supported", r.pos - 1);
      if (r.peek() === "[") continue; // yq v3's `a.[0]`
      segments.push(keySegment(r));
    } else {
      r.fail(`"." or "[" expected, found "${r.peek()}"`);
    }
  }
  return segments;
}

/** Writes a path back in the dotted syntax (for messages): `a.b[0]["x.y"]`. */
export function formatPath(segments: readonly Segment[]): string {
  let out = "";
  for (const s of segments) {
    switch (s.kind) {
      case "key":
        if (/^[^.[\]"'()*\s][^.[\]"']*$/.test(s.name) && s.name !== "*") {
          out += out === "" ? s.name : `.${s.name}`;
        } else {
          out += `[${JSON.stringify(s.name)}]`;
        }
        break;
      case "index":
        out += `[${s.index}]`;
        break;
      case "append":
        out += "[+]";
        break;
      case "wildcard":
        out += out === "" ? "*" : ".*";
        break;
      case "match": {
        const field = s.field.join(".");
        out += `[${field}==${s.quoted ? JSON.stringify(s.value) : s.value}]`;
        break;
      }
    }
  }
  return out;
}
