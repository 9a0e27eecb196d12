/**
 * `toolkit yq r [file] [path]`: prints what the path matches in the documents chosen with `-d`
 * (the first by default; `-` or no file reads standard input), as `output.ts` says. A path that
 * matches nothing prints nothing and exits 0, as yq does (`-D` prints a default, `-e` makes it
 * exit 1, `-v` says so on stderr).
 *
 * @module
 */
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { YQ_READ } from "./read_command.ts";
import { parseDocumentChoice } from "./documents.ts";
import { readSource } from "./files.ts";
import { printMatches } from "./output.ts";
import { parsePath } from "./path.ts";
import { matchesIn, printOptions } from "./query.ts";

/** Runs `yq r`. */
export async function run(options: OptionsOf<typeof YQ_READ>, ctx: CommandContext): Promise<void> {
  if (options.file === "") throw new UsageError("Give a file (- for standard input)");
  parsePath(options.path ?? "");
  parseDocumentChoice(options.doc);
  const print = printOptions(options);
  const source = await readSource(ctx.io, options.file);
  const matches = matchesIn(source, options.path ?? "", options.doc);
  if (matches.length === 0) {
    const nothing = `path "${options.path ?? ""}" matches nothing in "${source.name}"`;
    if (options.exitStatus) throw new ToolkitError(`No matches found: ${nothing}`);
    if (options.verbose) ctx.io.stderr.write(`${nothing}\n`);
  } else if (options.verbose) {
    ctx.io.stderr.write(`path "${options.path ?? ""}" matches ${matches.length}\n`);
  }
  ctx.io.stdout.write(printMatches(matches, print));
}
