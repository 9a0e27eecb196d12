/**
 * Changes to one document of a YAML stream, as text edits of the original (see `edits.ts`):
 * set a value, add keys to a mapping or items to a sequence, delete keys or items. Only the
 * characters of what changes are rewritten; comments, blank lines, quoting, anchors, key order
 * and the other documents stay as they were.
 *
 * - A scalar replaced by a scalar changes only its own characters; its anchor and tag stay
 *   (`--tag` replaces the tag), and so does the comment after it.
 * - A value that becomes or stops being a block (a mapping under a key, a literal block) is
 *   rewritten from its `:` or `-` to its end, keeping the anchor and the comment of that line.
 * - New keys go after the last key of their mapping, at its column; new items after the last
 *   item. In a flow collection written one entry per line (as JSON often is) each new entry gets
 *   a line. An empty `{}` or `[]` that receives its first entry in a block becomes a block.
 * - A deleted key or item goes with its lines; the last one leaves `{}` or `[]`.
 *
 * @module
 */
import { type Document, isAlias, isMap, isScalar, isSeq, type Node, YAMLMap, YAMLSeq } from "yaml";
import { ToolkitError } from "../../lib/errors.ts";
import type { Edit } from "./edits.ts";
import {
  columnOf,
  isBlock,
  lineStart,
  pairSlot,
  pastLine,
  rangeOf,
  seqItemDash,
  seqItemSlot,
  startsLine,
} from "./layout.ts";
import { nodeAt, type Place } from "./locate.ts";
import {
  hasFlowPadding,
  RawTexts,
  renderAfterDash,
  renderAfterKey,
  renderBlock,
  renderFlow,
  type Style,
} from "./render.ts";
import {
  existingScalar,
  type Leaf,
  leafFor,
  type LeafOptions,
  type YamlVersion,
} from "./scalar.ts";

/** A value to put somewhere: a leaf chosen by `leafFor()`, or a node to render. */
export type NewValue = Leaf | { readonly tree: Node };

/** A place the editor cannot change (a form of YAML it does not rewrite). */
export class UneditableError extends ToolkitError {
  /** Creates the error. */
  constructor(detail: string) {
    super(`Cannot edit the YAML there: ${detail}`);
    this.name = "UneditableError";
  }
}

function isBlockScalar(node: Node | null): boolean {
  return isScalar(node) && (node.type === "BLOCK_LITERAL" || node.type === "BLOCK_FOLDED");
}

/** True for a node that ends with its own line: a block collection or a block scalar. */
function endsWithLine(node: Node | null): boolean {
  return ((isMap(node) || isSeq(node)) && isBlock(node)) || isBlockScalar(node);
}

/** True for a node that has characters in the file (not the empty value of `key:`). */
function hasText(node: Node | null): boolean {
  if (node === null || !node.range) return false;
  return node.range[0] < node.range[1];
}

/** How deep a place is (the document's top node is 0). */
function depthOf(place: Place): number {
  return place.kind === "root" ? 0 : 1 + depthOf(place.parent);
}

/** The collection a place is in, or `undefined` for the top node. */
function containerOf(place: Place): YAMLMap | YAMLSeq | undefined {
  return place.kind === "pair" ? place.map : place.kind === "item" ? place.seq : undefined;
}

/** Edits one document of a stream. */
export class DocumentEditor {
  /** The edits made so far, on the stream's original text. */
  readonly edits: Edit[] = [];
  /** The YAML version whose rules apply to the document's plain scalars. */
  readonly version: YamlVersion;

  /** An editor of `doc`, one document of the stream `text`, written in `style`. */
  constructor(
    readonly text: string,
    readonly doc: Document.Parsed,
    readonly style: Style,
    readonly raw: RawTexts = new RawTexts(),
  ) {
    this.version = doc.directives?.yaml.version === "1.1" ? "1.1" : "1.2";
  }

