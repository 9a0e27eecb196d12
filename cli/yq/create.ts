/**
 * What a write creates where the document stops short of its path (igc silently did nothing):
 * a missing key becomes a mapping entry, `[0]` or `[+]` a sequence item, `[name==x]` an item
 * `{name: x}` holding the rest of the path; a null value on the way is replaced. A `*` on
 * the way creates nothing (there is nothing it stands for).
 *
 * @module
 */
import { isMap, type Node, YAMLMap, YAMLSeq } from "yaml";
import type { DocumentEditor } from "./editor.ts";
import { isBlock } from "./layout.ts";
import { joinPath, type Missing, PathTargetError } from "./locate.ts";
import { formatPath, isGlobText, type MatchSegment, plainFields, type Segment } from "./path.ts";
import type { ForcedTag } from "./scalar.ts";

/** A value typed by the user and its `--tag`. */
export interface TypedValue {
  /** The text. */
  readonly text: string;
  /** `--tag`, if given. */
  readonly tag?: ForcedTag | undefined;
}

/** Builds nodes for the rest of a path. */
class Builder {
  constructor(
    readonly editor: DocumentEditor,
    readonly value: TypedValue,
    readonly base: string,
    readonly path: string,
    readonly inFlow: boolean,
  ) {}

  leaf(text: string, tag: ForcedTag | undefined): Node {
    return this.editor.leafNode(this.editor.leafAt(undefined, text, tag, this.inFlow));
  }

  fail(done: readonly Segment[], reason: string): never {
    throw new PathTargetError(this.path, joinPath(this.base, formatPath(done)), reason);
  }

  /** The node for `segments`, or `undefined` when a `*` leaves nothing to create. */
  build(segments: readonly Segment[], done: Segment[] = []): Node | undefined {
    const [segment, ...rest] = segments;
    if (segment === undefined) {
      return this.leaf(this.value.text, this.value.tag);
    }
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

/** Creates what `missing` lacks, with `value` at its end. */
export function createMissing(editor: DocumentEditor, missing: Missing, value: TypedValue): void {
  const { node, place, rest } = missing;
  const inFlow = node === null ? editor.inFlow(place) : !isBlock(node);
  const path = joinPath(missing.path, formatPath(rest));
  const builder = new Builder(editor, value, missing.path, path, inFlow);
  if (node === null) {
    const tree = builder.build(rest);
    if (tree !== undefined) editor.setValue(place, { tree });
    return;
  }
  const [first, ...after] = rest;
  if (first === undefined) return;
  if (isMap(node)) {
    if (first.kind !== "key") return;
    const tree = builder.build(after, [first]);
    if (tree !== undefined) editor.addPairs(node, place, [[first.name, { tree }]]);
    return;
  }
  const item = first.kind === "match"
    ? builder.matchItem(first, after, [])
    : builder.build(after, [first]);
  if (item !== undefined) editor.addItems(node, place, [{ tree: item }]);
}
