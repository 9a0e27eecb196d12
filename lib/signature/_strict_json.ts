/**
 * A strict JSON reader for signed payloads. `JSON.parse` silently keeps the last of duplicated
 * keys, and a signed payload with `{"critical": A, "critical": B}` must not be read as either
 * one, so this parser rejects duplicated keys (as containers/image does), limits nesting, and
 * reads objects into prototype-less records.
 *
 * @module
 */

import { ToolkitError } from "../errors.ts";

/** A JSON value as this parser returns it; objects have no prototype. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** A JSON text that is not well formed or breaks a strictness rule. */
export class StrictJsonError extends ToolkitError {
  /** Creates the error for a problem at `offset` in the text. */
  constructor(detail: string, offset: number) {
    super(`${detail} at offset ${offset}`);
    this.name = "StrictJsonError";
  }
}

const MAX_DEPTH = 64;

const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

const NUMBER_REGEXP = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/**
 * Parses `text` as one JSON value, failing on duplicated object keys, nesting deeper than 64
 * levels, and anything after the value other than white space.
 */
export function parseStrictJson(text: string): JsonValue {
  const parser = new Parser(text);
  parser.skipSpace();
  const value = parser.value(0);
  parser.skipSpace();
  if (parser.pos !== text.length) {
    throw new StrictJsonError("Unexpected data after JSON value", parser.pos);
  }
  return value;
}

class Parser {
  pos = 0;
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  skipSpace(): void {
    const text = this.#text;
    while (this.pos < text.length) {
      const c = text.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      this.pos++;
    }
  }

  value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) throw new StrictJsonError("JSON nested too deeply", this.pos);
    const c = this.#text[this.pos];
    switch (c) {
      case "{":
        return this.object(depth);
      case "[":
        return this.array(depth);
      case '"':
        return this.string();
      case "t":
        return this.literal("true", true);
      case "f":
        return this.literal("false", false);
      case "n":
        return this.literal("null", null);
      default:
        if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
        throw new StrictJsonError(
          c === undefined ? "Unexpected end of JSON" : `Unexpected character ${JSON.stringify(c)}`,
          this.pos,
        );
    }
  }

  literal<T extends JsonValue>(word: string, result: T): T {
    if (!this.#text.startsWith(word, this.pos)) {
      throw new StrictJsonError("Invalid JSON literal", this.pos);
    }
    this.pos += word.length;
    return result;
  }

  number(): number {
    NUMBER_REGEXP.lastIndex = this.pos;
    const match = NUMBER_REGEXP.exec(this.#text);
    if (match === null) throw new StrictJsonError("Invalid JSON number", this.pos);
    this.pos += match[0].length;
    const result = Number(match[0]);
    if (!Number.isFinite(result)) throw new StrictJsonError("JSON number out of range", this.pos);
    return result;
  }

  string(): string {
    const text = this.#text;
    let pos = this.pos + 1;
    let result = "";
    let chunkStart = pos;
    for (;;) {
      if (pos >= text.length) throw new StrictJsonError("Unterminated JSON string", this.pos);
      const code = text.charCodeAt(pos);
      if (code === 0x22) {
        result += text.slice(chunkStart, pos);
        this.pos = pos + 1;
        return result;
      }
      if (code < 0x20) throw new StrictJsonError("Control character in JSON string", pos);
      if (code !== 0x5c) {
        pos++;
        continue;
      }
      result += text.slice(chunkStart, pos);
      const escape = text[pos + 1];
      if (escape === "u") {
        const hex = text.slice(pos + 2, pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new StrictJsonError("Invalid \\u escape", pos);
        result += String.fromCharCode(parseInt(hex, 16));
        pos += 6;
      } else {
        const replacement = escape === undefined ? undefined : ESCAPES[escape];
        if (replacement === undefined) {
          throw new StrictJsonError("Invalid escape in JSON string", pos);
        }
        result += replacement;
        pos += 2;
      }
      chunkStart = pos;
    }
  }

  array(depth: number): JsonValue[] {
    const result: JsonValue[] = [];
    this.pos++;
    this.skipSpace();
    if (this.#text[this.pos] === "]") {
      this.pos++;
      return result;
    }
    for (;;) {
      this.skipSpace();
      result.push(this.value(depth + 1));
      this.skipSpace();
      const c = this.#text[this.pos];
      this.pos++;
      if (c === "]") return result;
      if (c !== ",") throw new StrictJsonError("Expected , or ] in JSON array", this.pos - 1);
    }
  }

  object(depth: number): { [key: string]: JsonValue } {
    const result: { [key: string]: JsonValue } = Object.create(null);
    this.pos++;
    this.skipSpace();
    if (this.#text[this.pos] === "}") {
      this.pos++;
      return result;
    }
    for (;;) {
      this.skipSpace();
      if (this.#text[this.pos] !== '"') {
        throw new StrictJsonError("Expected a JSON object key", this.pos);
      }
      const keyPos = this.pos;
      const key = this.string();
      if (Object.hasOwn(result, key)) {
        throw new StrictJsonError(`Duplicate key ${JSON.stringify(key)}`, keyPos);
      }
      this.skipSpace();
      if (this.#text[this.pos] !== ":") {
        throw new StrictJsonError("Expected : in JSON object", this.pos);
      }
      this.pos++;
      this.skipSpace();
      result[key] = this.value(depth + 1);
      this.skipSpace();
      const c = this.#text[this.pos];
      this.pos++;
      if (c === "}") return result;
      if (c !== ",") throw new StrictJsonError("Expected , or } in JSON object", this.pos - 1);
    }
  }
}