  /** True when a value at `place` sits inside a flow collection. */
  inFlow(place: Place): boolean {
    const container = containerOf(place);
    return container !== undefined && !isBlock(container);
  }

  /**
   * The leaf for text typed by the user, going to `place`, or into a new structure (no place;
   * `inFlow` when that is written in flow style). See `scalar.ts`.
   */
  leafAt(
    place: Place | undefined,
    value: string,
    options: Pick<LeafOptions, "tag" | "style" | "anchor" | "alias">,
    inFlow = false,
  ): Leaf {
    const old = place ? nodeAt(this.doc, place) : null;
    const existing = isScalar(old) && old.value !== null
      ? existingScalar(old, this.version)
      : undefined;
    return leafFor(value, {
      ...options,
      existing,
      inFlow: place ? this.inFlow(place) : inFlow,
      quote: this.style.quote,
      json: this.style.json,
    });
  }

  /** A leaf as a node to render inside a new structure. */
  leafNode(leaf: Leaf): Node {
    if ("node" in leaf) return leaf.node;
    return this.raw.scalar(leafText(leaf));
  }

  #add(start: number, end: number, text: string, depth = 0): void {
    this.edits.push({ start, end, text, depth });
  }

  /**
   * Inserts `text` at `offset` of the original text: a comment after a value, which goes
   * before whatever else is inserted there (the next key added at the end of the file).
   */
  insert(offset: number, text: string): void {
    this.#add(offset, offset, text, Number.MAX_SAFE_INTEGER);
  }

  /** Replaces the original text between two offsets (a comment). */
  replace(start: number, end: number, text: string): void {
    this.#add(start, end, text);
  }

  /** Writes `value` (typed by the user, with its `--tag`, `--style`…) at `place`. */
  writeScalar(
    place: Place,
    value: string,
    options: Pick<LeafOptions, "tag" | "style" | "anchor" | "alias"> = {},
  ): void {
    this.setValue(place, this.leafAt(place, value, options), {
      forcedTag: options.tag !== undefined || options.style === "tagged",
    });
  }

  /**
   * Puts `value` at `place`, replacing what is there. `forcedTag`: the type was given with
   * `--tag`, so an explicit tag of the old value goes.
   */
  setValue(place: Place, value: NewValue, options: { forcedTag?: boolean } = {}): void {
    value = this.#inline(value);
    const old = nodeAt(this.doc, place);
    if (place.kind === "root") return this.#setRoot(old, value);
    const container = containerOf(place)!;
    if (!isBlock(container)) return this.#setInFlow(place, old, container, value);

    const slot = place.kind === "pair" ? pairSlot(place.pair) : seqItemSlot(place.seq, place.index);
    if (!slot) throw new UneditableError('a key without a value indicator (":")');
    const newTag = "text" in value ? value.tag : undefined;
    const newAnchor = "text" in value ? value.anchor : undefined;
    const alias = "text" in value && value.alias === true;
    const tagToken = slot.props.find((t) => t.type === "tag");
    const dropTag = tagToken !== undefined &&
      (options.forcedTag || newTag !== undefined || alias);
    const dropAnchor = alias && slot.props.some((t) => t.type === "anchor");
    const oldInline = !endsWithLine(old);

    if (
      oldInline && "text" in value && !dropTag && !dropAnchor && newTag === undefined &&
      newAnchor === undefined
    ) {
      if (hasText(old)) return this.#add(rangeOf(old!)[0], rangeOf(old!)[1], value.text);
      const at = old?.range ? old.range[0] : slot.indicatorEnd;
      const space = /[ \t]/.test(this.text[at - 1] ?? "") ? "" : " ";
      return this.#add(at, at, `${space}${value.text}`);
    }

    // Rewrite from the indicator to the end of the old value's last line.
    let end: number;
    let trailingComment: string | undefined;
    if (old !== null && endsWithLine(old)) {
      end = rangeOf(old!).at(1)!;
    } else {
      const valueEnd = hasText(old) ? rangeOf(old!)[1] : slot.indicatorEnd;
      end = pastLine(this.text, valueEnd);
      const lineEnd = this.text.indexOf("\n", valueEnd);
      const after = this.text.slice(valueEnd, lineEnd === -1 ? undefined : lineEnd).trim();
      if (after.startsWith("#") && slot.comment === undefined) trailingComment = after;
    }
    const props = [
      ...(newAnchor ? [`&${newAnchor}`] : []),
      ...slot.props.filter((t) => t.type === "anchor" ? !newAnchor && !alias : !dropTag)
        .map((t) => t.source),
      ...(newTag ? [newTag] : []),
    ].join(" ");
    const comment = slot.comment?.source ?? trailingComment;
    let rendered: string;
    if ("text" in value) {
      rendered = ` ${value.text}\n`;
    } else {
      const tree = "tree" in value ? value.tree : value.node;
      rendered = place.kind === "pair"
        ? renderAfterKey(tree, columnOf(this.text, rangeOf(place.pair.key as Node)[0]), this)
        : renderAfterDash(
          tree,
          columnOf(this.text, seqItemDash(place.seq, place.index)!),
          this,
          props === "" && comment === undefined,
        );
    }
    const newline = rendered.indexOf("\n");
    const first = newline === -1 ? rendered : rendered.slice(0, newline);
    let text = `${props ? ` ${props}` : ""}${first}${comment ? ` ${comment}` : ""}${
      newline === -1 ? "" : rendered.slice(newline)
    }`;
    if (this.text[end - 1] !== "\n") text = text.replace(/\n$/, "");
    this.#add(slot.indicatorEnd, end, text, depthOf(place));
  }

  /** A scalar tree that is one line of text (not a block scalar) as that text. */
  #inline(value: NewValue): NewValue {
    if (!("tree" in value) || !isScalar(value.tree) || isBlockScalar(value.tree)) return value;
    if (value.tree.comment || value.tree.commentBefore || value.tree.anchor) return value;
    const rendered = renderAfterKey(value.tree, 0, this);
    if (!/^ [^\n]+\n$/.test(rendered)) return value;
    return { text: rendered.slice(1, -1) };
  }

  #setRoot(old: Node | null, value: NewValue): void {
    if (hasText(old) && !endsWithLine(old) && "text" in value && !value.tag && !value.anchor) {
      return this.#add(rangeOf(old!)[0], rangeOf(old!)[1], value.text);
    }
    const rendered = "text" in value
      ? `${leafText(value)}\n`
      : renderBlock("tree" in value ? value.tree : value.node, this);
    if (hasText(old)) {
      const end = endsWithLine(old) ? rangeOf(old!)[1] : pastLine(this.text, rangeOf(old!)[1]);
      const text = this.text[end - 1] === "\n" ? rendered : rendered.replace(/\n$/, "");
      return this.#add(rangeOf(old!)[0], end, text);
    }
    const at = pastLine(this.text, old?.range?.[0] ?? this.doc.range[1]);
    const before = at > 0 && this.text[at - 1] !== "\n" ? "\n" : "";
    this.#add(at, at, before + rendered);
  }

  #setInFlow(place: Place, old: Node | null, container: YAMLMap | YAMLSeq, value: NewValue): void {
    const text = "text" in value ? leafText(value) : renderFlow(
      "tree" in value ? value.tree : value.node,
      this,
      hasFlowPadding(this.text, container),
    );
    if (hasText(old)) return this.#add(rangeOf(old!)[0], rangeOf(old!)[1], text);
    if (old?.range) {
      const at = old.range[0];
      const space = /[ \t]/.test(this.text[at - 1] ?? "") ? "" : " ";
      return this.#add(at, at, `${space}${text}`);
    }
    if (place.kind === "pair" && isScalar(place.pair.key)) {
      const at = rangeOf(place.pair.key)[1];
      return this.#add(at, at, `: ${text}`);
    }
    throw new UneditableError("an empty item of a flow sequence");
  }

  /** Adds keys with their values at the end of the mapping at `place`. */
  addPairs(
    map: YAMLMap,
    place: Place,
    entries: readonly (readonly [string | Node, NewValue])[],
  ): void {
    if (entries.length === 0) return;
    const added = new YAMLMap();
    for (const [key, value] of entries) added.set(key, this.#node(value));
    this.#append(map, place, added);
  }

  /** Adds items at the end of the sequence at `place`. */
  addItems(seq: YAMLSeq, place: Place, values: readonly NewValue[]): void {
    if (values.length === 0) return;
    const added = new YAMLSeq();
    for (const value of values) added.items.push(this.#node(value));
    this.#append(seq, place, added);
  }

  #node(value: NewValue): Node {
    return "tree" in value ? value.tree : this.leafNode(value);
  }

  #append(target: YAMLMap | YAMLSeq, place: Place, added: YAMLMap | YAMLSeq): void {
    const depth = depthOf(place) + 1;
    const [start, valueEnd] = rangeOf(target);
    if (isBlock(target)) {
      const column = columnOf(this.text, start);
      const rendered = " ".repeat(column) +
        renderBlock(added, this).replace(/\n(?=[^\n])/g, `\n${" ".repeat(column)}`);
      const before = valueEnd > 0 && this.text[valueEnd - 1] !== "\n" ? "\n" : "";
      return this.#add(valueEnd, valueEnd, before + rendered, depth);
    }
    if (target.items.length === 0) {
      const outer = containerOf(place);
      if (outer === undefined || isBlock(outer)) {
        // An empty `{}` or `[]` in a block gets its first entries as a block.
        return this.setValue(place, { tree: added });
      }
      const flow = renderFlow(added, this, hasFlowPadding(this.text, target));
      return this.#add(start, valueEnd, flow, depth);
    }
    const last = target.items[target.items.length - 1] as unknown;
    const [lastStart, lastEnd] = isMap(target)
      ? [rangeOf((last as { key: Node }).key)[0], itemEnd(last as { key: unknown; value: unknown })]
      : [rangeOf(last as Node)[0], rangeOf(last as Node)[1]];
    const entries = [...(isMap(added) ? added.items : added.items)].map((entry) => {
      const one = isMap(added) ? new YAMLMap() : new YAMLSeq();
      one.items.push(entry as never);
      return renderFlow(one, this, false).slice(1, -1);
    });
    if (startsLine(this.text, lastStart)) {
      // One entry per line (as JSON is often written): each new one on a line of its own.
      const pad = " ".repeat(columnOf(this.text, lastStart));
      return this.#add(lastEnd, lastEnd, entries.map((l) => `,\n${pad}${l}`).join(""), depth);
    }
    // Entries separated as the file separates them (`[1,2]` or `[1, 2]`).
    const before = target.items.length > 1
      ? this.text.slice(entryEnd(target, target.items.length - 2), lastStart)
      : ", ";
    const separator = /^\s*,[ \t]*$/.test(before) ? before.trimStart() : ", ";
    this.#add(lastEnd, lastEnd, entries.map((e) => `${separator}${e}`).join(""), depth);
  }

  /**
   * Deletes the keys and items at `places` (each a pair or an item). A collection that loses
   * every entry becomes `{}` or `[]`.
   */
  delete(places: readonly Place[]): void {
    const groups = new Map<YAMLMap | YAMLSeq, { place: Place; indices: Set<number> }>();
    for (const place of places) {
      if (place.kind === "root") throw new UneditableError("the document itself cannot be deleted");
      const container = containerOf(place)!;
      const index = place.kind === "pair" ? place.map.items.indexOf(place.pair) : place.index;
      const group = groups.get(container) ?? { place: place.parent, indices: new Set<number>() };
      group.indices.add(index);
      groups.set(container, group);
    }
    for (const [container, { place, indices }] of groups) {
      if (indices.size === container.items.length) {
        this.#empty(container, place);
      } else if (isBlock(container)) {
        this.#deleteBlock(container, [...indices].sort((a, b) => a - b));
      } else {
        this.#deleteFlow(container, [...indices].sort((a, b) => a - b));
      }
    }
  }

  #empty(container: YAMLMap | YAMLSeq, place: Place): void {
    if (!isBlock(container)) {
      const [start, end] = rangeOf(container);
      return this.#add(start + 1, end - 1, "");
    }
    const empty = isMap(container) ? new YAMLMap() : new YAMLSeq();
    empty.flow = true;
    this.setValue(place, { tree: empty });
  }

  /** Where entry `index` of a block collection starts, and whether it starts its line. */
  #entryStart(container: YAMLMap | YAMLSeq, index: number): number {
    if (isSeq(container)) {
      const dash = seqItemDash(container, index);
      if (dash === undefined) throw new UneditableError("a sequence item without its dash");
      return dash;
    }
    const key = container.items[index]!.key;
    if (!isScalar(key) && !isMap(key) && !isSeq(key) && !isAlias(key)) {
      throw new UneditableError("a key without a value");
    }
    return rangeOf(key as Node)[0];
  }

  #entryEnd(container: YAMLMap | YAMLSeq, index: number, start: number): number {
    const value = (isMap(container) ? container.items[index]!.value : container.items[index]) as
      | Node
      | null;
    if (value !== null && endsWithLine(value)) return rangeOf(value)[1];
    return pastLine(this.text, value?.range ? Math.max(value.range[1], start) : start + 1);
  }

  #deleteBlock(container: YAMLMap | YAMLSeq, indices: readonly number[]): void {
    const deleted = new Set(indices);
    for (const index of indices) {
      const start = this.#entryStart(container, index);
      if (startsLine(this.text, start)) {
        this.#add(lineStart(this.text, start), this.#entryEnd(container, index, start), "");
        continue;
      }
      // The first entry shares its line (`- key: value`): the next kept entry moves up.
      let kept = index + 1;
      while (deleted.has(kept)) kept++;
      this.#add(start, this.#entryStart(container, kept), "");
    }
  }

  #deleteFlow(container: YAMLMap | YAMLSeq, indices: readonly number[]): void {
    const deleted = new Set(indices);
    const bounds = container.items.map((item) =>
      isMap(container)
        ? [
          rangeOf((item as { key: Node }).key)[0],
          itemEnd(item as { key: unknown; value: unknown }),
        ]
        : [rangeOf(item as Node)[0], rangeOf(item as Node)[1]]
    ) as [number, number][];
    let firstKept = 0;
    while (deleted.has(firstKept)) firstKept++;
    if (firstKept > 0) this.#add(bounds[0]![0], bounds[firstKept]![0], "");
    for (const index of indices) {
      if (index < firstKept) continue;
      this.#add(bounds[index - 1]![1], bounds[index]![1], "");
    }
  }
}

/** A one-line leaf with its anchor and tag: `&a !!str text`. */
function leafText(
  leaf: { readonly text: string; readonly tag?: string; readonly anchor?: string },
) {
  return [leaf.anchor ? `&${leaf.anchor}` : "", leaf.tag ?? "", leaf.text].filter((p) => p !== "")
    .join(" ");
}

/** The end of entry `index` of a flow collection. */
function entryEnd(target: YAMLMap | YAMLSeq, index: number): number {
  const item = target.items[index] as unknown;
  return isMap(target)
    ? itemEnd(item as { key: unknown; value: unknown })
    : rangeOf(item as Node)[1];
}

/** The end of a pair of a flow mapping: its value's, or its key's without a value. */
function itemEnd(pair: { key: unknown; value: unknown }): number {
  const value = pair.value as Node | null;
  if (value?.range && value.range[1] > value.range[0]) return value.range[1];
  return rangeOf(pair.key as Node)[1];
}
