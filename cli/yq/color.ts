/**
 * YAML with colours, for `-C/--colors` (yq's colours): keys cyan, strings green, numbers and
 * booleans magenta, anchors and aliases yellow. The text is tokenised by the `yaml` package's
 * lexer, so that what is coloured is what a YAML reader sees.
 *
 * @module
 */
import { Lexer } from "yaml";
import { plainKind } from "./scalar.ts";

const CYAN = "\x1b[36m";
const GREEN = "\x1b[32m";
const MAGENTA = "\x1b[95m";
const YELLOW = "\x1b[93m";
const RESET = "\x1b[0m";

/** The lexer's mark before a scalar (it has no characters in the text). */
const SCALAR = "\u001f";
// deno-lint-ignore no-control-regex
const MARKER = /^[\u0000-\u0008\u000e-\u001f]$/;

/** `yaml` with ANSI colours. */
export function colorize(yaml: string): string {
  const tokens = [...new Lexer().lex(yaml)];
  let out = "";
  let scalar = false;
  for (const [i, token] of tokens.entries()) {
    if (token === SCALAR) {
      scalar = true;
      continue;
    }
    if (MARKER.test(token)) continue;
    const paint = (color: string) => (out += `${color}${token}${RESET}`);
    if (token.startsWith("&") || token.startsWith("*")) {
      paint(YELLOW);
    } else if (scalar || token.startsWith("'") || token.startsWith('"')) {
      let next = i + 1;
      while (tokens[next] === " " || tokens[next] === "\t" || tokens[next] === SCALAR) next++;
      if (tokens[next] === ":") paint(CYAN);
      else if (/^["'|>]/.test(token) || /^\s/.test(token)) paint(GREEN);
      else {
        const kind = plainKind(token);
        paint(kind === "int" || kind === "float" || kind === "bool" ? MAGENTA : GREEN);
      }
    } else {
      out += token;
    }
    scalar = false;
  }
  return out;
}
