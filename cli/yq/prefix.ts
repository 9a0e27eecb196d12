/**
 * `toolkit yq prefix <file> <path>`: puts each chosen document under the path (`prefix f a.b`
 * makes `a:\n  b:\n    <the document>`; `[+]` or `[0]` makes a sequence item), and prints the
 * file (or with `-i` writes it back). The document's own lines move right as a block, so its
 * comments, quotes and layout stay; its leading comments and the `---` lines stay where they
 * are. A null document becomes `{}` under the path, as in yq. The path is keys and items only.
 *
 * @module
 */
import { isMap, isScalar, isSeq, type Node, Scalar } from "yaml";
import { UsageError } from "../../lib/errors.ts";
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { YQ_PREFIX } from "./prefix_command.ts";
import { chosenIndices, editDocuments, parseDocumentChoice } from "./documents.ts";
import { checkInPlace, readSource } from "./files.ts";
import { withDocument } from "./change.ts";
import { columnOf, isBlock, lineStart, rangeOf } from "./layout.ts";
import { checkIndent, emitResult } from "./output.ts";
import { formatPath, parsePath, type Segment } from "./path.ts";
import { RawTexts, renderBlock, type Style } from "./render.ts";

/** YAML text on its way out: `block` when its lines go below a key, else after `key: `. */
interface Piece {
  readonly text: string;
  readonly block: boolean;
}

/** Every line but the first shifted right by `by` (blank lines kept). */
function shiftRest(text: string, by: number): string {
  return text.replace(/\n(?=[^\n])/g, `\n${" ".repeat(by)}`);
}

/** A key as YAML writes it (quoted when it must be). */
function keyText(name: string): string {
  return renderBlock(new Scalar(name), {
    style: { indent: 2, indentSeq: true, quote: '"', flowPadding: false, json: false },
    raw: new RawTexts(),
  }).replace(/\n$/, "");
}

/** `piece` under `segment`. */
function wrap(piece: Piece, segment: Segment, style: Style, isSeqPiece: boolean): Piece {
  if (segment.kind === "key") {
    const key = keyText(segment.name);
    if (!piece.block) {
      return { text: `${key}: ${shiftRest(piece.text, style.indent)}`, block: true };
    }
    const by = isSeqPiece && !style.indentSeq ? 0 : style.indent;
    return { text: `${key}:\n${" ".repeat(by)}${shiftRest(piece.text, by)}`, block: true };
  }
  return { text: `- ${shiftRest(piece.text, 2)}`, block: true };
}

/** Checks that the path is keys and items, which is what a prefix can be. */
function checkPrefix(path: string, segments: readonly Segment[]): void {
  if (segments.length === 0) throw new UsageError("Give a path to put the documents under");
  segments.forEach((segment, i) => {
    const ok = segment.kind === "key" || segment.kind === "append" ||
      (segment.kind === "index" && (segment.index === 0 || segment.index === -1));
    if (!ok) {
      throw new UsageError(
        `Cannot prefix with "${path}": a prefix is keys, [0] and [+], not ${
          formatPath([segment])
        } (at "${formatPath(segments.slice(0, i + 1))}")`,
      );
    }
  });
}

/** Where the document's node starts, with the anchor and tag written before it. */
function startWithProps(text: string, node: Node): number {
  let start = rangeOf(node)[0];
  if (!("anchor" in node && node.anchor) && !(node as Scalar).tag) return start;
  for (;;) {
    const before = text.slice(0, start);
    const match = /(?:^|[ \t\n])([&!][^\s]*)[ \t\n]*$/.exec(before);
    if (!match) return start;
    start = before.length - match[0].length + match[0].indexOf(match[1]!);
  }
}

/** Runs `yq prefix`. */
export async function run(
  options: OptionsOf<typeof YQ_PREFIX>,
  ctx: CommandContext,
): Promise<void> {
  const segments = parsePath(options.path);
  checkPrefix(options.path, segments);
  const choice = parseDocumentChoice(options.doc);
  checkInPlace(options.file, options.inplace);
  checkIndent(options.indent);
  const source = await readSource(ctx.io, options.file);
  const { text: base, docs } = withDocument(source);
  const text = editDocuments(
    base,
    docs,
    chosenIndices(choice, docs.length, source.name),
    `prefix "${options.path}" in "${source.name}"`,
    (editor) => {
      const node = (editor.doc.contents as Node | null) ?? null;
      let start: number;
      let end: number;
      let piece: Piece;
      const empty = node === null || (isScalar(node) && node.value === null && !node.anchor);
      if (empty) {
        start = node?.range ? node.range[0] : editor.doc.range[1];
        end = node?.range ? node.range[1] : start;
        piece = { text: "{}", block: false };
      } else {
        start = startWithProps(base, node);
        end = rangeOf(node)[1];
        const column = columnOf(base, start);
        const own = base.slice(start, end).replace(/\s+$/, "");
        const lines = own.replace(
          /\n([ ]*)/g,
          (_: string, spaces: string) => `\n${spaces.slice(column)}`,
        );
        const block = (isMap(node) || isSeq(node)) && isBlock(node);
        piece = { text: lines, block };
      }
      let isSeqPiece = isSeq(node) && !empty;
      for (const segment of [...segments].reverse()) {
        piece = wrap(piece, segment, editor.style, isSeqPiece);
        isSeqPiece = segment.kind !== "key";
      }
      const tail = base.slice(start, end).match(/\s*$/)![0];
      if (start === end) {
        const before = start > 0 && base[start - 1] !== "\n" ? "\n" : "";
        editor.insert(start, `${before}${piece.text}\n`);
      } else {
        // A document that starts on its `---` line (`--- &a`) gets its block on the next one.
        const sameLine = !/^[ \t]*$/.test(base.slice(lineStart(base, start), start));
        let from = start;
        while (sameLine && (base[from - 1] === " " || base[from - 1] === "\t")) from--;
        editor.replace(from, end, `${sameLine ? "\n" : ""}${piece.text}${tail}`);
      }
    },
    options.indent,
  );
  await emitResult(ctx.io, source, text, options);
}
