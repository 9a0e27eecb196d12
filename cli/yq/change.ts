/**
 * What the yq commands that change a document share: the path of a change (never the document
 * itself), a value written at a path in the chosen documents, creating what is missing (`w`
 * writes into a file, `new` into an empty document, a script does both), and a delete. Each
 * says what it matched, so that nothing is ever silently not done.
 *
 * @module
 */
import { type Document, isScalar, type Node, visit } from "yaml";
import { UsageError } from "../../lib/errors.ts";
import { parseYamlStream } from "../../lib/yaml.ts";
import { createMissing, type TypedValue } from "./create.ts";
import { chosenIndices, type DocumentChoice, editDocuments } from "./documents.ts";
import type { DocumentEditor } from "./editor.ts";
import { parseSource, type YamlSource } from "./files.ts";
import { joinPath, locate, nodeAt, type Place, scalarText } from "./locate.ts";
import { formatPath, parsePath, type Segment } from "./path.ts";
import { copyNode } from "./render.ts";

/** What a change did. */
export interface ChangeOutcome {
  /** The new text of the stream. */
  readonly text: string;
  /** How many places were written, created or deleted. */
  readonly places: number;
  /** The paths of those places (created ones: where they were added). */
  readonly paths: readonly string[];
}

/** Parses the path of a write or a delete; the document itself is not a place to change. */
export function pathToChange(text: string, verb: "write" | "delete"): Segment[] {
  const segments = parsePath(text);
  if (segments.length === 0) {
    const done = verb === "write" ? "written" : "deleted";
    throw new UsageError(`Give a path to ${verb}: the document itself cannot be ${done}`);
  }
  return segments;
}

/**
 * A stream with a document to write into: a stream of none (empty, or only comments) gets a
 * null one after what it holds; `added` says so.
 */
export function withDocument(
  source: YamlSource,
): { text: string; docs: Document.Parsed[]; added: boolean } {
  const docs = parseSource(source);
  if (docs.length > 0) return { text: source.text, docs, added: false };
  // A null document to write into, after what the stream holds (comments).
  const text = `${source.text}${source.text === "" || source.text.endsWith("\n") ? "" : "\n"}~\n`;
  return { text, docs: parseYamlStream(text), added: true };
}

/** The anchor names a document defines. */
export function anchorsOf(doc: Document): Set<string> {
  const names = new Set<string>();
  visit(doc, {
    Node(_, node) {
      if ("anchor" in node && node.anchor) names.add(node.anchor);
    },
  });
  return names;
}

/** Writes `value` at an existing `place` (with no text: re-tags or restyles the scalar there). */
function writeAt(editor: DocumentEditor, place: Place, value: TypedValue, path: string): void {
  if (value.tree) {
    const tree = copyNode(value.tree.node, value.tree.doc, editor.raw);
    return editor.setValue(place, { tree });
  }
  let text = value.text;
  if (text === undefined) {
    const old = nodeAt(editor.doc, place);
    if (!isScalar(old)) {
      throw new UsageError(
        `Cannot change only the ${
          value.tag !== undefined ? "tag" : "style"
        } of "${path}": it is not a scalar (give a value)`,
      );
    }
    text = scalarText(old);
  }
  editor.writeScalar(place, text, value);
}

/**
 * Writes `value` at `segments` in the chosen documents of `source`, creating what is missing
 * (not for a value without text, which only changes what is there). A stream without any
 * document gets one.
 */
export function writeValue(
  source: YamlSource,
  segments: readonly Segment[],
  value: TypedValue,
  choice: DocumentChoice,
  indent = 2,
): ChangeOutcome {
  const { text, docs, added } = withDocument(source);
  const paths: string[] = [];
  const result = editDocuments(
    text,
    docs,
    chosenIndices(choice, docs.length, source.name),
    `write "${formatPath(segments)}" in "${source.name}"`,
    (editor) => {
      if (value.alias && value.text !== undefined && !anchorsOf(editor.doc).has(value.text)) {
        throw new UsageError(
          `Cannot write the alias *${value.text}: the document has no anchor &${value.text}`,
        );
      }
      const { found, missing } = locate(editor.doc, segments, "write");
      for (const f of found) {
        writeAt(editor, f.place, value, f.path);
        paths.push(f.path);
      }
      if (value.text === undefined && !value.tree) return;
      for (const m of missing) {
        if (createMissing(editor, m, value)) {
          paths.push(`${joinPath(m.path, formatPath(m.rest))} (new)`);
        }
      }
    },
    indent,
  );
  if (added && result === text) return { text: source.text, places: 0, paths: [] };
  return { text: result, places: paths.length, paths };
}

/** Deletes what `segments` match in the chosen documents of `source`. */
export function deletePath(
  source: YamlSource,
  segments: readonly Segment[],
  choice: DocumentChoice,
): ChangeOutcome {
  const docs = parseSource(source);
  const paths: string[] = [];
  const text = docs.length === 0 ? source.text : editDocuments(
    source.text,
    docs,
    chosenIndices(choice, docs.length, source.name),
    `delete "${formatPath(segments)}" in "${source.name}"`,
    (editor) => {
      const { found } = locate(editor.doc, segments, "delete");
      editor.delete(found.map((f) => f.place));
      paths.push(...found.map((f) => f.path));
    },
  );
  return { text, places: paths.length, paths };
}

/** The first document of a file's text, as the value `-f` and scripts write. */
export function documentValue(source: YamlSource): { node: Node; doc: Document } | undefined {
  const [doc] = parseSource(source);
  const node = doc?.contents as Node | null | undefined;
  return doc && node ? { node, doc } : undefined;
}
