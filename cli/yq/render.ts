/**
 * The text of what `toolkit yq` adds to a file: new keys, items and values, written by the
 * `yaml` package in the style the file already has (its indentation step, whether a sequence
 * under a key is indented, its usual quote, the padding of its flow collections), then shifted
 * to the column where it goes. In a JSON file, what is added is JSON (double-quoted keys). A value given on the command line goes in as the exact text
 * chosen for it ({@link RawTexts}), so the YAML writer never re-spells it (`1.10` stays
 * `1.10`).
 *
 * @module
 */
import {
  Document,
  isAlias,
  isCollection,
  isMap,
  isScalar,
  isSeq,
  type Node,
  Scalar,
  visit,
  YAMLMap,
  YAMLSeq,
} from "yaml";
import { columnOf, isBlock, rangeOf } from "./layout.ts";

/** How a file is written, for what is added to it. */
export interface Style {
  /** Spaces per level of indentation. */
  readonly indent: number;
  /** Whether a sequence under a key is indented (`key:\n  - a`) or not (`key:\n- a`). */
  readonly indentSeq: boolean;
  /** The quote most used in the file. */
  readonly quote: "'" | '"';
  /** Whether flow collections have spaces inside their brackets (`{ a: 1 }`). */
  readonly flowPadding: boolean;
  /** The document is JSON (a flow collection with double-quoted keys): what is added stays JSON. */
  readonly json: boolean;
}

/**
 * The style of `text`'s document `doc`; without evidence, 2 spaces, indented sequences, `"`,
 * and flow collections without padding.
 */
export function detectStyle(text: string, doc: Document, fallbackIndent = 2): Style {
  let indent: number | undefined;
  let indentSeq: boolean | undefined;
  let flowPadding: boolean | undefined;
  const flow = (_: unknown, node: YAMLMap | YAMLSeq) => {
    if (flowPadding === undefined && !isBlock(node) && node.items.length > 0) {
      flowPadding = hasFlowPadding(text, node);
    }
  };
  let single = 0;
  let double = 0;
  visit(doc, {
    Pair(_, pair, path) {
      const parent = path[path.length - 1];
      if (!isMap(parent) || !isBlock(parent) || !isScalar(pair.key)) return;
      const value = pair.value;
      if (!isMap(value) && !isSeq(value)) return;
      if (!isBlock(value)) return;
      const keyColumn = columnOf(text, rangeOf(pair.key)[0]);
      const column = columnOf(text, rangeOf(value)[0]);
      if (isMap(value) && indent === undefined && column > keyColumn) indent = column - keyColumn;
      if (isSeq(value) && indentSeq === undefined) indentSeq = column > keyColumn;
    },
    Scalar(_, node) {
      if (node.type === "QUOTE_SINGLE") single++;
      if (node.type === "QUOTE_DOUBLE") double++;
    },
    Map: flow,
    Seq: flow,
  });
  return {
    indent: indent ?? fallbackIndent,
    indentSeq: indentSeq ?? true,
    quote: single > double ? "'" : '"',
    flowPadding: flowPadding ?? false,
    json: isJson(doc),
  };
}

/** True for a document written as JSON: a flow mapping with double-quoted keys, or a flow list. */
function isJson(doc: Document): boolean {
  const root = doc.contents;
  if (!(isMap(root) || isSeq(root)) || isBlock(root)) return false;
  let json = true;
  visit(doc, {
    Pair(_, pair) {
      if (!isScalar(pair.key) || pair.key.type !== "QUOTE_DOUBLE") json = false;
    },
    Scalar(_, scalar) {
      if (scalar.type === "QUOTE_SINGLE" || scalar.type?.startsWith("BLOCK")) json = false;
    },
  });
  return json;
}

/**
 * Texts to put into rendered YAML as they are: each is a placeholder scalar while the YAML
 * writer works, replaced afterwards.
 */
export class RawTexts {
  readonly #texts = new Map<string, string>();
  readonly #nonce = crypto.randomUUID().replaceAll("-", "");

  /** A plain scalar that stands for `text` in a node to render. */
  scalar(text: string): Scalar {
    const key = `yqraw${this.#nonce}n${this.#texts.size}`;
    this.#texts.set(key, text);
    return new Scalar(key);
  }

