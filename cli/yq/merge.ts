/**
 * `toolkit yq merge <file> <other>…`: deep-merges the first document of each other file into the
 * chosen documents of the first (`-d`, the first by default; `-d '*'` all), as yq v3's `merge`,
 * and prints it (or with `-i` writes it back). Everything the merge does not change stays byte
 * for byte, and the first file keeps its styles (flow or block, quotes).
 *
 * - Keys the first file lacks are added, with their comments, after its last key
 *   (`--autocreate=false`: no key is added; sequences still grow, as in yq).
 * - A value the first file has stays, unless it is null or `-x/--overwrite`; only its
 *   characters change, its comment stays.
 * - Sequences (`-a/--arrays`): `update` merges them item by item as mappings are merged key by
 *   key (`[1,2,3]` + `-x` `[4,5]` gives `[4,5,3]`; items past the end are added), `append`
 *   adds the later items, `overwrite` replaces the sequence.
 * - Line comments (`--comments`): `setWhenBlank` puts a later file's comment on a value that
 *   has none, `append` adds it after the one there, `overwrite` replaces it, `ignore` takes
 *   none (not even on added keys).
 * - Anchors and aliases come along as they are when every alias that comes refers to an anchor
 *   that comes too and no anchor name clashes; otherwise what they refer to is written out.
 *
 * @module
 */
import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type Node,
  Scalar,
  visit,
  type YAMLMap,
  type YAMLSeq,
} from "yaml";
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { YQ_MERGE } from "./merge_command.ts";
import { UsageError } from "../../lib/errors.ts";
import { chosenIndices, editDocuments, EditResultError, parseDocumentChoice } from "./documents.ts";
import type { DocumentEditor, NewValue } from "./editor.ts";
import { checkInPlace, parseSource, readSource, type YamlSource } from "./files.ts";
import { rangeOf } from "./layout.ts";
import { entriesOf, isNothing, nodeAt, pairOf, type Place } from "./locate.ts";
import { checkIndent, emitResult } from "./output.ts";
import { copyNode } from "./render.ts";
import { anchorsOf, withDocument } from "./change.ts";

/** How values that both sides have are merged. */
export interface MergeOptions {
  /** Later values replace earlier ones. */
  readonly overwrite: boolean;
  /** What the first file lacks is added. */
  readonly autocreate: boolean;
  /** How sequences are merged. */
  readonly arrays: "update" | "append" | "overwrite";
  /** How line comments are merged. */
  readonly comments: "setWhenBlank" | "ignore" | "append" | "overwrite";
}

