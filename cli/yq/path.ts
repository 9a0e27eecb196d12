/**
 * The paths of `toolkit yq`: where in a YAML document to read, write or delete. One parser
 * takes every spelling yq v3 documents, and the JSONPath filters igc's users wrote:
 *
 * - keys: `a.b.c`; keys with dots or brackets in quotes: `"a.b".c`, `a['x.y']`; a bare word
 *   in brackets is a key too (`a[x]`, as yq and lodash read it);
 * - indexes: `a[0]`, `a.[0]`, `a[-1]` (from the end), `a[+]` (a new last item);
 * - globs: `a.*` (every key or item), `a[*]`, `b.there*.c` (`*` inside a key matches any run of
 *   characters; a quoted key is never a glob), and `**` (any depth: `a.**.c`, `**`);
 * - filters, which keep the children (items, or values of a mapping) that match:
 *   `a(name==x)`, `a.(name==x)`, `a[name==x]`, with a path on the left (`a.(b.d==cat*)`,
 *   `(**.city==foo)`) or `.` for the child itself (`animals(.==dog)`), and on the right a value
 *   that may be a glob (`fr*`) unless quoted (`"x y"`); JSONPath's
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
  /** The values of the keys that match a glob (`there*`: `*` is any run of characters). */
  | { readonly kind: "glob"; readonly pattern: string }
  /** An item of a sequence; negative counts from the end. */
  | { readonly kind: "index"; readonly index: number }
  /** A new item after the last one (`[+]`). */
  | { readonly kind: "append" }
  /** Every value of a mapping or item of a sequence (`*`, `[*]`). */
  | { readonly kind: "wildcard" }
  /** Any depth (`**`): zero or more levels before what follows; at the end, every leaf below. */
  | { readonly kind: "deep" }
  /**
   * The children (items of a sequence, values of a mapping) at which `path` reaches a scalar
   * reading `value` (`path` empty: the child itself is that scalar). `quoted` when the value
   * was written in quotes: it is then a string, never a glob.
   */
  | {
    readonly kind: "match";
    readonly path: readonly Segment[];
    readonly value: string;
    readonly quoted: boolean;
  };

/** A filter segment. */
export type MatchSegment = Extract<Segment, { kind: "match" }>;

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

/** True when a value of a filter, or a key, is a glob (unquoted, with a `*`). */
export function isGlobText(text: string, quoted: boolean): boolean {
  return !quoted && text.includes("*");
}

class PathReader {
  #pos = 0;
  /** `text` is read from `offset`; positions in errors count from the start of `whole`. */
  constructor(readonly text: string, readonly whole = text, readonly offset = 0) {}

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
    throw new PathSyntaxError(this.whole, this.offset + at + 1, detail);
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

