/**
 * YAML as JSON, for `-j/--tojson`: aliases resolved, merge keys applied (a map's own keys first,
 * then those its merge keys bring in, the first merged map winning), every key a string as the
 * file writes it (`5`, `true`, `0.1`), and the keys in the file's order. Numbers keep their value
 * (`0x1F` is 31); `.inf` and `.nan`, which JSON has no words for, are refused. Printed compact on
 * one line, or indented by `indent` spaces.
 *
 * @module
 */
import { type Document, isAlias, isMap, isScalar, isSeq, type Node } from "yaml";
import { ToolkitError } from "../../lib/errors.ts";
import { entriesOf } from "./locate.ts";

/** A JSON value in the order it is printed. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly entries: readonly (readonly [string, JsonValue])[] };

/** The JSON value of `node` of `doc`. */
export function jsonValue(
  node: Node | null,
  doc: Document,
  above: Set<Node> = new Set(),
): JsonValue {
  if (isAlias(node)) {
    const target = (node.resolve(doc) as Node | undefined) ?? null;
    if (target !== null && above.has(target)) {
      throw new ToolkitError(`Cannot print *${node.source} as JSON: it contains itself`);
    }
    return jsonValue(target, doc, above);
  }
  if (node === null) return null;
  if (isScalar(node)) {
    const value = node.value;
    if (value === null || value === undefined) return null;
    if (typeof value === "boolean" || typeof value === "string") return value;
    if (typeof value === "number") {
      if (!Number.isFinite(value)) {
        throw new ToolkitError(`Cannot print ${String(node.source ?? value)} as JSON`);
      }
      return value;
    }
    if (typeof value === "bigint") return Number(value);
    return typeof node.source === "string" ? node.source : String(value);
  }
  const inner = new Set(above).add(node);
  if (isSeq(node)) return node.items.map((item) => jsonValue((item as Node) ?? null, doc, inner));
  if (isMap(node)) {
    return {
      entries: entriesOf(doc, node, true).map((entry) =>
        [entry.key, jsonValue((entry.pair.value as Node | null) ?? null, doc, inner)] as const
      ),
    };
  }
  return null;
}

/** `value` as JSON text: on one line, or with `indent` spaces per level. */
export function jsonText(value: JsonValue, indent?: number): string {
  const pad = (level: number) => indent === undefined ? "" : `\n${" ".repeat(indent * level)}`;
  const colon = ":";
  const write = (v: JsonValue, level: number): string => {
    if (v === null || typeof v !== "object") return JSON.stringify(v);
    if (Array.isArray(v)) {
      if (v.length === 0) return "[]";
      const items = v.map((item) => pad(level + 1) + write(item, level + 1));
      return `[${items.join(",")}${pad(level)}]`;
    }
    const { entries } = v as { entries: readonly (readonly [string, JsonValue])[] };
    if (entries.length === 0) return "{}";
    const items = entries.map(([key, item]) =>
      `${pad(level + 1)}${JSON.stringify(key)}${colon}${indent === undefined ? "" : " "}${
        write(item, level + 1)
      }`
    );
    return `{${items.join(",")}${pad(level)}}`;
  };
  return write(value, 0);
}

/** The JSON value of a map of one path to one value (`-j -p pv`). */
export function jsonEntry(path: string, value: JsonValue): JsonValue {
  return { entries: [[path, value]] };
}
