/**
 * Where a path leads in one YAML document: the nodes it matches, each with its place (the
 * document itself, the value of a key, an item of a sequence), and, for writes, where the
 * document stops short of the path, so that the missing keys and items can be created.
 *
 * - A key matches the pair whose key reads it; a glob (`there*`) the keys it matches; `*` every
 *   key or item; an index an item (from the end when negative), or on a mapping the key of that
 *   number.
 * - `**` is any depth: with more path after it, that path is followed from the node itself and
 *   from every mapping and sequence below it; at the end of a path it matches every leaf below
 *   (scalars and empty collections) when reading or writing, and every entry when deleting.
 * - A filter keeps the children (items of a sequence, values of a mapping) at which its path
 *   reaches a scalar that reads its value (a glob unless quoted).
 *
 * Reading follows aliases and YAML merge keys (`<<: *defaults`, the first map of a list winning,
 * as the merge-key specification says) and passes over what does not fit (a key of a string
 * matches nothing); an index before the start of a sequence is an error, as in yq. Writing and
 * deleting refuse to go through an alias (that would change every place the anchor is used);
 * writing also refuses to go into a string, number or boolean, and an index past the end of a
 * sequence. Nothing is created below a `**`, a glob or a filter that needs what is not there.
 *
 * The work is bounded: a walk that visits more than {@link MAX_STEPS} nodes (aliases can make a
 * small file a huge tree) stops with an error.
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
import { globMatch } from "../../lib/glob.ts";
import { formatPath, isGlobText, type MatchSegment, plainFields, type Segment } from "./path.ts";

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

/** One element of yq's path of a match: a key, or an index (as the path gave it). */
export type PathElement = string | number;

/** A node the path leads to. */
export interface Found {
  /** Where it is (for reads through an alias or a merge key: where it was reached from). */
  readonly place: Place;
  /** The node (an alias is resolved when reading); `null` for a key with no value node. */
  readonly node: Node | null;
  /** The path that leads there, with indices and keys spelled out. */
  readonly path: string;
  /** The same path as yq's elements (keys and indexes), for `-p` (see `yqPathString()`). */
  readonly elements: readonly PathElement[];
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

/** The most nodes one walk visits. */
export const MAX_STEPS = 1_000_000;

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

/** The text a scalar reads as: a string's value, another scalar's text as written. */
export function scalarText(node: unknown): string {
  if (!isScalar(node)) return "";
  if (typeof node.value === "string") return node.value;
  return typeof node.source === "string" ? node.source : String(node.value);
}

/** True when a scalar reads as `value`, a glob unless `quoted`. */
export function scalarMatches(node: unknown, value: string, quoted: boolean): boolean {
  if (!isScalar(node)) return false;
  if (!isGlobText(value, quoted)) return scalarReads(node, value);
  return globMatch(value, scalarText(node)) || globMatch(value, String(node.value));
}

/** The pair of `map` whose key reads `name`. */
export function pairOf(map: YAMLMap, name: string): Pair | undefined {
  return map.items.find((pair) => scalarReads(pair.key, name));
}

/** True for the merge key `<<` of a mapping. */
export function isMergeKey(pair: Pair): boolean {
  return isScalar(pair.key) && pair.key.value === "<<" && pair.key.type === "PLAIN";
}

/** The maps a YAML merge key (`<<`) of `map` brings in, nearest first. */
export function mergedMaps(doc: Document, map: YAMLMap): YAMLMap[] {
  const maps: YAMLMap[] = [];
  for (const merge of map.items.filter(isMergeKey)) {
    const sources = isSeq(merge.value) ? merge.value.items : [merge.value];
    for (const source of sources) {
      const resolved = isAlias(source) ? source.resolve(doc) : source;
      if (isMap(resolved)) maps.push(resolved);
    }
  }
  return maps;
}

/** One entry of a mapping as a path sees it. */
interface Entry {
  /** The pair (of the mapping itself, or of a map merged into it). */
  readonly pair: Pair;
  /** The mapping that holds the pair. */
  readonly map: YAMLMap;
  /** The key's text. */
  readonly key: string;
}

/** The text of a key (an alias key reads as what it refers to). */
function keyOf(doc: Document, key: unknown): string {
  const resolved = isAlias(key) ? key.resolve(doc) : key;
  return isScalar(resolved) ? scalarText(resolved) : String(resolved ?? "");
}

/**
 * The entries of `map`: its own pairs but the merge keys, then (when `merged`) the pairs the
 * merge keys bring in that no earlier entry has, the first merged map winning.
 */
export function entriesOf(
  doc: Document,
  map: YAMLMap,
  merged: boolean,
  seen: Set<YAMLMap> = new Set(),
): Entry[] {
  seen.add(map);
  const entries: Entry[] = [];
  const keys = new Set<string>();
  for (const pair of map.items) {
    if (isMergeKey(pair)) continue;
    const key = keyOf(doc, pair.key);
    keys.add(key);
    entries.push({ pair, map, key });
  }
  if (!merged) return entries;
  for (const source of mergedMaps(doc, map)) {
    if (seen.has(source)) continue;
    for (const entry of entriesOf(doc, source, true, seen)) {
      if (keys.has(entry.key)) continue;
      keys.add(entry.key);
      entries.push(entry);
    }
  }
  return entries;
}

/** Where a walk is: the segments it matched so far, as written and as yq's elements. */
interface Trail {
  readonly concrete: readonly Segment[];
  readonly elements: readonly PathElement[];
}

function extend(trail: Trail, segment: Segment, element: PathElement): Trail {
  return { concrete: [...trail.concrete, segment], elements: [...trail.elements, element] };
}

/** Where a step of a walk stands: the place, the rest of the path, and how it got there. */
interface Step {
  readonly place: Place;
  readonly rest: readonly Segment[];
  readonly trail: Trail;
  /** What is missing may be created (not below a `**`). */
  readonly create: boolean;
  /** The nodes above (an alias to one of them is not followed again). */
  readonly ancestors: ReadonlySet<Node>;
}

class Walk {
  readonly found: Found[] = [];
  readonly missing: Missing[] = [];
  #steps = 0;

