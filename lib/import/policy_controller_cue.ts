/**
 * The CUE policies of policy-controller's attestations (`authorities[].attestations[].policy`,
 * `type: cue`) as toolkit's CEL conditions, for the simple forms policy-controller's own examples
 * and tests use; any other CUE is refused with what could not be read.
 *
 * policy-controller unifies the CUE with the attestation's in-toto statement and accepts it when
 * the result has no error (`Validate()`, not requiring concrete values), for EVERY verified
 * attestation of the predicate type. So a CUE field constrains the statement's field only when the
 * statement has it: an absent field passes, one of another kind (a string where the CUE has a
 * struct) fails. The condition made says exactly that, over `attestations[predicateType]` (every
 * verified attestation of the type, as policy-controller checks them all):
 *
 * | CUE | CEL (for each statement `s`) |
 * |---|---|
 * | `a: "x"` (a string literal) | `!has(s.a) \|\| s.a == "x"` |
 * | `a: { b: "x" }`, `a: b: "x"` (nested structs) | `!has(s.a) \|\| (type(s.a) == map && (!has(s.a.b) \|\| s.a.b == "x"))` |
 * | `a: <"x"`, `<=`, `>`, `>=` (string bounds: CUE and CEL compare strings by code point) | `s.a < "x"` … |
 * | `t: time.Parse(time.RFC3339, "2049-10-09T17:10:27Z")` (already UTC, as CUE formats it) | the string it is |
 * | a reference to such a field (`<before`) | its string |
 * | several constraints on one field (repeated, or joined with `&`) | all of them |
 *
 * One difference, reported on each policy translated: toolkit's CEL `has()` reads a field whose
 * value is JSON `null` as absent (so it passes), where CUE fails `null` against a string or struct.
 *
 * Refused: numbers, booleans, null, lists, disjunctions, `!=`, definitions and hidden fields
 * (`#A`, `_a`), optional/required fields (`a?:`, `a!:`), string interpolation, imports other than
 * `time`, other builtins, labels CEL cannot select, and regexps (`=~`, `!~`): Go's regexp and
 * CEL's `matches` (RE2JS) read RE2 alike, but `matches` over every attestation of the type is over
 * toolkit's CEL cost limit.
 *
 * @module
 */

/** A CUE policy translated: the CEL expression, or why not (with where in the text). */
export type CueTranslation =
  | { readonly expression: string }
  | { readonly refused: string };

type Operand =
  | { readonly string: string }
  | { readonly ref: string; readonly line: number };

type Term =
  | { readonly kind: "struct"; readonly fields: readonly Field[] }
  | { readonly kind: "eq"; readonly operand: Operand }
  | {
    readonly kind: "bound";
    readonly op: "<" | "<=" | ">" | ">=" | "=~" | "!~";
    readonly operand: Operand;
  };

interface Field {
  readonly label: string;
  readonly terms: readonly Term[];
  readonly line: number;
}

class CueRefusal extends Error {}

type Token = { readonly kind: string; readonly text: string; readonly line: number };

const CEL_RESERVED = new Set([
  "true",
  "false",
  "null",
  "in",
  "as",
  "break",
  "const",
  "continue",
  "else",
  "for",
  "function",
  "if",
  "import",
  "let",
  "loop",
  "package",
  "namespace",
  "return",
  "var",
  "void",
  "while",
]);

function fail(line: number, what: string): never {
  throw new CueRefusal(`line ${line}: ${what}`);
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\n") {
      tokens.push({ kind: "nl", text: c, line });
      line++;
      i++;
    } else if (c === " " || c === "\t" || c === "\r") {
      i++;
    } else if (text.startsWith("//", i)) {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === '"') {
      if (text.startsWith('"""', i)) fail(line, "a multi-line string");
      let j = i + 1;
      while (j < text.length && text[j] !== '"') {
        if (text[j] === "\n") fail(line, "an unterminated string");
        if (text[j] === "\\") {
          if (text[j + 1] === "(") fail(line, "string interpolation");
          j++;
        }
        j++;
      }
      if (j >= text.length) fail(line, "an unterminated string");
      let value: string;
      try {
        value = JSON.parse(text.slice(i, j + 1));
      } catch {
        return fail(line, `a string with escapes JSON does not read: ${text.slice(i, j + 1)}`);
      }
      tokens.push({ kind: "string", text: value, line });
      i = j + 1;
    } else if (/[A-Za-z_$#]/.test(c)) {
      const m = /^[A-Za-z_$#][A-Za-z0-9_$#]*/.exec(text.slice(i))!;
      tokens.push({ kind: "ident", text: m[0], line });
      i += m[0].length;
    } else {
      const op = ["<=", ">=", "=~", "!~", "!="].find((o) => text.startsWith(o, i)) ??
        ("{}:,().<>&|?![]".includes(c) ? c : undefined);
      if (op === undefined) fail(line, `${JSON.stringify(c)} (numbers and other CUE are not read)`);
      tokens.push({ kind: "op", text: op, line });
      i += op.length;
    }
  }
  tokens.push({ kind: "eof", text: "", line });
  return tokens;
}

