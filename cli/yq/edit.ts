/**
 * Reading and changing a YAML document at a path, on the `yaml` package's node tree, so that
 * comments, key order, anchors and the style of what is not changed stay. Writing creates the
 * missing maps, sequences and `[name==x]` elements on the way (igc's `yq w` silently did nothing);
 * a value keeps its text (`1.10` stays `1.10`: the number keeps its fraction digits) and, written
 * over a quoted string, stays a string in the same quotes; `--tag` forces a type.
 *
 * @module
 */
import {
  Document,
  isMap,
  isScalar,
  isSeq,
  type Node,
  parseDocument,
  Scalar,
  YAMLMap,
  YAMLSeq,
} from "yaml";
import { UsageError } from "../../lib/errors.ts";
import type { PathSegment } from "./path.ts";

/** The types `--tag` forces. */
export type YqTag = "!!str" | "!!int" | "!!float" | "!!bool" | "!!null";

function scalarText(node: unknown): string | undefined {
  if (isScalar(node)) return node.value === null ? "null" : String(node.value);
  return undefined;
}

function matches(item: unknown, key: string, value: string): boolean {
  return isMap(item) && scalarText(item.get(key, true)) === value;
}

/** The value of `text` as a YAML node: its type forced by `tag`, or as YAML reads it. */
export function makeValue(text: string, tag?: YqTag, existing?: unknown): Node {
  switch (tag) {
    case "!!str":
      return new Scalar(text);
    case "!!int":
      if (!/^[-+]?\d+$/.test(text.trim())) throw new UsageError(`"${text}" is not an !!int`);
      return new Scalar(Number(text));
    case "!!float": {
      const n = Number(text);
      if (text.trim() === "" || Number.isNaN(n)) throw new UsageError(`"${text}" is not a !!float`);
      const node = parseDocument(text).contents;
      return isScalar(node) && typeof node.value === "number" ? node : new Scalar(n);
    }
    case "!!bool":
      if (!/^(true|false)$/i.test(text)) throw new UsageError(`"${text}" is not a !!bool`);
      return new Scalar(text.toLowerCase() === "true");
    case "!!null":
      return new Scalar(null);
  }
  if (
    isScalar(existing) && typeof existing.value === "string" &&
    (existing.type === Scalar.QUOTE_DOUBLE || existing.type === Scalar.QUOTE_SINGLE)
  ) {
    const node = new Scalar(text);
    node.type = existing.type;
    return node;
  }
  const parsed = parseDocument(text);
  if (parsed.errors.length > 0 || parsed.contents === null) return new Scalar(text);
  const node = parsed.contents as Node;
  // A value keeps its text: one YAML would write otherwise (010 read as 10) stays a string.
  if (isScalar(node) && String(parsed).trim() !== text.trim()) return new Scalar(text);
  return node;
}

/** Every node the path reaches, with where it is. */
export function readAt(root: unknown, path: readonly PathSegment[]): unknown[] {
  let current: unknown[] = [root];
  for (const seg of path) {
    const next: unknown[] = [];
    for (const node of current) {
      if (seg.kind === "key" && isMap(node)) {
        if (node.has(seg.key)) next.push(node.get(seg.key, true));
      } else if (seg.kind === "index" && isSeq(node)) {
        if (seg.index < node.items.length) next.push(node.items[seg.index]);
      } else if (seg.kind === "index" && isMap(node) && node.has(String(seg.index))) {
        next.push(node.get(String(seg.index), true));
      } else if (seg.kind === "wildcard") {
        if (isMap(node)) next.push(...node.items.map((p) => p.value));
        if (isSeq(node)) next.push(...node.items);
      } else if (seg.kind === "filter" && isSeq(node)) {
        next.push(...node.items.filter((i) => matches(i, seg.key, seg.value)));
      }
    }
    current = next;
  }
  return current;
}

/**
 * `container` with the path below it set to what `make` returns (given the node there now), the
 * missing collections made on the way. Returns the container, new when there was none.
 */