  /**
   * The text up to `stop` at the top level (not inside quotes or brackets), without
   * consuming `stop`; `undefined` when there is none before `end`.
   */
  scanTo(stop: string, end: (c: string) => boolean): string | undefined {
    let depth = 0;
    let quote = "";
    for (let i = this.#pos; i < this.text.length; i++) {
      const c = this.text[i]!;
      if (quote !== "") {
        if (c === "\\" && quote === '"') i++;
        else if (c === quote) quote = "";
        continue;
      }
      if (c === '"' || c === "'") quote = c;
      else if (depth === 0 && this.text.startsWith(stop, i)) {
        const found = this.text.slice(this.#pos, i);
        this.#pos = i;
        return found;
      } else if (c === "[" || c === "(") depth++;
      else if (c === "]" || c === ")") {
        if (depth === 0 && end(c)) return undefined;
        depth--;
      } else if (depth === 0 && end(c)) return undefined;
    }
    return undefined;
  }
}

/** A bare key: `*`, `**`, a glob or a plain key. */
function bareSegment(r: PathReader, name: string, start: number): Segment {
  if (name === "*") return { kind: "wildcard" };
  if (name === "**") return { kind: "deep" };
  for (const [i, ch] of Array.from(name).entries()) {
    if (ch === "]" || ch === ")" || ch === '"' || ch === "'") {
      const what = ch === '"' || ch === "'" ? "a quote" : `"${ch}"`;
      r.fail(`${what} in a key (put the key in quotes)`, start + i);
    }
  }
  return name.includes("*") ? { kind: "glob", pattern: name } : { kind: "key", name };
}

/** A key after a dot or at the start: quoted, `*`, `**`, a glob, a filter `(k==v)`, or bare. */
function keySegment(r: PathReader): Segment {
  const c = r.peek();
  if (c === '"' || c === "'") return { kind: "key", name: r.quoted() };
  if (c === "(") return filterSegment(r);
  const start = r.pos;
  const name = r.until((ch) => ch === "." || ch === "[" || ch === "(");
  if (name === "") r.fail(r.done ? "a key expected after the dot" : "an empty key", start);
  return bareSegment(r, name, start);
}

/** `(path==value)`. */
function filterSegment(r: PathReader): Segment {
  r.expect("(");
  const match = matchBody(r, ")");
  r.expect(")");
  return match;
}

/**
 * `path == value` up to `close` (not consumed); `path` is `.`, empty, a path, or in a JSONPath
 * filter `@.field` / `@['field']`.
 */
function matchBody(r: PathReader, close: string, jsonPath = false): MatchSegment {
  r.skipSpaces();
  const start = r.pos;
  let path: Segment[];
  if (jsonPath) {
    path = [];
    r.expect("@", '"@" (the current item)');
    while (r.peek() === "." || r.peek() === "[") {
      if (r.next() === ".") {
        const at = r.pos;
        const name = r.until((ch) => ".[ =!)<>".includes(ch));
        if (name === "") r.fail("a field name expected", at);
        path.push({ kind: "key", name });
      } else {
        r.skipSpaces();
        if (r.peek() !== '"' && r.peek() !== "'") r.fail("a quoted field name expected");
        path.push({ kind: "key", name: r.quoted() });
        r.skipSpaces();
        r.expect("]");
      }
    }
    if (path.length === 0) r.fail('a field expected after "@" (@.name)');
    r.skipSpaces();
  } else {
    const left = r.scanTo("==", (c) => c === close || c === "!" || c === "<" || c === ">");
    if (left === undefined) {
      const rest = r.until((c) => c === close || c === "!" || c === "<" || c === ">" || c === "=");
      if (r.peek() === "!" || r.peek() === "<" || r.peek() === ">" || r.peek() === "=") {
        r.fail("only == is supported");
      }
      r.fail(
        `"==" expected${r.done ? "" : `, found "${r.peek()}"`}` +
          (rest === "" ? "" : ` (a filter is ${close === ")" ? "(" : "["}field==value${close})`),
      );
    }
    const field = left.trim();
    const leading = left.length - left.trimStart().length;
    path = field === "" || field === "." ? [] : parseInner(r, field, start + leading);
  }
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
    const at = r.pos;
    value = r.until((ch) => ch === close).trimEnd();
    if (value === "") r.fail("a value expected after ==", at);
  }
  r.skipSpaces();
  return { kind: "match", path, value, quoted };
}

/** The path on the left of a filter, parsed where it stands in the whole path. */
function parseInner(r: PathReader, text: string, at: number): Segment[] {
  const inner = new PathReader(text, r.whole, r.offset + at);
  return readSegments(inner);
}

