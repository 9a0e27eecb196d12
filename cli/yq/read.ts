/**
 * `toolkit yq r [file] [path]`: prints what the path matches in the documents chosen with
 * `-d` (the first by default; `-` or no file reads standard input). A string prints as its
 * text, another scalar as it is written in the file (`1.10`, `0x1F`; null as `null`); a
 * mapping or sequence prints as its own lines of the file, comments included, moved to the
 * left margin. Several matches print one per line, or as documents separated by `---` when
 * one of them is a mapping or sequence. A path that matches nothing prints nothing.
 *
 * @module
 */
import { type Document, isAlias, isMap, isScalar, isSeq, type Node } from "yaml";
import { parseYamlStream } from "../../lib/yaml.ts";
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { YQ_READ } from "./read_command.ts";
import { chosenIndices, parseDocumentChoice } from "./documents.ts";
import { parseSource, readSource } from "./files.ts";
import { columnOf, isBlock, rangeOf } from "./layout.ts";
import { locate } from "./locate.ts";
import { parsePath } from "./path.ts";
import { copyNode, RawTexts, renderBlock } from "./render.ts";

/** The text of a scalar as `r` prints it (without a newline). */
export function scalarText(node: Node | null): string {
  if (node === null || !isScalar(node) || node.value === null) return "null";
  if (typeof node.value === "string") return node.value;
  return node.type === "PLAIN" && typeof node.source === "string"
    ? node.source
    : String(node.value);
}

/** A text as one or more whole lines (a string that ends with a newline gets no other). */
function line(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}

/** A block's lines with the first line's column removed from the following ones. */
function dedent(text: string, column: number): string {
  if (column === 0) return text;
  return text.replace(/\n([ ]*)/g, (_, spaces: string) => `\n${spaces.slice(column)}`);
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

/** Runs `yq r`. */
export async function run(options: OptionsOf<typeof YQ_READ>, ctx: CommandContext): Promise<void> {
  const segments = parsePath(options.path ?? "");
  const choice = parseDocumentChoice(options.doc);
  const source = await readSource(ctx.io, options.file);
  const docs = parseSource(source);
  const indices = docs.length === 0 ? [] : chosenIndices(choice, docs.length, source.name);
  const matches: { doc: Document; node: Node | null }[] = [];
  for (const index of indices) {
    const doc = docs[index]!;
    for (const found of locate(doc, segments, "read").found) {
      const node = isAlias(found.node)
        ? (found.node.resolve(doc) as Node | undefined) ?? null
        : found.node;
      matches.push({ doc, node });
    }
  }
  if (matches.length === 0 && options.verbose) {
    ctx.io.stderr.write(`path "${options.path ?? ""}" matches nothing in "${source.name}"\n`);
  }
  const texts = matches.map(({ doc, node }) =>
    isMap(node) || isSeq(node) ? collectionText(source.text, doc, node) : line(scalarText(node))
  );
  const separated = matches.some(({ node }) => isMap(node) || isSeq(node));
  ctx.io.stdout.write(texts.join(separated ? "---\n" : ""));
}
