/**
 * Where a path leads in one YAML document: the nodes it matches, each with its place (the
 * document itself, the value of a key, an item of a sequence), and, for writes, where the
 * document stops short of the path, so that the missing keys and items can be created.
 *
 * Reading follows aliases and YAML merge keys (`<<: *defaults`) and passes over what does not
 * fit (a key of a string matches nothing). Writing and deleting refuse to go through an alias
 * (that would change every place the anchor is used); writing also refuses to go into a
 * string, number or boolean, and an index past the end of a sequence.
 *
 * @module
 */
import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type Node,
  type Pair,
  type YAMLMap,
  type YAMLSeq,
} from "yaml";
import { ToolkitError } from "../../lib/errors.ts";
import { formatPath, type Segment } from "./path.ts";

/** Where a node is. */
export type Place =
  /** The document's top node. */
  | { readonly kind: "root" }
  /** The value of a key of a mapping; `parent` is the mapping's place. */
  | { readonly kind: "pair"; readonly map: YAMLMap; readonly pair: Pair; readonly parent: Place }
  /** An item of a sequence; `parent` is the sequence's place. */
  | {
    readonly kind: "item";
    readonly seq: YAMLSeq;
    readonly index: number;
    readonly parent: Place;
  };

/** A node the path leads to. */
export interface Found {
  /** Where it is (for reads through an alias or a merge key: where it was reached from). */
  readonly place: Place;
  /** The node (an alias is resolved when reading); `null` for a key with no value node. */
  readonly node: Node | null;
  /** The path that leads there, with indices and keys spelled out. */
  readonly path: string;
}

/** Where a document stops short of a path (for writes). */
export interface Missing {
  /** The place of the last node that exists. */
  readonly place: Place;
  /** That node: a mapping, a sequence, or `null` for nothing or a null value. */
  readonly node: YAMLMap | YAMLSeq | null;
  /** The part of the path that does not exist yet. */
  readonly rest: readonly Segment[];
  /** The path to the last node that exists. */
  readonly path: string;
}

/** What a path leads to. */
export interface Located {
  /** The nodes it matches. */
  readonly found: Found[];
  /** Where it goes past what exists (only when writing). */
  readonly missing: Missing[];
}

/** What the path is followed for. */
export type LocateMode = "read" | "write" | "delete";

/** A path that cannot be followed for a write or a delete. */
export class PathTargetError extends ToolkitError {
  /**
   * Creates the error: `path` cannot be followed because what is at `at` (a path, `""` for the
   * document) is as `reason` says (`holds a string, which has no keys`).
   */
  constructor(path: string, at: string, reason: string) {
    super(`Cannot follow path "${path}": ${at === "" ? "the document" : `"${at}"`} ${reason}`);
    this.name = "PathTargetError";
  }
}

/** Two parts of a path joined: `a.b` and `c` → `a.b.c`; `a` and `[0]` → `a[0]`. */
export function joinPath(head: string, tail: string): string {
  if (head === "" || tail === "") return head + tail;
  return tail.startsWith("[") ? head + tail : `${head}.${tail}`;
}

/** The node at a place of `doc`. */
export function nodeAt(doc: Document, place: Place): Node | null {
  switch (place.kind) {
    case "root":
      return (doc.contents as Node | null) ?? null;
    case "pair":
      return (place.pair.value as Node | null) ?? null;
    case "item":
      return (place.seq.items[place.index] as Node | null) ?? null;
  }
}

/** True for nothing, or a null scalar (`key:`, `key: ~`, `key: null`). */
export function isNothing(node: Node | null): boolean {
  return node === null || (isScalar(node) && node.value === null);
}

/** What a node is, in words, for messages. */
export function describeNode(node: Node | null): string {
  if (isNothing(node)) return "null";
  if (isMap(node)) return "a mapping";
  if (isSeq(node)) return "a sequence";
  if (isAlias(node)) return `an alias (*${node.source})`;
  if (isScalar(node)) {
    switch (typeof node.value) {
      case "string":
        return "a string";
      case "number":
      case "bigint":
        return "a number";
      case "boolean":
        return "a boolean";
    }
  }
  return "a value";
}

/** True when a scalar key or field reads `text` (its value, or its text as written). */
export function scalarReads(node: unknown, text: string): boolean {
  if (!isScalar(node)) return false;
  return String(node.value) === text || node.source === text;
}

/** The pair of `map` whose key reads `name`. */
export function pairOf(map: YAMLMap, name: string): Pair | undefined {
  return map.items.find((pair) => scalarReads(pair.key, name));
}

/** The maps a YAML merge key (`<<`) of `map` brings in, nearest first. */
function mergedMaps(doc: Document, map: YAMLMap): YAMLMap[] {
  const merge = map.items.find((pair) => isScalar(pair.key) && pair.key.value === "<<");
  if (!merge) return [];
  const sources = isSeq(merge.value) ? merge.value.items : [merge.value];
  const maps: YAMLMap[] = [];
  for (const source of sources) {
    const resolved = isAlias(source) ? source.resolve(doc) : source;
    if (isMap(resolved)) maps.push(resolved);
  }
  return maps;
}

/** True when a mapping item matches `[field==value]`. */
function itemMatches(
  doc: Document,
  item: unknown,
  field: readonly string[],
  value: string,
): boolean {
  let node: unknown = isAlias(item) ? item.resolve(doc) : item;
  for (const name of field) {
    if (!isMap(node)) return false;
    const pair = pairOf(node, name);
    node = pair?.value;
    if (isAlias(node)) node = node.resolve(doc);
  }
  return scalarReads(node, value);
}

