/**
 * YAML written anew, for the flags that ask for another form than the file's: `-P` (every
 * collection in block style, every scalar plain where it can be, else double-quoted or a literal
 * block), `-X` (aliases replaced by what they refer to, anchors dropped, merge keys replaced by
 * the keys they bring in after the map's own, the first merged map winning) and
 * `--stripComments`. A number, boolean or null keeps its text (`1.10`, `0x1F`, `~`).
 *
 * Text that is already in the file's form is printed from the file instead (see `output.ts`);
 * this module is for when the user asked for a change of form.
 *
 * @module
 */
import {
  Alias,
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type Node,
  Pair,
  Scalar,
  YAMLMap,
  YAMLSeq,
} from "yaml";
import { ToolkitError } from "../../lib/errors.ts";
import { entriesOf } from "./locate.ts";
import { RawTexts, renderBlock } from "./render.ts";

/** What to change. */
export interface Restyle {
  /** `-P`. */
  readonly pretty: boolean;
  /** `-X`. */
  readonly explode: boolean;
  /** `--stripComments`. */
  readonly stripComments: boolean;
}

function copyComments(from: Node, to: Node, options: Restyle): void {
  if (options.stripComments) return;
  to.commentBefore = from.commentBefore;
  to.comment = from.comment;
  to.spaceBefore = from.spaceBefore;
}

/** A copy of `node` of `doc` in the new form; plain non-string scalars keep their text. */
export function restyled(
  node: Node | null,
  doc: Document,
  options: Restyle,
  raw: RawTexts,
  above: ReadonlySet<Node> = new Set(),
): Node {
  if (isAlias(node)) {
    if (!options.explode) return new Alias(node.source);
    const target = (node.resolve(doc) as Node | undefined) ?? null;
    if (target !== null && above.has(target)) {
      throw new ToolkitError(`Cannot explode *${node.source}: it contains itself`);
    }
    return restyled(target, doc, options, raw, above);
  }
  if (node === null) return new Scalar(null);
  const inner = new Set(above).add(node);
  let copy: Node;
  if (isScalar(node)) {
    copy = scalarCopy(node, options, raw);
  } else if (isMap(node)) {
    const map = new YAMLMap();
    map.flow = options.pretty ? false : Boolean(node.flow);
    const pairs = options.explode
      ? entriesOf(doc, node, true).map((entry) => entry.pair)
      : node.items;
    for (const pair of pairs) {
      const key = restyled((pair.key as Node | null) ?? null, doc, options, raw, inner);
      const value = pair.value === null || pair.value === undefined
        ? null
        : restyled(pair.value as Node, doc, options, raw, inner);
      map.items.push(new Pair(key, value));
    }
    copy = map;
  } else if (isSeq(node)) {
    const seq = new YAMLSeq();
    seq.flow = options.pretty ? false : Boolean(node.flow);
    for (const item of node.items) {
      seq.items.push(restyled((item as Node | null) ?? null, doc, options, raw, inner));
    }
    copy = seq;
  } else {
    return new Scalar(null);
  }
  copyComments(node, copy, options);
  if (!options.explode && "anchor" in node && node.anchor) {
    (copy as Scalar | YAMLMap | YAMLSeq).anchor = node.anchor;
  }
  const tag = (node as Scalar).tag;
  if (tag && !isScalar(copy)) (copy as YAMLMap | YAMLSeq).tag = tag;
  return copy;
}

function scalarCopy(node: Scalar, options: Restyle, raw: RawTexts): Scalar {
  const tag = node.tag?.replace(/^tag:yaml\.org,2002:/, "!!");
  if (typeof node.value !== "string" && typeof node.source === "string") {
    return raw.scalar(tag ? `${tag} ${node.source}` : node.source);
  }
  const copy = new Scalar(node.value);
  if (node.tag) copy.tag = node.tag;
  if (!options.pretty) copy.type = node.type;
  else if (node.type === "BLOCK_LITERAL" || node.type === "BLOCK_FOLDED") copy.type = node.type;
  return copy;
}

/** `node` of `doc` written anew (ending with a newline), `indent` spaces per level. */
export function restyledText(
  node: Node | null,
  doc: Document,
  options: Restyle & { readonly indent: number },
): string {
  const raw = new RawTexts();
  const copy = restyled(node, doc, options, raw);
  return renderBlock(copy, {
    style: { indent: options.indent, indentSeq: true, quote: '"', flowPadding: false, json: false },
    raw,
  });
}