/** The `# comment` on the line of a node, after it: where it starts and ends, its text. */
function lineComment(
  text: string,
  node: Node,
): { start: number; end: number; text: string } | undefined {
  const end = rangeOf(node)[1];
  const match = /^[ \t]+(#[^\r\n]*)/.exec(text.slice(end));
  if (!match) return undefined;
  const start = end + match[0].length - match[1]!.length;
  return { start, end: start + match[1]!.length, text: match[1]! };
}

/** The nodes within `node`. */
function within(node: Node): Node[] {
  const nodes: Node[] = [];
  visit(node, { Node: (_, n) => void nodes.push(n) });
  return nodes;
}

/** Copies nodes of the merged file, keeping their anchors and aliases when `links`. */
class Copier {
  readonly copied: Node[] = [];

  constructor(
    readonly from: Document,
    readonly fromText: string,
    readonly links: boolean,
    readonly comments: boolean,
  ) {}

  copy(editor: DocumentEditor, node: Node): NewValue {
    this.copied.push(node);
    const tree = copyNode(node, this.from, editor.raw, this.links);
    if (!this.comments) {
      visit(tree, {
        Node(_, n) {
          n.comment = null;
          n.commentBefore = null;
        },
      });
      tree.comment = null;
      tree.commentBefore = null;
    }
    return { tree };
  }

  /** True when the copied anchors and aliases stay right in `target`. */
  linksHold(target: Document): boolean {
    const copied = new Set(this.copied.flatMap(within));
    const existing = anchorsOf(target);
    for (const node of copied) {
      if (isAlias(node) && !copied.has(node.resolve(this.from) as Node)) return false;
      if ("anchor" in node && node.anchor && existing.has(node.anchor)) return false;
    }
    return true;
  }
}

/** Merges one document into the editor's, as the options say. */
class Merger {
  constructor(
    readonly editor: DocumentEditor,
    readonly copier: Copier,
    readonly options: MergeOptions,
  ) {}

  resolved(node: Node | null): Node | null {
    return isAlias(node) ? (node.resolve(this.copier.from) as Node | undefined) ?? null : node;
  }

  /** Merges `source` (a node of the merged file) into the node at `place`. */
  merge(place: Place, source: Node | null): void {
    const { editor, options } = this;
    const target = nodeAt(editor.doc, place);
    const value = this.resolved(source);
    if (source === null || isNothing(value)) return;
    if (isNothing(target)) return editor.setValue(place, this.copier.copy(editor, source));
    if (isMap(target) && isMap(value)) return this.mergeMaps(place, target, value);
    if (isSeq(target) && isSeq(value)) return this.mergeSeqs(place, target, value, source);
    if (isScalar(target) && isScalar(value) && !isAlias(source)) {
      if (options.overwrite) this.replaceScalar(place, target, value);
      return this.mergeComment(target, value);
    }
    if (options.overwrite) editor.setValue(place, this.copier.copy(editor, source));
  }

  mergeMaps(place: Place, map: YAMLMap, source: YAMLMap): void {
    const added: [Node, NewValue][] = [];
    for (const entry of entriesOf(this.copier.from, source, true)) {
      const value = (entry.pair.value as Node | null) ?? null;
      const existing = pairOf(map, entry.key);
      if (existing) {
        this.merge({ kind: "pair", map, pair: existing, parent: place }, value);
      } else if (this.options.autocreate) {
        const key = isScalar(entry.pair.key)
          ? (entry.pair.key.clone() as Node)
          : new Scalar(entry.key);
        if (!this.copier.comments) {
          key.commentBefore = null;
          key.comment = null;
        }
        added.push([key, value === null ? { text: "null" } : this.copier.copy(this.editor, value)]);
      }
    }
    this.editor.addPairs(map, place, added);
  }

  mergeSeqs(place: Place, seq: YAMLSeq, source: YAMLSeq, written: Node): void {
    const items = source.items as (Node | null)[];
    const { arrays } = this.options;
    if (arrays === "overwrite") {
      return this.editor.setValue(place, this.copier.copy(this.editor, written));
    }
    const start = arrays === "append" ? 0 : seq.items.length;
    if (arrays === "update") {
      items.slice(0, seq.items.length).forEach((item, index) =>
        this.merge({ kind: "item", seq, index, parent: place }, item)
      );
    }
    const extra = items.slice(start).map((item) =>
      item === null ? { text: "null" } : this.copier.copy(this.editor, item)
    );
    this.editor.addItems(seq, place, extra);
  }

  /** The value of a scalar replaced by a later one's, its comment kept. */
  replaceScalar(place: Place, target: Scalar, source: Scalar): void {
    const [start, end] = rangeOf(source);
    const written = this.copier.fromText.slice(start, end);
    if (written === this.editor.text.slice(rangeOf(target)[0], rangeOf(target)[1])) return;
    const tree = copyNode(source, this.copier.from, this.editor.raw);
    tree.comment = null;
    tree.commentBefore = null;
    this.editor.setValue(place, { tree });
  }

  /** The later file's line comment of a scalar, as `--comments` says. */
  mergeComment(target: Scalar, source: Scalar): void {
    const strategy = this.options.comments;
    if (strategy === "ignore") return;
    const theirs = lineComment(this.copier.fromText, source);
    const ours = lineComment(this.editor.text, target);
    const end = rangeOf(target)[1];
    switch (strategy) {
      case "setWhenBlank":
        if (!ours && theirs) this.editor.insert(end, ` ${theirs.text}`);
        return;
      case "append":
        if (theirs) this.editor.insert(ours ? ours.end : end, ` ${theirs.text}`);
        return;
      case "overwrite":
        if (ours) this.editor.replace(end, ours.end, theirs ? ` ${theirs.text}` : "");
        else if (theirs) this.editor.insert(end, ` ${theirs.text}`);
        return;
    }
  }
}

/** Merges `other`'s first document into the chosen documents of the stream `text`. */
function mergeFile(
  text: string,
  name: string,
  other: YamlSource,
  choice: number | "all",
  options: MergeOptions,
  indent: number,
): string {
  const [from] = parseSource(other);
  const root = (from?.contents as Node | null | undefined) ?? null;
  if (!from || root === null) return text;
  const { text: base, docs, added: empty } = withDocument({ name, path: undefined, text });
  const indices = chosenIndices(choice, docs.length, name);
  const attempt = (links: boolean) => {
    const copier = new Copier(from, other.text, links, options.comments !== "ignore");
    const result = editDocuments(
      base,
      docs,
      indices,
      `merge "${other.name}" into "${name}"`,
      (editor) => {
        new Merger(editor, copier, options).merge({ kind: "root" }, root);
        if (links && !copier.linksHold(editor.doc)) throw new LinksBroken();
      },
      indent,
    );
    return empty && result === base ? text : result;
  };
  try {
    return attempt(true);
  } catch (error) {
    if (!(error instanceof LinksBroken || error instanceof EditResultError)) throw error;
    return attempt(false);
  }
}

/** Anchors and aliases copied as they are would not stay right. */
class LinksBroken extends Error {}

/** Runs `yq merge`. */
export async function run(options: OptionsOf<typeof YQ_MERGE>, ctx: CommandContext): Promise<void> {
  const [first, ...others] = options.files;
  if (first === undefined) throw new UsageError("Give the files to merge");
  const choice = parseDocumentChoice(options.doc);
  checkInPlace(first, options.inplace);
  checkIndent(options.indent);
  const target = await readSource(ctx.io, first);
  parseSource(target);
  const sources: YamlSource[] = [];
  for (const file of others) {
    if (file === "-" && first === "-") throw new UsageError("Standard input can be read once");
    sources.push(await readSource(ctx.io, file));
  }
  const merge: MergeOptions = {
    overwrite: options.overwrite,
    autocreate: options.autocreate,
    arrays: options.append ? "append" : options.arrays,
    comments: options.comments,
  };
  let text = target.text;
  for (const other of sources) {
    text = mergeFile(text, target.name, other, choice, merge, options.indent);
  }
  await emitResult(ctx.io, target, text, options);
}
