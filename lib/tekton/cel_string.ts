/**
 * CEL string literals for values toolkit puts into Tekton CEL filters (a branch, a repository
 * path, a Secret's name). A value is always written as one single-quoted literal whose quotes,
 * backslashes and control characters are escaped, so a branch such as `it's` or `a\' || true`
 * stays a string and cannot end the literal or add to the expression.
 *
 * @module
 */

/**
 * `value` as a single-quoted CEL string literal: `'` and `\` are escaped with a backslash, the
 * usual control characters as `\n`, `\r`, `\t`, the other C0/C1 controls and DEL as `\uXXXX`.
 * Every other character stands as it is (CEL source is UTF-8).
 */
export function celString(value: string): string {
  let out = "'";
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (char === "\\") out += "\\\\";
    else if (char === "'") out += "\\'";
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) {
      out += `\\u${code.toString(16).padStart(4, "0")}`;
    } else out += char;
  }
  return `${out}'`;
}
