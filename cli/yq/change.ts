/**
 * What the yq commands that change a document share: the path of a change (never the document
 * itself), and a value written at a path in the chosen documents, creating what is missing
 * (`w` writes into a file, `new` into an empty document; `d` takes its path from here).
 *
 * @module
 */
import { UsageError } from "../../lib/errors.ts";
import { parseYamlStream } from "../../lib/yaml.ts";
import { createMissing, type TypedValue } from "./create.ts";
import { chosenIndices, type DocumentChoice, editDocuments } from "./documents.ts";
import { parseSource, type YamlSource } from "./files.ts";
import { locate } from "./locate.ts";
import { formatPath, parsePath, type Segment } from "./path.ts";

/** What a write did. */
export interface WriteOutcome {
  /** The new text of the stream. */
  readonly text: string;
  /** How many places were written or created. */
  readonly places: number;
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
 * Writes `value` at `segments` in the chosen documents of `source`. A stream without any
 * document gets one.
 */
export function writeValue(
  source: YamlSource,
  segments: readonly Segment[],
  value: TypedValue,
  choice: DocumentChoice,
): WriteOutcome {
  let text = source.text;
  let docs = parseSource(source);
  const empty = docs.length === 0;
  if (empty) {
    // A null document to write into, after what the stream holds (comments).
    text += `${text === "" || text.endsWith("\n") ? "" : "\n"}~\n`;
    docs = parseYamlStream(text);
  }
  let places = 0;
  const result = editDocuments(
    text,
    docs,
    chosenIndices(choice, docs.length, source.name),
    `write "${formatPath(segments)}" in "${source.name}"`,
    (editor) => {
      const { found, missing } = locate(editor.doc, segments, "write");
      for (const f of found) editor.writeScalar(f.place, value.text, value.tag);
      for (const m of missing) createMissing(editor, m, value);
      places += found.length + missing.length;
    },
  );
  if (empty && result === text) return { text: source.text, places: 0 };
  return { text: result, places };
}
