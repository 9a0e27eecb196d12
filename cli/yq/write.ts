/**
 * `toolkit yq w <file> <path> <value>` (igc's only yq command): writes the value at the path,
 * in every document chosen with `-d` and at every place the path matches, creating the keys
 * and items it lacks, and prints the file (or with `-i` writes it back). Everything else in the
 * file stays byte for byte. `-` reads standard input.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { YQ_WRITE } from "./write_command.ts";
import { pathToChange, writeValue } from "./change.ts";
import { parseDocumentChoice } from "./documents.ts";
import { checkInPlace, readSource, writeResult } from "./files.ts";

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
