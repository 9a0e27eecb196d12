/**
 * `WWW-Authenticate` challenges (RFC 7235): `Bearer realm="…",service="…",scope="…"`,
 * `Basic realm="…"`, several challenges in one header (or several headers, which `Headers.get`
 * joins with ", "), quoted values holding commas and escaped quotes, `token68` credentials.
 *
 * @module
 */

/** One challenge of a `WWW-Authenticate` header. */
export interface AuthChallenge {
  /** The scheme, lowercased: `bearer`, `basic`. */
  readonly scheme: string;
  /** The auth-params with lowercased names: `realm`, `service`, `scope`, `error`. */
  readonly params: Readonly<Record<string, string>>;
  /** The token68 form (`Negotiate abc==`), when the challenge uses it instead of params. */
  readonly token68?: string;
}

const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const TOKEN68_CHAR = /[A-Za-z0-9\-._~+/]/;

/** A small cursor over the header text. */
class Cursor {
  i = 0;
  constructor(readonly s: string) {}
  get done(): boolean {
    return this.i >= this.s.length;
  }
  peek(): string {
    return this.s[this.i] ?? "";
  }
  skipSpaces(): void {
    while (this.peek() === " " || this.peek() === "\t") this.i++;
  }
  read(pattern: RegExp): string {
    const start = this.i;
    while (!this.done && pattern.test(this.peek())) this.i++;
    return this.s.slice(start, this.i);
  }
  /** Reads a quoted string starting at the opening quote; an unterminated one runs to the end. */
  readQuoted(): string {
    this.i++; // opening quote
    let value = "";
    while (!this.done) {
      const c = this.peek();
      this.i++;
      if (c === '"') return value;
      if (c === "\\" && !this.done) {
        value += this.peek();
        this.i++;
      } else {
        value += c;
      }
    }
    return value;
  }
  /** Reads an unquoted value leniently: up to a comma or white space. */
  readBare(): string {
    const start = this.i;
    while (!this.done && !/[,\s]/.test(this.peek())) this.i++;
    return this.s.slice(start, this.i);
  }
}

/**
 * Parses a `WWW-Authenticate` header into its challenges, in order. Unparsable fragments are
 * skipped rather than failing, so a garbled header gives fewer (or no) challenges.
 */
export function parseAuthenticate(header: string | null | undefined): AuthChallenge[] {
  if (!header) return [];
  const c = new Cursor(header);
  const challenges: AuthChallenge[] = [];
  while (!c.done) {
    while (!c.done && /[\s,]/.test(c.peek())) c.i++;
    if (c.done) break;
    const scheme = c.read(TCHAR);
    if (scheme === "") {
      c.i++; // garbage: skip it
      continue;
    }
    const params: Record<string, string> = {};
    let token68: string | undefined;
    let sawComma = false;
    let first = true;
    for (;;) {
      const save = c.i;
      while (!c.done && /\s/.test(c.peek())) c.i++;
      if (c.done) break;
      if (c.peek() === ",") {
        c.i++;
        sawComma = true;
        continue;
      }
      const nameStart = c.i;
      const name = c.read(TCHAR);
      if (name === "") {
        // token68 may start with "/" which is no tchar
        if (first && !sawComma && TOKEN68_CHAR.test(c.peek())) {
          c.i = nameStart;
          token68 = c.read(TOKEN68_CHAR) + c.read(/=/);
          first = false;
          continue;
        }
        c.i = save;
        break;
      }
      const afterName = c.i;
      c.skipSpaces();
      if (c.peek() === "=") {
        const equals = c.read(/=/);
        c.skipSpaces();
        const atEnd = c.done || c.peek() === ",";
        if (first && !sawComma && (equals.length > 1 || atEnd)) {
          // `Basic dXNlcjpwYXNz==`: a token68 ending in padding
          token68 = header.slice(nameStart, afterName) + equals;
          first = false;
          continue;
        }
        if (equals.length > 1) {
          c.i = save;
          break;
        }
        const value = c.peek() === '"' ? c.readQuoted() : c.readBare();
        params[name.toLowerCase()] = value;
        first = false;
        continue;
      }
      if (first && !sawComma) {
        // a token68 without padding
        c.i = nameStart;
        token68 = c.read(TOKEN68_CHAR) + c.read(/=/);
        first = false;
        continue;
      }
      // a bare token after a comma: the scheme of the next challenge
      c.i = nameStart;
      break;
    }
    challenges.push(
      token68 === undefined
        ? { scheme: scheme.toLowerCase(), params }
        : { scheme: scheme.toLowerCase(), params, token68 },
    );
  }
  return challenges;
}
