/**
 * `toolkit yq d <file> <path>`: deletes the keys and items the path matches, in the documents
 * chosen with `-d`, with their lines, and prints the file (or with `-i` writes it back). A
 * mapping or sequence that loses its last entry becomes `{}` or `[]`; a path that matches
 * nothing changes nothing.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { YQ_DELETE } from "./delete_command.ts";
import { chosenIndices, editDocuments, parseDocumentChoice } from "./documents.ts";
import { checkInPlace, parseSource, readSource, writeResult } from "./files.ts";
import { locate } from "./locate.ts";
import { formatPath } from "./path.ts";
import { pathToChange } from "./change.ts";

/** Runs `yq d`. */
export async function run(
  options: OptionsOf<typeof YQ_DELETE>,
  ctx: CommandContext,
): Promise<void> {
  const segments = pathToChange(options.path, "delete");
  const choice = parseDocumentChoice(options.doc);
  checkInPlace(options.file, options.inplace);
  const source = await readSource(ctx.io, options.file);
  const docs = parseSource(source);
  let deleted = 0;
  const text = docs.length === 0 ? source.text : editDocuments(
    source.text,
    docs,
    chosenIndices(choice, docs.length, source.name),
    `delete "${formatPath(segments)}" in "${source.name}"`,
    (editor) => {
      const { found } = locate(editor.doc, segments, "delete");
      editor.delete(found.map((f) => f.place));
      deleted += found.length;
    },
  );
  if (options.verbose) {
    ctx.io.stderr.write(
      deleted === 0
        ? `path "${options.path}" matches nothing in "${source.name}"\n`
        : `Deleted ${deleted} entr${deleted === 1 ? "y" : "ies"}\n`,
    );
  }
  await writeResult(ctx.io, source, text, options.inplace);
}
