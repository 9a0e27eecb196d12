/**
 * `toolkit yq w <file> <path> <value>` (igc's only yq command): writes the value at the path,
 * in every document chosen with `-d` and at every place the path matches, creating the keys
 * and items it lacks, and prints the file (or with `-i` writes it back). Everything else in the
 * file stays byte for byte. `-` reads standard input.
 *
 * @module
 */
import type { CommandContext, OptionsOf } from "../command.ts";
import type { YQ_WRITE } from "../commands.ts";
import { UsageError } from "../../lib/errors.ts";
import { parseYamlStream } from "../../lib/yaml.ts";
import { createMissing, type TypedValue } from "./create.ts";
import {
  chosenIndices,
  type DocumentChoice,
  editDocuments,
  parseDocumentChoice,
} from "./documents.ts";
import { checkInPlace, parseSource, readSource, writeResult, type YamlSource } from "./files.ts";
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

/** Runs `yq w`. */
export async function run(options: OptionsOf<typeof YQ_WRITE>, ctx: CommandContext): Promise<void> {
  const segments = pathToChange(options.path, "write");
  const choice = parseDocumentChoice(options.doc);
  checkInPlace(options.file, options.inplace);
  const source = await readSource(ctx.io, options.file);
  const outcome = writeValue(source, segments, { text: options.value, tag: options.tag }, choice);
  if (outcome.places === 0 && !options.quiet) {
    ctx.io.stderr.write(
      `warning: path "${options.path}" matches nothing in "${source.name}"; nothing was written\n`,
    );
  }
  const written = await writeResult(ctx.io, source, outcome.text, options.inplace);
  if (options.verbose && options.inplace) {
    ctx.io.stderr.write(written ? `Wrote "${source.name}"\n` : `"${source.name}" is unchanged\n`);
  }
}