class Walk {
  readonly found: Found[] = [];
  readonly missing: Missing[] = [];

  constructor(
    readonly doc: Document,
    readonly mode: LocateMode,
    readonly path: string,
  ) {}

  fail(concrete: Segment[], reason: string): never {
    throw new PathTargetError(this.path, formatPath(concrete), reason);
  }

  step(
    node: Node | null,
    place: Place,
    segments: readonly Segment[],
    concrete: Segment[],
  ): void {
    if (isAlias(node)) {
      if (segments.length === 0 && this.mode !== "read") {
        // The alias itself is what is written or deleted.
        this.found.push({ place, node, path: formatPath(concrete) });
        return;
      }
      if (this.mode !== "read") {
        this.fail(
          concrete,
          `is an alias (*${node.source}); change the node its anchor (&${node.source}) is on`,
        );
      }
      node = (node.resolve(this.doc) as Node | undefined) ?? null;
    }
    const [segment, ...rest] = segments;
    if (segment === undefined) {
      this.found.push({ place, node, path: formatPath(concrete) });
      return;
    }
    if (isNothing(node)) {
      if (this.mode === "write") {
        this.missing.push({ place, node: null, rest: segments, path: formatPath(concrete) });
      }
      return;
    }
    if (isMap(node)) return this.inMap(node, place, segment, rest, concrete);
    if (isSeq(node)) return this.inSeq(node, place, segment, rest, concrete);
    if (this.mode === "write") {
      this.fail(
        concrete,
        `holds ${describeNode(node)}, which has no ${segment.kind === "key" ? "keys" : "items"}`,
      );
    }
  }

  inMap(map: YAMLMap, place: Place, segment: Segment, rest: Segment[], concrete: Segment[]): void {
    switch (segment.kind) {
      case "key": {
        const pair = pairOf(map, segment.name);
        if (pair) {
          return this.step(
            (pair.value as Node | null) ?? null,
            { kind: "pair", map, pair, parent: place },
            rest,
            [...concrete, segment],
          );
        }
        if (this.mode === "read") {
          for (const merged of mergedMaps(this.doc, map)) {
            const inherited = pairOf(merged, segment.name);
            if (inherited) {
              return this.step(
                (inherited.value as Node | null) ?? null,
                { kind: "pair", map: merged, pair: inherited, parent: place },
                rest,
                [...concrete, segment],
              );
            }
          }
        }
        if (this.mode === "write") {
          this.missing.push({
            place,
            node: map,
            rest: [segment, ...rest],
            path: formatPath(concrete),
          });
        }
        return;
      }
      case "wildcard":
        for (const pair of map.items) {
          if (isScalar(pair.key) && pair.key.value === "<<") continue;
          const name = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
          this.step(
            (pair.value as Node | null) ?? null,
            { kind: "pair", map, pair, parent: place },
            rest,
            [...concrete, { kind: "key", name }],
          );
        }
        return;
      default:
        if (this.mode === "write") {
          this.fail(
            concrete,
            `holds a mapping, which has no ${
              segment.kind === "append" ? "end to add to" : "items"
            }`,
          );
        }
    }
  }

  inSeq(seq: YAMLSeq, place: Place, segment: Segment, rest: Segment[], concrete: Segment[]): void {
    const at = (index: number) => {
      this.step(
        (seq.items[index] as Node | null) ?? null,
        { kind: "item", seq, index, parent: place },
        rest,
        [...concrete, { kind: "index", index }],
      );
    };
    const count = seq.items.length;
    let index: number | undefined;
    switch (segment.kind) {
      case "wildcard":
        for (let i = 0; i < count; i++) at(i);
        return;
      case "match": {
        let matched = false;
        seq.items.forEach((item, i) => {
          if (itemMatches(this.doc, item, segment.field, segment.value)) {
            matched = true;
            at(i);
          }
        });
        if (!matched && this.mode === "write") {
          this.missing.push({
            place,
            node: seq,
            rest: [segment, ...rest],
            path: formatPath(concrete),
          });
        }
        return;
      }
      case "append":
        if (this.mode === "write") {
          this.missing.push({
            place,
            node: seq,
            rest: [segment, ...rest],
            path: formatPath(concrete),
          });
        }
        return;
      case "index":
        index = segment.index;
        break;
      case "key":
        if (!/^[0-9]+$/.test(segment.name)) {
          if (this.mode === "write") {
            this.fail(
              concrete,
              `holds a sequence, which has no key "${segment.name}" (an index is [0])`,
            );
          }
          return;
        }
        index = Number(segment.name);
        break;
    }
    const resolved = index < 0 ? count + index : index;
    if (resolved >= 0 && resolved < count) return at(resolved);
    if (this.mode !== "write") return;
    if (resolved === count) {
      this.missing.push({
        place,
        node: seq,
        rest: [{ kind: "append" }, ...rest],
        path: formatPath(concrete),
      });
      return;
    }
    this.fail(
      concrete,
      `has ${count} item${count === 1 ? "" : "s"}, not [${index}] (add one with [${count}] or [+])`,
    );
  }
}

/** Follows `segments` in `doc`. */
export function locate(doc: Document, segments: readonly Segment[], mode: LocateMode): Located {
  const walk = new Walk(doc, mode, formatPath(segments));
  walk.step((doc.contents as Node | null) ?? null, { kind: "root" }, segments, []);
  return { found: walk.found, missing: walk.missing };
}
