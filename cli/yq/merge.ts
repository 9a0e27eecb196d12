/**
 * `toolkit yq merge <file> <other>…`: deep-merges the other files into the first, as yq v3's
 * `merge` did, and prints it (or with `-i` writes it back). Keys the first file lacks are added
 * (with their comments) after its last key; keys it has are merged in depth and, at the
 * leaves, kept unless `-x/--overwrite`; sequences are kept, replaced with `-x`, or extended
 * with `-a/--append`. Each file's document `-d N` goes into the first file's document N (with
 * `-d '*'`, document by document). Everything the merge does not change stays byte for byte.
 *
 * @module
 */
import { type Document, isAlias, isMap, isScalar, isSeq, type Node } from "yaml";
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { YQ_MERGE } from "./merge_command.ts";
import { UsageError } from "../../lib/errors.ts";
import { parseYamlStream } from "../../lib/yaml.ts";
import { chosenIndices, editDocuments, parseDocumentChoice } from "./documents.ts";
import type { DocumentEditor, NewValue } from "./editor.ts";
import { checkInPlace, parseSource, readSource, writeResult, type YamlSource } from "./files.ts";
import { isNothing, nodeAt, pairOf, type Place } from "./locate.ts";
import { copyNode } from "./render.ts";

/** How values that both sides have are merged. */
export interface MergeOptions {
  /** Later values replace earlier ones. */
  readonly overwrite: boolean;
  /** Sequences are extended with the later items. */
  readonly append: boolean;
}

function resolved(doc: Document, node: Node | null): Node | null {
  return isAlias(node) ? (node.resolve(doc) as Node | undefined) ?? null : node;
}

/** Merges `source` (a node of `from`) into the node at `place` of the editor's document. */
export function mergeInto(
  editor: DocumentEditor,
  place: Place,
  source: Node | null,
  from: Document,
  options: MergeOptions,
): void {
  const target = nodeAt(editor.doc, place);
  source = resolved(from, source);
  if (isNothing(source)) return;
  const copy = (node: Node): NewValue => ({ tree: copyNode(node, from, editor.raw) });
  if (isNothing(target)) return editor.setValue(place, copy(source!));
  if (isMap(target) && isMap(source)) {
    const added: [Node, NewValue][] = [];
    for (const pair of source.items) {
      if (!isScalar(pair.key)) continue;
      const name = String(pair.key.value);
      const existing = pairOf(target, name);
      if (existing) {
        const at: Place = { kind: "pair", map: target, pair: existing, parent: place };
        mergeInto(editor, at, (pair.value as Node | null) ?? null, from, options);
      } else if (pair.value !== null && pair.value !== undefined) {
        added.push([pair.key.clone() as Node, copy(pair.value as Node)]);
      }
    }
    return editor.addPairs(target, place, added);
  }
  if (isSeq(target) && isSeq(source) && options.append) {
    return editor.addItems(target, place, source.items.map((item) => copy(item as Node)));
  }
  if (options.overwrite) editor.setValue(place, copy(source!));
}

/** Merges the documents of `other` into the stream `text`; returns the new text. */
function mergeFile(
  text: string,
  name: string,
  other: YamlSource,
  choice: number | "all",
  options: MergeOptions,
): string {
  let docs = parseYamlStream(text);
  const empty = docs.length === 0;
  let base = text;
  if (empty) {
    base += `${text === "" || text.endsWith("\n") ? "" : "\n"}~\n`;
    docs = parseYamlStream(base);
  }
  const sources = parseSource(other);
  const indices = chosenIndices(choice, docs.length, name);
  const result = editDocuments(
    base,
    docs,
    indices,
    `merge "${other.name}" into "${name}"`,
    (editor, i) => {
      const from = sources[i];
      if (from) {
        mergeInto(
          editor,
          { kind: "root" },
          (from.contents as Node | null) ?? null,
          from,
          options,
        );
      }
    },
  );
  return empty && result === base ? text : result;
}

/** Runs `yq merge`. */
export async function run(options: OptionsOf<typeof YQ_MERGE>, ctx: CommandContext): Promise<void> {
  const [first, ...others] = options.files;
  if (first === undefined) throw new UsageError("Give the files to merge");
  const choice = parseDocumentChoice(options.doc);
  checkInPlace(first, options.inplace);
  const target = await readSource(ctx.io, first);
  parseSource(target);
  const sources: YamlSource[] = [];
  for (const file of others) {
    if (file === "-" && first === "-") throw new UsageError("Standard input can be read once");
    sources.push(await readSource(ctx.io, file));
  }
  let text = target.text;
  for (const other of sources) {
    text = mergeFile(text, target.name, other, choice, {
      overwrite: options.overwrite,
      append: options.append,
    });
  }
  await writeResult(ctx.io, target, text, options.inplace);
}
