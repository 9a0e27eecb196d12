/**
 * Where things are in the text of a YAML stream, for editing it in place: lines and columns,
 * and, from the parser's concrete syntax tree (the `srcToken` of nodes parsed with
 * `keepSourceTokens`), the `:` or `-` of a block item, the anchor and tag of its value and the
 * comment on its line. The editor changes only the characters these positions delimit, so
 * everything else stays byte for byte.
 *
 * @module
 */
import type { CST, Node, Pair, YAMLMap, YAMLSeq } from "yaml";

/** The offset where the line holding `offset` starts. */
export function lineStart(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

/** The column (0-based) of `offset`. */
export function columnOf(text: string, offset: number): number {
  return offset - lineStart(text, offset);
}

/** True when only spaces come before `offset` on its line. */
export function startsLine(text: string, offset: number): boolean {
  return /^[ \t]*$/.test(text.slice(lineStart(text, offset), offset));
}

/**
 * When the rest of the line from `offset` is blank or a comment, the offset after that line's
 * newline (or the end of the text); else `offset`.
 */
export function pastLine(text: string, offset: number): number {
  const newline = text.indexOf("\n", offset);
  const end = newline === -1 ? text.length : newline;
  if (!/^[ \t]*(#.*)?\r?$/.test(text.slice(offset, end))) return offset;
  return newline === -1 ? text.length : newline + 1;
}

/** The source range of a node: `[start, valueEnd, nodeEnd]`. */
export type Range = readonly [number, number, number];

/** The range of a parsed node (every node of a parsed document has one). */
export function rangeOf(node: Node): Range {
  const range = node.range;
  if (!range) throw new Error("a node without a source range");
  return range;
}

/** True for a mapping or sequence written in block style (not `{…}` / `[…]`). */
export function isBlock(node: YAMLMap | YAMLSeq): boolean {
  const token = node.srcToken;
  return token?.type === "block-map" || token?.type === "block-seq";
}

/** What comes between a block item's `:` or `-` and its value. */
export interface Slot {
  /** The offset just after the `:` or `-`. */
  readonly indicatorEnd: number;
  /** The anchor and tag of the value (`&a`, `!!str`), in order. */
  readonly props: readonly CST.SourceToken[];
  /** A comment on the indicator's line before the value (`key: # note`). */
  readonly comment?: CST.SourceToken;
}

function slotOf(tokens: readonly CST.SourceToken[], indicator: string): Slot | undefined {
  const at = tokens.findIndex((t) => t.type === indicator);
  if (at === -1) return undefined;
  const props: CST.SourceToken[] = [];
  let comment: CST.SourceToken | undefined;
  let sameLine = true;
  for (const token of tokens.slice(at + 1)) {
    if (token.type === "anchor" || token.type === "tag") props.push(token);
    else if (token.type === "comment" && sameLine) comment = token;
    else if (token.type === "newline") sameLine = false;
  }
  const start = tokens[at]!;
  return {
    indicatorEnd: start.offset + start.source.length,
    props,
    ...(comment ? { comment } : {}),
  };
}

/** The slot of a pair's value (after its `:`), or `undefined` for a key without `:`. */
export function pairSlot(pair: Pair): Slot | undefined {
  const item = pair.srcToken;
  return item?.sep ? slotOf(item.sep, "map-value-ind") : undefined;
}

/** The CST items of a block sequence, one per `-`, in order. */
function blockSeqItems(seq: YAMLSeq): CST.BlockSequence["items"] {
  const token = seq.srcToken;
  if (token?.type !== "block-seq") return [];
  return token.items.filter((item) => item.start.some((t) => t.type === "seq-item-ind"));
}

/** The slot of item `index` of a block sequence (after its `-`). */
export function seqItemSlot(seq: YAMLSeq, index: number): Slot | undefined {
  const item = blockSeqItems(seq)[index];
  return item ? slotOf(item.start, "seq-item-ind") : undefined;
}

/** The offset of the `-` of item `index` of a block sequence. */
export function seqItemDash(seq: YAMLSeq, index: number): number | undefined {
  return blockSeqItems(seq)[index]?.start.find((t) => t.type === "seq-item-ind")?.offset;
}

/** The offset of the `{` or `[` that opens a flow collection. */
export function flowStart(node: YAMLMap | YAMLSeq): number | undefined {
  const token = node.srcToken;
  return token?.type === "flow-collection" ? token.start.offset : undefined;
}
