/**
 * What a write creates where the document stops short of its path (igc silently did nothing):
 * a missing key becomes a mapping entry, `[0]` or `[+]` a sequence item, `[name==x]` an item
 * `{name: x}` holding the rest of the path; a null value on the way is replaced. A `*` on
 * the way creates nothing (there is nothing it stands for).
 *
 * @module
 */
import { type Document, isMap, type Node, YAMLMap, YAMLSeq } from "yaml";
import type { DocumentEditor } from "./editor.ts";
import { isBlock } from "./layout.ts";
import { UsageError } from "../../lib/errors.ts";
import { joinPath, type Missing, PathTargetError } from "./locate.ts";
import { formatPath, isGlobText, type MatchSegment, plainFields, type Segment } from "./path.ts";
import { copyNode } from "./render.ts";
import type { ValueStyle } from "./scalar.ts";

/** A value given by the user, with how to write it. */
export interface TypedValue {
  /** The text typed; none: only the tag or style of what is there changes. */
  readonly text?: string | undefined;
  /** `--tag`. */
  readonly tag?: string | undefined;
  /** `--style`. */
  readonly style?: ValueStyle | undefined;
  /** `--anchorName`. */
  readonly anchor?: string | undefined;
  /** `--makeAlias`: the text is the name of an anchor. */
  readonly alias?: boolean;
  /** A node of another document (`-f`, a script's value), copied as it is. */
  readonly tree?: { readonly node: Node; readonly doc: Document } | undefined;
}

/** Builds nodes for the rest of a path. */
class Builder {
  constructor(
    readonly editor: DocumentEditor,
    readonly typed: TypedValue,
    readonly base: string,
    readonly path: string,
    readonly inFlow: boolean,
  ) {}

  leaf(text: string, tag: string | undefined): Node {
    return this.editor.leafNode(this.editor.leafAt(undefined, text, { tag }, this.inFlow));
  }

  /** The value at the end of the path. */
  value(): Node {
    const { tree, text } = this.typed;
    if (tree) return copyNode(tree.node, tree.doc, this.editor.raw);
    return this.editor.leafNode(this.editor.leafAt(undefined, text ?? "", this.typed, this.inFlow));
  }

  fail(done: readonly Segment[], reason: string): never {
    throw new PathTargetError(this.path, joinPath(this.base, formatPath(done)), reason);
  }

  /** The node for `segments`, or `undefined` when a `*` leaves nothing to create. */
  build(segments: readonly Segment[], done: Segment[] = []): Node | undefined {
    const [segment, ...rest] = segments;
    if (segment === undefined) return this.value();
    switch (segment.kind) {
      case "key": {
        const value = this.build(rest, [...done, segment]);
        if (value === undefined) return undefined;
        const map = new YAMLMap();
        map.set(segment.name, value);
        return map;
      }
      case "index":
        if (segment.index !== 0 && segment.index !== -1) {
          this.fail(
            done,
            `does not exist yet, so its first item is [0] (or [+]), not [${segment.index}]`,
          );
        }
        return this.#seq(this.build(rest, [...done, segment]));
      case "append":
        return this.#seq(this.build(rest, [...done, segment]));
      case "match":
        return this.#seq(this.matchItem(segment, rest, done));
      case "wildcard":
      case "glob":
      case "deep":
        return undefined;
    }
  }

  #seq(item: Node | undefined): Node | undefined {
    if (item === undefined) return undefined;
    const seq = new YAMLSeq();
    seq.items.push(item);
    return seq;
  }

  /** A new item for `[field==value]` followed by `rest`: `{field: value, …rest}`. */
  matchItem(
    segment: MatchSegment,
    rest: readonly Segment[],
    done: readonly Segment[],
  ): Node | undefined {
    const [next, ...after] = rest;
    const fields = plainFields(segment);
    if (fields === undefined || isGlobText(segment.value, segment.quoted)) {
      this.fail(
        done,
        `has no item ${formatPath([segment])}, and a filter ${
          fields === undefined ? "on anything but plain keys" : "with a glob"
        } cannot make one`,
      );
    }
    if (next === undefined || next.kind !== "key") {
      this.fail(
        done,
        `has no item ${
          formatPath([segment])
        }, and a new one needs a key to write after the match (as [name==x].value)`,
      );
    }
    const item = new YAMLMap();
    let map = item;
    fields.forEach((name, i) => {
      if (i === fields.length - 1) {
        map.set(name, this.leaf(segment.value, segment.quoted ? "!!str" : undefined));
      } else {
        const inner = new YAMLMap();
        map.set(name, inner);
        map = inner;
      }
    });
    if (fields.length === 1 && fields[0] === next.name) {
      this.fail(
        done,
        `has no item ${
          formatPath([segment])
        }, and a new one cannot be both matched by "${next.name}" and written there`,
      );
    }
    const value = this.build(after, [...done, segment, next]);
    if (value === undefined) return undefined;
    item.set(next.name, value);
    return item;
  }
}

/** Creates what `missing` lacks, with `value` at its end; false when a `*` left nothing. */
export function createMissing(
  editor: DocumentEditor,
  missing: Missing,
  value: TypedValue,
): boolean {
  const { node, place, rest } = missing;
  const inFlow = node === null ? editor.inFlow(place) : !isBlock(node);
  const path = joinPath(missing.path, formatPath(rest));
  const builder = new Builder(editor, value, missing.path, path, inFlow);
  if (node === null) {
    const tree = builder.build(rest);
    if (tree !== undefined) editor.setValue(place, { tree });
    return tree !== undefined;
  }
  const [first, ...after] = rest;
  if (first === undefined) return false;
  if (isMap(node)) {
    if (first.kind !== "key") return false;
    const tree = builder.build(after, [first]);
    if (tree !== undefined) editor.addPairs(node, place, [[first.name, { tree }]]);
    return tree !== undefined;
  }
  const item = first.kind === "match"
    ? builder.matchItem(first, after, [])
    : builder.build(after, [first]);
  if (item !== undefined) editor.addItems(node, place, [{ tree: item }]);
  return item !== undefined;
}

/**
 * Checks that `segments` (the path `path`) can make what they name where nothing is yet (`new`,
 * `prefix`): keys, `[0]`, `[+]`, and filters on plain keys with a plain value, followed by a key.
 *
 * @throws {UsageError} naming the part of the path that cannot make anything.
 */
export function checkCreatable(path: string, segments: readonly Segment[]): void {
  segments.forEach((segment, i) => {
    const fail = (why: string): never => {
      throw new UsageError(
        `Cannot create "${path}": ${why} (at "${formatPath(segments.slice(0, i + 1))}")`,
      );
    };
    switch (segment.kind) {
      case "wildcard":
      case "glob":
      case "deep":
        fail(`${formatPath([segment])} matches what exists and makes nothing`);
        break;
      case "match":
        if (plainFields(segment) === undefined || isGlobText(segment.value, segment.quoted)) {
          fail("a filter on anything but plain keys, or with a glob, makes nothing");
        }
        if (segments[i + 1]?.kind !== "key") {
          fail("a new item needs a key to write after the filter, as (name==x).value");
        }
        break;
      case "index":
        if (segment.index !== 0 && segment.index !== -1) {
          fail(`a new sequence starts at [0], not [${segment.index}]`);
        }
        break;
    }
  });
}