/** `[…]`: an index, `*`, `+`, a quoted key, a filter, a JSONPath filter `?(…)`, or a bare key. */
function bracketSegment(r: PathReader): Segment {
  r.expect("[");
  r.skipSpaces();
  let segment: Segment;
  const c = r.peek();
  const start = r.pos;
  if (c === '"' || c === "'") {
    segment = { kind: "key", name: r.quoted() };
  } else if (c === "+") {
    r.next();
    segment = { kind: "append" };
  } else if (c === "?") {
    r.next();
    r.skipSpaces();
    r.expect("(", '"(" after "?"');
    segment = matchBody(r, ")", true);
    r.expect(")");
  } else if (c === "]") {
    r.fail("an index, *, +, a key or field==value expected");
  } else {
    const body = r.scanTo("==", (ch) => ch === "]");
    r.reset(start);
    const word = r.until((ch) => ch === "]");
    r.reset(start);
    if (body !== undefined || /!=|[<>=]/.test(word)) {
      segment = matchBody(r, "]");
    } else {
      r.until((ch) => ch === "]");
      if (/^\s*-?[0-9]*\s*:\s*-?[0-9]*\s*(:\s*-?[0-9]*\s*)?$/.test(word)) {
        r.fail("slices ([a:b]) are not supported (quote a key that has a colon)", start);
      }
      if (/^\s*-?[0-9]+(\s*,\s*-?[0-9]+)+\s*$/.test(word)) {
        r.fail("unions ([a,b]) are not supported (quote a key that has a comma)", start);
      }
      segment = /^-?[0-9]+$/.test(word.trimEnd())
        ? { kind: "index", index: Number(word) === 0 ? 0 : Number(word) }
        : bareSegment(r, word.trimEnd(), start);
    }
  }
  r.skipSpaces();
  r.expect("]");
  return segment;
}

/** The segments of the text of `r` (no leading `$`). */
function readSegments(r: PathReader): Segment[] {
  const segments: Segment[] = [];
  if (r.peek() === ".") {
    // yq's `.a`; `..a` is recursive descent.
    r.next();
    if (r.peek() === ".") r.fail("recursive descent (..) is not supported", r.pos - 1);
    if (r.done) return segments;
    if (r.peek() !== "[") segments.push(keySegment(r));
  } else if (r.peek() !== "[" && !r.done) {
    segments.push(keySegment(r));
  }
  while (!r.done) {
    if (r.peek() === "[") {
      segments.push(bracketSegment(r));
    } else if (r.peek() === "(") {
      segments.push(filterSegment(r)); // yq's `a(name==x)`
    } else if (r.peek() === ".") {
      r.next();
      if (r.peek() === ".") r.fail("recursive descent (..) is not supported", r.pos - 1);
      if (r.peek() === "[") continue; // yq's `a.[0]`
      segments.push(keySegment(r));
    } else {
      r.fail(`"." or "[" expected, found "${r.peek()}"`);
    }
  }
  return segments;
}

/**
 * Parses a path. The empty path, `.` and `$` are the document itself (no segments).
 *
 * @throws {PathSyntaxError} naming the character where the path goes wrong.
 */
export function parsePath(text: string): Segment[] {
  let r = new PathReader(text);
  if (r.peek() === "$" && (r.peek(1) === "" || r.peek(1) === "." || r.peek(1) === "[")) {
    r = new PathReader(text.slice(1), text, 1);
  }
  return readSegments(r);
}

/** A key as it stands in a written path: bare when it reads back as itself, else quoted. */
function keyText(name: string, first: boolean): string {
  if (/^[^.[\]"'()*\s][^.[\]"'()*]*$/.test(name) && name !== "**") {
    return first ? name : `.${name}`;
  }
  return `[${JSON.stringify(name)}]`;
}

/** Writes a path back in the dotted syntax (for messages): `a.b[0]["x.y"]`. */
export function formatPath(segments: readonly Segment[]): string {
  let out = "";
  for (const s of segments) {
    switch (s.kind) {
      case "key":
        out += keyText(s.name, out === "");
        break;
      case "glob":
        out += out === "" ? s.pattern : `.${s.pattern}`;
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
      case "deep":
        out += out === "" ? "**" : ".**";
        break;
      case "match": {
        const field = s.path.length === 0 ? "." : formatPath(s.path);
        out += `[${field}==${s.quoted ? JSON.stringify(s.value) : s.value}]`;
        break;
      }
    }
  }
  return out;
}

/**
 * The field names of a filter whose path is plain keys (`a[meta.name==x]` → `meta`, `name`),
 * which is what a new item can be made of; `undefined` for any other path.
 */
export function plainFields(segment: MatchSegment): string[] | undefined {
  if (segment.path.length === 0) return undefined;
  const names: string[] = [];
  for (const s of segment.path) {
    if (s.kind !== "key") return undefined;
    names.push(s.name);
  }
  return names;
}
