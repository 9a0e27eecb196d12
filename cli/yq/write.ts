/**
 * `toolkit yq w <file> [path] [value]` (igc's only yq command, with all of yq v3's): writes the
 * value at the path, in every document chosen with `-d` and at every place the path matches,
 * creating the keys and items it lacks, and prints the file (or with `-i` writes it back).
 * Everything else in the file stays byte for byte. `-` reads standard input.
 *
 * The value is the text typed (`[]` and `{}` are empty collections), the first document of
 * `-f`'s file, or, without one, what is there with a new `--tag` or `--style`; `--anchorName`
 * puts an anchor on it and `--makeAlias` makes it an alias. `-s` runs a script of updates and
 * deletes instead. A path that matches nothing is said on stderr; `-v` lists what was written.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { YQ_WRITE } from "./write_command.ts";
import { parseDocumentChoice } from "./documents.ts";
import { checkInPlace, readSource } from "./files.ts";
import { checkIndent, emitResult } from "./output.ts";
import { applyChanges, changesOf, reporter } from "./plan.ts";

/** Runs `yq w`. */
export async function run(options: OptionsOf<typeof YQ_WRITE>, ctx: CommandContext): Promise<void> {
  checkInPlace(options.file, options.inplace);
  const choice = parseDocumentChoice(options.doc);
  checkIndent(options.indent);
  const changes = await changesOf(ctx.io, options);
  const source = await readSource(ctx.io, options.file);
  const report = reporter(ctx.io, source.name, options);
  const text = applyChanges(source, changes, choice, report, options.indent);
  const written = await emitResult(ctx.io, source, text, options);
  if (options.verbose && options.inplace) {
    ctx.io.stderr.write(written ? `Wrote "${source.name}"\n` : `"${source.name}" is unchanged\n`);
  }
}