export function writeAt(
  container: unknown,
  path: readonly PathSegment[],
  make: (existing: unknown) => Node,
): unknown {
  if (path.length === 0) return make(container);
  const [seg, ...rest] = path as [PathSegment, ...PathSegment[]];
  switch (seg.kind) {
    case "key": {
      const map = isMap(container) ? container : new YAMLMap();
      if (
        !isMap(container) && container !== undefined && container !== null &&
        !isScalarNull(container)
      ) {
        throw new UsageError(`Cannot set key "${seg.key}": the node there is not a map`);
      }
      map.set(seg.key, writeAt(map.get(seg.key, true), rest, make));
      return map;
    }
    case "index": {
      if (isMap(container)) {
        container.set(
          String(seg.index),
          writeAt(container.get(String(seg.index), true), rest, make),
        );
        return container;
      }
      const seq = isSeq(container) ? container : new YAMLSeq();
      if (seg.index > seq.items.length) {
        throw new UsageError(
          `Cannot set index ${seg.index}: the sequence has ${seq.items.length} item(s)`,
        );
      }
      const value = writeAt(seq.items[seg.index], rest, make);
      if (seg.index === seq.items.length) seq.items.push(value);
      else seq.items[seg.index] = value;
      return seq;
    }
    case "wildcard": {
      if (isMap(container)) {
        for (const pair of container.items) pair.value = writeAt(pair.value, rest, make);
      } else if (isSeq(container)) {
        container.items = container.items.map((item) => writeAt(item, rest, make));
      }
      return container;
    }
    case "filter": {
      const seq = isSeq(container) ? container : new YAMLSeq();
      let found = seq.items.filter((i) => matches(i, seg.key, seg.value));
      if (found.length === 0) {
        const item = new YAMLMap();
        item.set(seg.key, parseDocument(seg.value).contents ?? seg.value);
        seq.items.push(item);
        found = [item];
      }
      for (const item of found) writeAt(item, rest, make);
      return seq;
    }
  }
}

function isScalarNull(node: unknown): boolean {
  return isScalar(node) && node.value === null;
}

/** Deletes what the path reaches; returns how many nodes were deleted. */
export function deleteAt(root: unknown, path: readonly PathSegment[]): number {
  const parents = readAt(root, path.slice(0, -1));
  const last = path.at(-1)!;
  let deleted = 0;
  for (const parent of parents) {
    if (last.kind === "key" && isMap(parent) && parent.delete(last.key)) deleted++;
    else if (last.kind === "index" && isSeq(parent) && last.index < parent.items.length) {
      parent.items.splice(last.index, 1);
      deleted++;
    } else if (last.kind === "wildcard" && (isMap(parent) || isSeq(parent))) {
      deleted += parent.items.length;
      parent.items = [];
    } else if (last.kind === "filter" && isSeq(parent)) {
      const before = parent.items.length;
      parent.items = parent.items.filter((i) => !matches(i, last.key, last.value));
      deleted += before - parent.items.length;
    }
  }
  return deleted;
}

/**
 * Merges `from` into `into` (both document roots): keys missing in `into` are added; with
 * `overwrite`, values that are there too are replaced (maps are merged key by key either way);
 * with `append`, sequences are appended to. Returns the merged root.
 */
export function mergeInto(
  into: unknown,
  from: unknown,
  options: { overwrite: boolean; append: boolean },
): unknown {
  if (isMap(into) && isMap(from)) {
    for (const pair of from.items) {
      const key = isScalar(pair.key) ? pair.key.value : pair.key;
      if (into.has(key)) {
        into.set(key, mergeInto(into.get(key, true), pair.value, options));
      } else into.set(key, pair.value);
    }
    return into;
  }
  if (isSeq(into) && isSeq(from) && options.append) {
    into.items.push(...from.items);
    return into;
  }
  if (into === undefined || into === null || isScalarNull(into)) return from;
  return options.overwrite ? from : into;
}

/** A new document holding `root`. */
export function documentOf(root: unknown): Document {
  const doc = new Document();
  doc.contents = root as Node;
  return doc;
}