class Parser {
  #i = 0;
  constructor(readonly tokens: Token[]) {}

  peek(): Token {
    return this.tokens[this.#i]!;
  }
  next(): Token {
    return this.tokens[this.#i++]!;
  }
  skipNewlines(): void {
    while (this.peek().kind === "nl") this.#i++;
  }
  expect(text: string): Token {
    const t = this.next();
    if (t.text !== text || (t.kind !== "op" && t.kind !== "ident")) {
      fail(t.line, `expected ${JSON.stringify(text)}, found ${JSON.stringify(t.text)}`);
    }
    return t;
  }

  file(): Field[] {
    this.skipNewlines();
    while (this.peek().kind === "ident" && this.peek().text === "import") {
      const at = this.next();
      const names: string[] = [];
      if (this.peek().text === "(") {
        this.next();
        this.skipNewlines();
        while (this.peek().kind === "string") {
          names.push(this.next().text);
          this.skipNewlines();
        }
        this.expect(")");
      } else if (this.peek().kind === "string") {
        names.push(this.next().text);
      } else {
        fail(at.line, "an import CUE syntax this importer does not read");
      }
      for (const name of names) {
        if (name !== "time") fail(at.line, `import ${JSON.stringify(name)}: only "time" is read`);
      }
      this.skipNewlines();
    }
    if (this.peek().kind === "ident" && this.peek().text === "package") {
      fail(this.peek().line, "a package clause");
    }
    const fields = this.fields("eof");
    return fields;
  }

  /** Declarations up to `end` (`}` or eof), separated by commas or newlines. */
  fields(end: string): Field[] {
    const fields: Field[] = [];
    for (;;) {
      this.skipNewlines();
      const t = this.peek();
      if (t.kind === "eof" || t.text === end) {
        if (t.kind === "eof" && end !== "eof") fail(t.line, "an unclosed struct");
        if (t.kind !== "eof") this.next();
        return fields;
      }
      fields.push(this.field());
      const sep = this.peek();
      if (sep.text === ",") this.next();
      else if (sep.kind !== "nl" && sep.kind !== "eof" && sep.text !== "}") {
        fail(sep.line, `${JSON.stringify(sep.text)} after a field`);
      }
    }
  }

  label(): { label: string; line: number } {
    const t = this.next();
    if (t.kind === "string") return { label: t.text, line: t.line };
    if (t.kind !== "ident") fail(t.line, `${JSON.stringify(t.text)} where a field label belongs`);
    if (t.text.startsWith("#")) fail(t.line, `the definition ${t.text}`);
    if (t.text.startsWith("_")) fail(t.line, `the hidden field ${t.text}`);
    if (t.text.includes("$") || t.text === "if" || t.text === "for" || t.text === "let") {
      fail(t.line, `${JSON.stringify(t.text)} (comprehensions and let are not read)`);
    }
    return { label: t.text, line: t.line };
  }

  field(): Field {
    const { label, line } = this.label();
    const after = this.peek();
    if (after.text === "?" || after.text === "!") {
      fail(after.line, `the ${after.text === "?" ? "optional" : "required"} field ${label}`);
    }
    this.expect(":");
    // `a: b: "x"` is `a: { b: "x" }`.
    const save = this.#i;
    const next = this.peek();
    if (next.kind === "ident" || next.kind === "string") {
      this.next();
      const colon = this.peek();
      this.#i = save;
      if (colon.text === ":" || colon.text === "?" || colon.text === "!") {
        return { label, line, terms: [{ kind: "struct", fields: [this.field()] }] };
      }
    }
    return { label, line, terms: this.conjunction() };
  }

  conjunction(): Term[] {
    const terms = [this.term()];
    while (this.peek().text === "&") {
      this.next();
      this.skipNewlines();
      terms.push(this.term());
    }
    if (this.peek().text === "|") fail(this.peek().line, "a disjunction");
    return terms;
  }

  term(): Term {
    const t = this.peek();
    if (t.text === "{" && t.kind === "op") {
      this.next();
      const fields = this.fields("}");
      if (fields.length === 0) fail(t.line, "an empty struct");
      return { kind: "struct", fields };
    }
    if (t.kind === "op" && ["<", "<=", ">", ">=", "=~", "!~"].includes(t.text)) {
      this.next();
      return { kind: "bound", op: t.text as "<", operand: this.operand() };
    }
    if (t.text === "!=") fail(t.line, "a != bound");
    return { kind: "eq", operand: this.operand() };
  }

  operand(): Operand {
    const t = this.next();
    if (t.kind === "string") return { string: t.text };
    if (t.kind === "ident") {
      if (t.text === "time" && this.peek().text === ".") return { string: this.timeParse(t) };
      if (["true", "false", "null", "string", "int", "number", "bool", "_"].includes(t.text)) {
        fail(t.line, `${t.text} (only string literals are read)`);
      }
      if (this.peek().text === "." || this.peek().text === "(") {
        fail(t.line, `${t.text}${this.peek().text}… (a selector or builtin other than time.Parse)`);
      }
      return { ref: t.text, line: t.line };
    }
    return fail(t.line, `${JSON.stringify(t.text)} (only string literals are read)`);
  }

  /** `time.Parse(time.RFC3339, "…")`, already in the UTC form CUE formats it in. */
  timeParse(time: Token): string {
    this.expect(".");
    this.expect("Parse");
    this.expect("(");
    this.expect("time");
    this.expect(".");
    const layout = this.next();
    if (layout.text !== "RFC3339" && layout.text !== "RFC3339Nano") {
      fail(layout.line, `time.Parse with layout ${layout.text}`);
    }
    this.expect(",");
    const value = this.next();
    if (value.kind !== "string") fail(value.line, "time.Parse of something other than a string");
    this.expect(")");
    // CUE's time.Parse yields the time formatted as RFC3339Nano in UTC: the same text only when
    // it is already in that form (Z, no trailing zero in the fraction).
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?Z$/.test(value.text)) {
      fail(
        time.line,
        `time.Parse(…, ${
          JSON.stringify(value.text)
        }): only times written as CUE formats them (UTC, Z) are read`,
      );
    }
    const date = new Date(value.text);
    if (
      Number.isNaN(date.getTime()) || date.toISOString().slice(0, 19) !== value.text.slice(0, 19)
    ) {
      fail(time.line, `${JSON.stringify(value.text)} is no time`);
    }
    return value.text;
  }
}

/** The string a reference names: a field of an enclosing struct whose value is one string. */
function resolve(ref: string, line: number, scopes: readonly (readonly Field[])[]): string {
  for (let i = scopes.length - 1; i >= 0; i--) {
    const found = scopes[i]!.filter((f) => f.label === ref);
    if (found.length === 0) continue;
    const strings = new Set<string>();
    for (const field of found) {
      for (const term of field.terms) {
        if (term.kind !== "eq" || !("string" in term.operand)) {
          fail(line, `${ref} does not name one string`);
        }
        strings.add(term.operand.string);
      }
    }
    if (strings.size !== 1) fail(line, `${ref} does not name one string`);
    return [...strings][0]!;
  }
  return fail(line, `${ref} names no field (references to the attestation are not read)`);
}

function literal(operand: Operand, scopes: readonly (readonly Field[])[]): string {
  return JSON.stringify(
    "string" in operand ? operand.string : resolve(operand.ref, operand.line, scopes),
  );
}

function checkRegExp(pattern: string, line: number): void {
  if (/\\[pP]/.test(pattern)) {
    fail(line, `the regexp ${JSON.stringify(pattern)} has Unicode classes`);
  }
  if (/\(\?/.test(pattern)) {
    fail(line, `the regexp ${JSON.stringify(pattern)} has flags or groups (?…)`);
  }
}

/** The clauses (all must hold) a struct's fields put on the map `target`. */
function clauses(
  fields: readonly Field[],
  target: string,
  scopes: readonly (readonly Field[])[],
): string[] {
  const inner = [...scopes, fields];
  return fields.map((field) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(field.label) || CEL_RESERVED.has(field.label)) {
      fail(field.line, `the label ${JSON.stringify(field.label)}, which CEL cannot select`);
    }
    const value = `${target}.${field.label}`;
    const checks = field.terms.flatMap((term): string[] => {
      switch (term.kind) {
        case "struct":
          // A CUE struct is not unified with a string, list or null: the field must be a map.
          return [`type(${value}) == map`, ...clauses(term.fields, value, inner)];
        case "eq":
          return [`${value} == ${literal(term.operand, inner)}`];
        case "bound": {
          const operand = literal(term.operand, inner);
          if (term.op === "=~" || term.op === "!~") {
            // Go's regexp and CEL's (RE2JS) read RE2 alike, but `matches` over every attestation
            // of the type (up to 64 statements of 256 KiB) is over toolkit's CEL cost limit.
            checkRegExp(JSON.parse(operand), field.line);
            fail(
              field.line,
              `the regexp ${term.op}${operand}: CEL matches over every attestation of the type is over toolkit's CEL cost limit`,
            );
          }
          return [`${value} ${term.op} ${operand}`];
        }
      }
    });
    return `(!has(${value}) || ${checks.length === 1 ? checks[0] : `(${checks.join(" && ")})`})`;
  });
}

/**
 * The CEL condition of a policy-controller attestation's CUE policy: true when every verified
 * attestation of the predicate type unifies with the CUE as policy-controller checks it.
 */
export function translateCuePolicy(text: string): CueTranslation {
  try {
    const fields = new Parser(tokenize(text)).file();
    if (fields.length === 0) return { refused: "an empty CUE policy" };
    const body = clauses(fields, "s", []).join(" && ");
    return { expression: `attestations[predicateType].all(s, ${body})` };
  } catch (error) {
    if (!(error instanceof CueRefusal)) throw error;
    return { refused: error.message };
  }
}