  constructor(
    readonly doc: Document,
    readonly mode: LocateMode,
    readonly path: string,
  ) {}

  fail(trail: Trail, reason: string): never {
    throw new PathTargetError(this.path, formatPath(trail.concrete), reason);
  }

  #count(): void {
    if (++this.#steps > MAX_STEPS) {
      throw new ToolkitError(
        `Cannot follow path "${this.path}": it visits more than ${MAX_STEPS} nodes (aliases?)`,
      );
    }
  }

  #hit(place: Place, node: Node | null, trail: Trail): void {
    this.found.push({ place, node, path: formatPath(trail.concrete), elements: trail.elements });
  }

  /** Records what the document lacks, when writing and creating. */
  #lack(place: Place, node: YAMLMap | YAMLSeq | null, rest: readonly Segment[], trail: Trail) {
    this.missing.push({ place, node, rest, path: formatPath(trail.concrete) });
  }

  /** Follows `segments` from `node` at `place`; `create`: what is missing may be created. */
  step(
    node: Node | null,
    place: Place,
    segments: readonly Segment[],
    trail: Trail,
    create: boolean,
    ancestors: ReadonlySet<Node> = new Set(),
  ): void {
    this.#count();
    if (isAlias(node)) {
      if (segments.length === 0 && this.mode !== "read") {
        // The alias itself is what is written or deleted.
        this.#hit(place, node, trail);
        return;
      }
      if (this.mode !== "read") {
        this.fail(
          trail,
          `is an alias (*${node.source}); change the node its anchor (&${node.source}) is on`,
        );
      }
      const target = (node.resolve(this.doc) as Node | undefined) ?? null;
      if (target !== null && ancestors.has(target)) return; // an alias to its own ancestor
      node = target;
    }
    const [segment, ...rest] = segments;
    if (segment === undefined) {
      this.#hit(place, node, trail);
      return;
    }
    const within = node === null ? ancestors : new Set([...ancestors, node]);
    if (segment.kind === "deep") return this.deep(node, place, rest, trail, within);
    if (isNothing(node)) {
      if (this.mode === "write" && create) {
        this.#lack(place, null, segments, trail);
      }
      return;
    }
    const at: Step = { place, rest, trail, create, ancestors: within };
    if (isMap(node)) return this.inMap(node, segment, at);
    if (isSeq(node)) return this.inSeq(node, segment, at);
    if (
      this.mode === "read" && segment.kind === "match" && segment.path.length === 0 &&
      rest.length === 0 && scalarMatches(node, segment.value, segment.quoted)
    ) {
      // yq: a filter on a scalar at the end of a path keeps the scalar when it matches.
      this.#hit(place, node, trail);
      return;
    }
    if (this.mode === "write") {
      this.fail(
        trail,
        `holds ${describeNode(node)}, which has no ${
          segment.kind === "index" || segment.kind === "append" ? "items" : "keys"
        }`,
      );
    }
  }

  /** `**` at `node`, followed by `rest`. */
  deep(
    node: Node | null,
    place: Place,
    rest: readonly Segment[],
    trail: Trail,
    ancestors: ReadonlySet<Node>,
  ): void {
    if (rest.length > 0) {
      // Zero levels: the rest from here; then one level more for each child.
      this.step(node, place, rest, trail, false, ancestors);
      for (const child of this.children(node, place, trail)) {
        const value = this.resolved(child.node);
        if (value === null || ancestors.has(value)) continue;
        if (!isMap(value) && !isSeq(value)) continue;
        this.step(
          child.node,
          child.place,
          [{ kind: "deep" }, ...rest],
          child.trail,
          false,
          ancestors,
        );
      }
      return;
    }
    for (const child of this.children(node, place, trail)) {
      const value = this.resolved(child.node);
      if (this.mode === "delete") {
        this.#hit(child.place, child.node, child.trail);
        continue;
      }
      if (isAlias(child.node) && this.mode !== "read") continue; // not a leaf of this document
      if ((isMap(value) || isSeq(value)) && value.items.length > 0 && !ancestors.has(value)) {
        this.step(child.node, child.place, [{ kind: "deep" }], child.trail, false, ancestors);
      } else if (value === null || !ancestors.has(value)) {
        this.step(child.node, child.place, [], child.trail, false, ancestors);
      }
    }
  }

  /** An alias resolved when reading (else the node itself). */
  resolved(node: Node | null): Node | null {
    if (!isAlias(node) || this.mode !== "read") return node;
    return (node.resolve(this.doc) as Node | undefined) ?? null;
  }

  /** The children of a collection (through an alias when reading), with their places. */
  children(
    node: Node | null,
    place: Place,
    trail: Trail,
  ): { node: Node | null; place: Place; trail: Trail }[] {
    const value = this.resolved(node);
    if (isMap(value)) {
      return entriesOf(this.doc, value, this.mode === "read").map((entry) => ({
        node: (entry.pair.value as Node | null) ?? null,
        place: { kind: "pair", map: entry.map, pair: entry.pair, parent: place },
        trail: extend(trail, { kind: "key", name: entry.key }, entry.key),
      }));
    }
    if (isSeq(value)) {
      return value.items.map((item, index) => ({
        node: (item as Node | null) ?? null,
        place: { kind: "item", seq: value, index, parent: place },
        trail: extend(trail, { kind: "index", index }, index),
      }));
    }
    return [];
  }

  /** True when `child` passes the filter `segment`. */
  passes(child: Node | null, segment: MatchSegment): boolean {
    const value = isAlias(child) ? (child.resolve(this.doc) as Node | undefined) ?? null : child;
    if (segment.path.length === 0) return scalarMatches(value, segment.value, segment.quoted);
    if (!isMap(value) && !isSeq(value)) return false;
    const inner = new Walk(this.doc, "read", this.path);
    inner.#steps = this.#steps;
    inner.step(value, { kind: "root" }, segment.path, { concrete: [], elements: [] }, false);
    this.#steps = inner.#steps;
    return inner.found.some((f) => scalarMatches(f.node, segment.value, segment.quoted));
  }

  inMap(map: YAMLMap, segment: Segment, at: Step): void {
    const { place, rest, trail, create, ancestors } = at;
    const merged = this.mode === "read";
    const follow = (entry: Entry, as: Segment) => {
      this.step(
        (entry.pair.value as Node | null) ?? null,
        { kind: "pair", map: entry.map, pair: entry.pair, parent: place },
        rest,
        extend(trail, as, entry.key),
        create,
        ancestors,
      );
    };
    switch (segment.kind) {
      case "index":
      case "key": {
        const name = segment.kind === "key" ? segment.name : String(segment.index);
        const mergeKey = name === "<<" ? map.items.find(isMergeKey) : undefined;
        const entry = mergeKey
          ? { pair: mergeKey, map, key: name }
          : entriesOf(this.doc, map, merged).find((e) => scalarReads(e.pair.key, name));
        if (entry) return follow(entry, { kind: "key", name });
        if (segment.kind === "index") {
          if (this.mode === "write") this.fail(trail, "holds a mapping, which has no items");
          return;
        }
        if (this.mode === "write" && create) this.#lack(place, map, [segment, ...rest], trail);
        return;
      }
      case "glob":
        for (const entry of entriesOf(this.doc, map, merged)) {
          if (globMatch(segment.pattern, entry.key)) {
            follow(entry, { kind: "key", name: entry.key });
          }
        }
        return;
      case "wildcard":
        for (const entry of entriesOf(this.doc, map, merged)) {
          follow(entry, { kind: "key", name: entry.key });
        }
        return;
      case "match":
        for (const entry of entriesOf(this.doc, map, merged)) {
          if (this.passes((entry.pair.value as Node | null) ?? null, segment)) {
            follow(entry, { kind: "key", name: entry.key });
          }
        }
        return;
      case "append":
        if (this.mode === "write") {
          this.fail(trail, "holds a mapping, which has no end to add to");
        }
        return;
      case "deep":
        return; // handled by step()
    }
  }

  inSeq(seq: YAMLSeq, segment: Segment, step: Step): void {
    const { place, rest, trail, create, ancestors } = step;
    const at = (index: number, given: number = index) => {
      this.step(
        (seq.items[index] as Node | null) ?? null,
        { kind: "item", seq, index, parent: place },
        rest,
        extend(trail, { kind: "index", index }, given),
        create,
        ancestors,
      );
    };
    const count = seq.items.length;
    let index: number;
    switch (segment.kind) {
      case "wildcard":
        for (let i = 0; i < count; i++) at(i);
        return;
      case "match": {
        let matched = false;
        seq.items.forEach((item, i) => {
          if (this.passes((item as Node | null) ?? null, segment)) {
            matched = true;
            at(i);
          }
        });
        const creatable = plainFields(segment) !== undefined &&
          !isGlobText(segment.value, segment.quoted);
        if (!matched && this.mode === "write" && create && creatable) {
          this.#lack(place, seq, [segment, ...rest], trail);
        }
        return;
      }
      case "append":
        if (this.mode === "write" && create) this.#lack(place, seq, [segment, ...rest], trail);
        return;
      case "index":
        index = segment.index;
        break;
      case "glob":
      case "key":
        if (segment.kind === "glob" || !/^[0-9]+$/.test(segment.name)) {
          if (this.mode === "write") {
            const name = segment.kind === "glob" ? segment.pattern : segment.name;
            this.fail(trail, `holds a sequence, which has no key "${name}" (an index is [0])`);
          }
          return;
        }
        index = Number(segment.name);
        break;
      case "deep":
        return; // handled by step()
    }
    const resolved = index < 0 ? count + index : index;
    if (resolved >= 0 && resolved < count) return at(resolved, index);
    if (resolved < 0) {
      this.fail(trail, `has ${count} item${count === 1 ? "" : "s"}: [${index}] is out of range`);
    }
    if (this.mode !== "write") return;
    if (resolved === count && create) {
      this.#lack(place, seq, [{ kind: "append" }, ...rest], trail);
      return;
    }
    this.fail(
      trail,
      `has ${count} item${count === 1 ? "" : "s"}, not [${index}] (add one with [${count}] or [+])`,
    );
  }
}

/** Follows `segments` in `doc`. Matches reached twice (through `**`) are kept once. */
export function locate(doc: Document, segments: readonly Segment[], mode: LocateMode): Located {
  const walk = new Walk(doc, mode, formatPath(segments));
  walk.step(
    (doc.contents as Node | null) ?? null,
    { kind: "root" },
    segments,
    { concrete: [], elements: [] },
    true,
  );
  const seen = new Set<string>();
  const found = walk.found.filter((f) => {
    const key = JSON.stringify(f.elements);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { found, missing: walk.missing };
}

/**
 * A path as yq prints it (`-p p`): keys joined with dots, indexes as `[0]` (also joined with
 * a dot: `b.e.[1].name`), a key with `.`, `[`, `]` or `"`, or one that reads as a number, in
 * double quotes (in parentheses when it has a double quote).
 */
export function yqPathString(elements: readonly PathElement[]): string {
  return elements.map((element) => {
    if (typeof element === "number") return `[${element}]`;
    const special = /[.[\]"]/.test(element);
    const numeric = /^[-+]?[0-9]+$/.test(element);
    if (!special && !numeric) return element;
    return element.includes('"') ? `(${element})` : `"${element}"`;
  }).join(".");
}
