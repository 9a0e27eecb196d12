/**
 * How `r` and `compare` print what a path matches, with yq v3's flags:
 *
 * - a scalar prints as its text (`--unwrapScalar=false`: as YAML, with its quotes and comment);
 * - a mapping or sequence prints as its own lines of the file, comments included, moved to the
 *   left margin; several are separated by `---` (yq printed them run together, which no YAML
 *   reader can split again);
 * - `-p p` prints yq's paths (`b.e.[1].name`), `-p pv` a `path: value` line per match;
 * - `-l` prints lengths (items, keys, characters), `-c` the matches as one sequence;
 * - `-j` prints JSON, `-P` and `-X` YAML written anew (see `restyle.ts`), `--stripComments`
 *   the same without comments, `-C` with colours;
 * - nothing matched: nothing, or `-D`'s text.
 *
 * @module
 */
import { type Document, isMap, isScalar, isSeq, Lexer, type Node, Scalar } from "yaml";
import { UsageError } from "../../lib/errors.ts";
import { parseYamlStream } from "../../lib/yaml.ts";
import type { CliIO } from "../io.ts";
import { writeResult, type YamlSource } from "./files.ts";
import { colorize } from "./color.ts";
import { jsonEntry, jsonText, type JsonValue, jsonValue } from "./json.ts";
import { columnOf, isBlock, rangeOf } from "./layout.ts";
import { type PathElement, scalarText, yqPathString } from "./locate.ts";
import { copyNode, RawTexts, renderBlock, shiftLines } from "./render.ts";
import { restyledText } from "./restyle.ts";

/** What a path matched, to print. */
export interface Match {
  /** The stream's text. */
  readonly text: string;
  /** The document of the match. */
  readonly doc: Document.Parsed;
  /** The node (aliases resolved). */
  readonly node: Node | null;
  /** yq's path elements. */
  readonly elements: readonly PathElement[];
  /** The match is the whole document (an empty path). */
  readonly whole: boolean;
  /** The index of the document in the stream. */
  readonly index: number;
}

/**
 * Checks `-I`.
 *
 * @throws {UsageError} for an indentation that is not a whole number from 1 to 16.
 */
export function checkIndent(indent: number): void {
  if (!Number.isInteger(indent) || indent < 1 || indent > 16) {
    throw new UsageError(`-I/--indent must be a whole number from 1 to 16, not ${indent}`);
  }
}

/** How matches print (yq's flags). */
export interface PrintOptions {
  readonly printMode: "v" | "p" | "pv" | "vp";
  readonly length: boolean;
  readonly collect: boolean;
  readonly unwrapScalar: boolean;
  readonly stripComments: boolean;
  readonly explodeAnchors: boolean;
  readonly tojson: boolean;
  readonly prettyPrint: boolean;
  readonly indent: number;
  readonly colors: boolean;
  readonly defaultValue?: string | undefined;
}

/** A piece of YAML: `block` when it is lines that go below a key (a block collection). */
interface Piece {
  readonly text: string;
  readonly block: boolean;
}

/** The length of a match as yq counts it: items, keys, or characters of a scalar. */
export function lengthOf(node: Node | null): number {
  if (isSeq(node)) return node.items.length;
  if (isMap(node)) return node.items.length;
  if (isScalar(node)) return Array.from(node.value === null ? "" : scalarText(node)).length;
  return 0;
}

/** A block's lines with the first line's column removed from the following ones. */
function dedent(text: string, column: number): string {
  if (column === 0) return text;
  return text.replace(/\n([ ]*)/g, (_, spaces: string) => `\n${spaces.slice(column)}`);
}