  /** `rendered` with each placeholder replaced by its text. */
  fill(rendered: string): string {
    let out = rendered;
    for (const [key, text] of this.#texts) out = out.replace(key, () => text);
    return out;
  }
}

/** What the YAML writer needs besides the node. */
interface RenderOptions {
  readonly style: Style;
  readonly raw: RawTexts;
}

function toText(node: Node, options: RenderOptions, flowPadding?: boolean): string {
  const doc = new Document(node);
  const text = doc.toString({
    indent: options.style.indent,
    indentSeq: options.style.indentSeq,
    lineWidth: 0,
    minContentWidth: 0,
    singleQuote: options.style.quote === "'" ? true : null,
    flowCollectionPadding: flowPadding ?? options.style.flowPadding,
  });
  return options.raw.fill(text);
}

/** `text` with every line after the first shifted right by `column` spaces (blank lines kept). */
export function shiftLines(text: string, column: number): string {
  if (column === 0) return text;
  const pad = " ".repeat(column);
  return text.replace(/\n(?=[^\n])/g, `\n${pad}`);
}

/** A node as a block at column 0, ending with a newline. */
export function renderBlock(node: Node, options: RenderOptions): string {
  return toText(node, options);
}

/**
 * A node as the value of a key of a block mapping whose keys are at `column`: the text that
 * follows the `:` (` value` or a newline and the nested block), ending with a newline.
 */
export function renderAfterKey(node: Node, column: number, options: RenderOptions): string {
  const map = new YAMLMap();
  map.set("k", node);
  const text = toText(map, options);
  return shiftLines(text.slice("k:".length), column);
}

/**
 * A node as an item of a block sequence whose `-` is at `column`: the text that follows the
 * `-`, ending with a newline. `compact` (the default) puts a mapping's first key on the `-` line.
 */
export function renderAfterDash(
  node: Node,
  column: number,
  options: RenderOptions,
  compact = true,
): string {
  if (!compact && isCollection(node)) {
    return shiftLines(`\n${" ".repeat(2)}${shiftLines(renderBlock(node, options), 2)}`, column);
  }
  const seq = new YAMLSeq();
  seq.items.push(node);
  const text = toText(seq, options);
  return shiftLines(text.slice(text.indexOf("-") + 1), column);
}

/** A node written in flow style on one line (`{a: 1}`, `[x, y]`, `"multi\nline"`), without comments. */
export function renderFlow(node: Node, options: RenderOptions, padding: boolean): string {
  const oneLine = (n: Node) => {
    // Comments cannot stay on one line: they are dropped from what is written in flow style.
    n.comment = null;
    n.commentBefore = null;
    n.spaceBefore = false;
  };
  oneLine(node);
  visit(node, {
    Map(_, map) {
      oneLine(map);
      map.flow = true;
    },
    Seq(_, seq) {
      oneLine(seq);
      seq.flow = true;
    },
    Scalar(_, scalar) {
      oneLine(scalar);
      if (scalar.type === "BLOCK_LITERAL" || scalar.type === "BLOCK_FOLDED") {
        scalar.type = "QUOTE_DOUBLE";
      }
    },
    Pair(_, pair) {
      if (!options.style.json) return;
      const key = isScalar(pair.key) ? pair.key : new Scalar(pair.key);
      key.type = "QUOTE_DOUBLE";
      pair.key = key;
    },
  });
  return toText(node, options, padding).replace(/\n$/, "");
}

/** True when a flow collection's text has spaces inside its brackets (`{ a: 1 }`). */
export function hasFlowPadding(text: string, node: YAMLMap | YAMLSeq): boolean {
  const [start, end] = rangeOf(node);
  const inner = text.slice(start + 1, end - 1);
  return inner.length > 0 ? /^\s/.test(inner) : true;
}

/**
 * A copy of a node from another document, ready to be written into this one: plain scalars
 * that are not strings, or have a tag, keep their text (`1.10`, `0x1F`, `010`, `~`, `!!float 1`)
 * through {@link RawTexts};
 * a subtree with anchors or aliases becomes plain data (its aliases resolved in `from`), so
 * that it neither redefines nor misses an anchor of the document it goes into, unless
 * `keepLinks` (the caller checked that its anchors and aliases stay right).
 */
export function copyNode(node: Node, from: Document, raw: RawTexts, keepLinks = false): Node {
  let linked = false;
  visit(node, {
    Node(_, n) {
      if (isAlias(n) || ("anchor" in n && n.anchor)) linked = true;
    },
  });
  if (linked && !keepLinks) {
    const plain = isAlias(node) ? node.resolve(from)?.toJS(from) : node.toJS(from);
    return new Document(plain).contents as Node;
  }
  if (isAlias(node)) return raw.scalar(`*${node.source}`);
  const copy = node.clone() as Node;
  if (linked) {
    // Kept aliases are written as they are (the YAML writer resolves an alias only within
    // the document it writes).
    visit(copy, {
      Alias(_, alias) {
        return raw.scalar(`*${alias.source}`);
      },
    });
  }
  const replace = (scalar: Scalar): Scalar | undefined => {
    if (scalar.type !== "PLAIN") return undefined;
    if (typeof scalar.value === "string" && scalar.tag === undefined) return undefined;
    if (typeof scalar.source !== "string") return undefined;
    const tag = scalar.tag?.replace(/^tag:yaml\.org,2002:/, "!!");
    const stand = raw.scalar(tag ? `${tag} ${scalar.source}` : scalar.source);
    stand.commentBefore = scalar.commentBefore;
    stand.comment = scalar.comment;
    stand.spaceBefore = scalar.spaceBefore;
    return stand;
  };
  if (isScalar(copy)) return replace(copy) ?? copy;
  visit(copy, {
    Scalar(key, scalar) {
      if (key === "key") return undefined;
      return replace(scalar);
    },
  });
  return copy;
}
