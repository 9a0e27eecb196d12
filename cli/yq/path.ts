/**
 * The paths of `toolkit yq`: dotted keys (`a.b.c`), indexes (`a[0]`, `a.0` on a sequence),
 * wildcards (`a.*.c`, `a[*]`), element filters (`a[name==x]`, `a.(name==x)` as yq v3 wrote them),
 * quoted keys with dots (`"a.b".c`), and the JSONPath igc users wrote (`$.a.b`,
 * `dependencies[?(@.name == "image")].version`). A path that cannot be read is a usage error that
 * says where.
 *
 * @module
 */
import { UsageError } from "../../lib/errors.ts";

/** One step of a path. */
export type PathSegment =
  | { readonly kind: "key"; readonly key: string }
  | { readonly kind: "index"; readonly index: number }
  | { readonly kind: "wildcard" }
  | { readonly kind: "filter"; readonly key: string; readonly value: string };

/** A path that cannot be read. */
export class PathSyntaxError extends UsageError {
  /** Creates the error for `path` at `position`. */
  constructor(path: string, position: number, detail: string) {
    super(`Cannot read the path "${path}" at character ${position + 1}: ${detail}`);
    this.name = "PathSyntaxError";
  }
}

function unquote(text: string): string {
  const t = text.trim();
  if ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'"))) {
    return t.slice(1, -1);
  }
  return t;
}

/** Parses a path. */
export function parsePath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  let i = 0;
  if (path.startsWith("$")) i = path[1] === "." ? 2 : 1;
  const fail = (detail: string): never => {
    throw new PathSyntaxError(path, i, detail);
  };
  while (i < path.length) {
    const c = path[i]!;
    if (c === ".") {
      if (i === 0 || path[i - 1] === ".") fail("an empty key");
      i++;
      if (i >= path.length) fail("the path ends with a dot");
      continue;
    }
    if (c === "[" || c === "(") {
      const close = c === "[" ? "]" : ")";
      let depth = 0;
      let j = i;
      let quote = "";
      for (; j < path.length; j++) {
        const d = path[j]!;
        if (quote) {
          if (d === quote) quote = "";
        } else if (d === '"' || d === "'") quote = d;
        else if (d === c) depth++;
        else if (d === close && --depth === 0) break;
      }
      if (j >= path.length) fail(`no closing ${close}`);
      const inner = path.slice(i + 1, j).trim();
      i = j + 1;
      if (inner === "*") {
        segments.push({ kind: "wildcard" });
        continue;
      }
      if (/^\d+$/.test(inner)) {
        segments.push({ kind: "index", index: Number(inner) });
        continue;
      }
      const jsonPath = /^\?\(\s*@\.([^=!<>\s]+)\s*==\s*(.+?)\s*\)$/.exec(inner);
      const plain = /^([^=\s]+)\s*==\s*(.+)$/.exec(inner);
      const filter = jsonPath ?? plain;
      if (filter) {
        segments.push({ kind: "filter", key: unquote(filter[1]!), value: unquote(filter[2]!) });
        continue;
      }
      if (/^["'].*["']$/.test(inner)) {
        segments.push({ kind: "key", key: unquote(inner) });
        continue;
      }
      fail(`"${inner}" is not an index, * or name==value`);
    }
    if (c === '"' || c === "'") {
      const end = path.indexOf(c, i + 1);
      if (end === -1) fail("an unclosed quote");
      segments.push({ kind: "key", key: path.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    let j = i;
    while (j < path.length && !".[(".includes(path[j]!)) j++;
    const key = path.slice(i, j);
    if (key === "*") segments.push({ kind: "wildcard" });
    else segments.push({ kind: "key", key });
    i = j;
  }
  if (segments.length === 0) throw new PathSyntaxError(path, 0, "an empty path");
  return segments;
}