/** Where the text of document `doc` starts and ends, without its `---` and `...` lines. */
function bodyOf(text: string, doc: Document.Parsed, first: boolean): string {
  let start = doc.range[0];
  const end = doc.range[2];
  if (text.startsWith("---", start)) {
    const newline = text.indexOf("\n", start);
    start = newline === -1 || newline > end ? start + 3 : newline + 1;
  } else if (first) {
    start = 0;
  }
  let body = text.slice(start, end).replace(/(^|\n)\.\.\.[ \t]*(#[^\n]*)?\n?$/, "$1");
  body = body.replace(/^(\s*\n)+/, "");
  return body.replace(/\s*$/, "\n");
}

/**
 * A mapping or sequence of `doc` (in the stream `text`) as YAML text of its own, ending with a
 * newline: its lines from the file, or, when those do not stand alone (an alias to an anchor
 * outside), its data written anew.
 */
export function collectionText(text: string, doc: Document, node: Node): string {
  const [start, end] = rangeOf(node);
  let out = text.slice(start, end);
  if ((isMap(node) || isSeq(node)) && isBlock(node)) out = dedent(out, columnOf(text, start));
  out = out.replace(/\s*$/, "\n");
  try {
    parseYamlStream(out);
    return out;
  } catch {
    // An alias to an anchor outside: the data, written anew.
  }
  return renderBlock(copyNode(node, doc, new RawTexts()), {
    style: { indent: 2, indentSeq: true, quote: '"', flowPadding: false, json: false },
    raw: new RawTexts(),
  });
}

/** A scalar as YAML: its anchor and tag and its text as written, and its comment. */
function scalarYaml(text: string, node: Scalar): string {
  const [start, end] = rangeOf(node);
  const value = start < end ? text.slice(start, end) : "";
  // Its anchor and tag are the `&a` and `!t` words just before it on its line.
  const props = node.anchor || node.tag
    ? (/((?:[&!][^\s]*[ \t]+)+)$/.exec(text.slice(Math.max(0, start - 500), start))?.[1] ?? "")
    : "";
  const comment = node.comment ? ` #${node.comment.split("\n")[0]}` : "";
  return `${props}${value}`.trimEnd() + comment;
}

/** Lines that start with `#` (after spaces) or trailing ` # …` removed (not inside scalars). */
export function withoutComments(yaml: string): string {
  let out = "";
  let pos = 0;
  for (const { start, end } of commentSpans(yaml)) {
    let from = start;
    while (from > pos && (yaml[from - 1] === " " || yaml[from - 1] === "\t")) from--;
    const lineStart = yaml.lastIndexOf("\n", from - 1) + 1;
    let to = end;
    if (from === lineStart) {
      // A line of its own goes with its newline.
      if (yaml[to] === "\r") to++;
      if (yaml[to] === "\n") to++;
    }
    out += yaml.slice(pos, from);
    pos = to;
  }
  return out + yaml.slice(pos);
}

/** The comments of YAML text: where each starts (`#`) and ends (before the line end). */
function commentSpans(yaml: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  let offset = 0;
  // deno-lint-ignore no-control-regex
  const marker = /^[\u0000-\u001f]$/;
  for (const token of new Lexer().lex(yaml)) {
    if (token.length === 1 && marker.test(token) && token !== "\n" && token !== "\t") continue;
    if (token.startsWith("#")) spans.push({ start: offset, end: offset + token.length });
    offset += token.length;
  }
  return spans;
}

/** Prints matches as `options` say. */
export function printMatches(matches: readonly Match[], options: PrintOptions): string {
  if (matches.length === 0) return options.defaultValue ?? "";
  const mode = options.printMode === "vp" ? "pv" : options.printMode;
  if (mode === "p") return matches.map((m) => `${yqPathString(m.elements)}\n`).join("");
  if (options.tojson) return printJson(matches, mode, options);

  const finish = (yaml: string) => options.colors ? colorize(yaml) : yaml;
  const piece = (m: Match): Piece => {
    if (options.length) return { text: String(lengthOf(m.node)), block: false };
    return yamlPiece(m, options);
  };
  if (options.collect) {
    const items = mode === "pv"
      ? matches.map((m) => entryText(m, piece(m), options.indent))
      : matches.map((m) => pieceAsBlock(piece(m)));
    if (options.length) return `${items.length}\n`;
    return finish(items.map((item) => `- ${shiftLines(item, 2)}`).join("") || "[]\n");
  }
  if (mode === "pv") {
    return finish(matches.map((m) => entryText(m, piece(m), options.indent)).join(""));
  }

  const texts = matches.map((m) => {
    if (options.length) return `${lengthOf(m.node)}\n`;
    if ((isScalar(m.node) || m.node === null) && options.unwrapScalar) {
      return `${scalarText(m.node)}\n`;
    }
    return finish(pieceAsBlock(yamlPiece(m, options)));
  });
  const separated = matches.some((m) =>
    !options.length &&
    (isMap(m.node) || isSeq(m.node) || (!options.unwrapScalar && matches.length > 1))
  );
  return texts.join(separated ? "---\n" : "");
}

/** A piece as text of its own (ending with a newline). */
function pieceAsBlock(piece: Piece): string {
  return piece.text.endsWith("\n") ? piece.text : `${piece.text}\n`;
}

/** `path: value` for `-p pv`. */
function entryText(m: Match, piece: Piece, indent: number): string {
  const key = new Scalar(yqPathString(m.elements));
  const keyText = renderBlock(key, {
    style: { indent: 2, indentSeq: true, quote: "'", flowPadding: false, json: false },
    raw: new RawTexts(),
  }).replace(/\n$/, "");
  if (piece.block) {
    const body = piece.text.replace(/\n$/, "").split("\n")
      .map((line) => line === "" ? line : `${" ".repeat(indent)}${line}`).join("\n");
    return `${keyText}:\n${body}\n`;
  }
  const value = piece.text.replace(/\n$/, "");
  return `${keyText}:${value === "" ? "" : ` ${value}`}\n`;
}

/** A match as YAML: from the file, or written anew for -P, -X. */
function yamlPiece(m: Match, options: PrintOptions): Piece {
  const { node } = m;
  const block = (isMap(node) || isSeq(node)) && node.items.length > 0 &&
    (options.prettyPrint || isBlock(node));
  if (options.prettyPrint || options.explodeAnchors) {
    const text = restyledText(node, m.doc, {
      pretty: options.prettyPrint,
      explode: options.explodeAnchors,
      stripComments: options.stripComments,
      indent: options.indent,
    });
    return { text: block ? text : text.replace(/\n$/, ""), block };
  }
  let text: string;
  if (m.whole) {
    text = bodyOf(m.text, m.doc, m.index === 0);
  } else if (isMap(node) || isSeq(node)) {
    text = collectionText(m.text, m.doc, node);
    if (!block) text = text.replace(/\n$/, "");
  } else if (isScalar(node)) {
    text = scalarYaml(m.text, node);
  } else {
    text = "";
  }
  if (options.stripComments) text = withoutComments(text);
  return { text, block: block || (m.whole && text.includes("\n")) };
}

function printJson(matches: readonly Match[], mode: "v" | "pv", options: PrintOptions): string {
  const indent = options.prettyPrint ? options.indent : undefined;
  const values: JsonValue[] = matches.map((m) => {
    const value: JsonValue = options.length ? lengthOf(m.node) : jsonValue(m.node, m.doc);
    return mode === "pv" ? jsonEntry(yqPathString(m.elements), value) : value;
  });
  if (options.collect) {
    return `${jsonText(options.length ? values.length : values, indent)}\n`;
  }
  return values.map((v) => `${jsonText(v, indent)}\n`).join("");
}

/** How the commands that print a whole stream print it (yq's global flags). */
export interface StreamOptions {
  readonly tojson: boolean;
  readonly prettyPrint: boolean;
  readonly indent: number;
}

/** A stream's text as `-j` (JSON, a line per document) or `-P` (written anew) ask. */
export function streamText(text: string, options: StreamOptions): string {
  if (!options.tojson && !options.prettyPrint) return text;
  const docs = parseYamlStream(text);
  if (options.tojson) {
    const indent = options.prettyPrint ? options.indent : undefined;
    return docs.map((doc) =>
      `${jsonText(jsonValue((doc.contents as Node | null) ?? null, doc), indent)}\n`
    ).join("");
  }
  return docs.map((doc) => {
    const comment = (text: string | null | undefined) =>
      text ? text.split("\n").map((line) => `#${line}\n`).join("") : "";
    const body = restyledText((doc.contents as Node | null) ?? null, doc, {
      pretty: true,
      explode: false,
      stripComments: false,
      indent: options.indent,
    });
    return `${comment(doc.commentBefore)}${body}${comment(doc.comment)}`;
  }).join("---\n");
}

/**
 * Prints the result `text` of a command on `source` as the output flags say (colours only on
 * standard output), or with `inplace` writes it to the file (only when it changed). Returns
 * whether the file was written.
 */
export function emitResult(
  io: CliIO,
  source: YamlSource,
  text: string,
  options: StreamOptions & { readonly colors: boolean; readonly inplace: boolean },
): Promise<boolean> {
  let out = streamText(text, options);
  if (options.colors && !options.inplace && !options.tojson) out = colorize(out);
  return writeResult(io, source, out, options.inplace);
}
