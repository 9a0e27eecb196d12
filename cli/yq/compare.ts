/**
 * `toolkit yq compare <file1> <file2> [path]`: prints what the path matches in each file as `r`
 * prints it (with the same flags: `-P` to compare the data rather than the formatting, `-p pv`
 * for paths, `--stripComments`, `-X`), and the line differences of the two, as yq v3 did:
 * nothing and exit 0 when they are the same, else the diff and exit 1. A path that matches
 * nothing in a file is said on stderr (unless `--quiet`).
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { YQ_COMPARE } from "./compare_command.ts";
import { UsageError } from "../../lib/errors.ts";
import { diffText } from "./diff.ts";
import { parseDocumentChoice } from "./documents.ts";
import { readSource } from "./files.ts";
import { printMatches } from "./output.ts";
import { parsePath } from "./path.ts";
import { matchesIn, printOptions } from "./query.ts";

/** Runs `yq compare`; exits 1 when the files differ. */
export async function run(
  options: OptionsOf<typeof YQ_COMPARE>,
  ctx: CommandContext,
): Promise<number> {
  parsePath(options.path ?? "");
  parseDocumentChoice(options.doc);
  if (options.file1 === "-" && options.file2 === "-") {
    throw new UsageError("Standard input can be read once");
  }
  const print = printOptions({ ...options, colors: false });
  const printed: string[] = [];
  for (const file of [options.file1, options.file2]) {
    const source = await readSource(ctx.io, file);
    const matches = matchesIn(source, options.path ?? "", options.doc);
    if (matches.length === 0 && options.path !== undefined && !options.quiet) {
      ctx.io.stderr.write(`warning: path "${options.path}" matches nothing in "${source.name}"\n`);
    }
    printed.push(printMatches(matches, print));
  }
  const diff = diffText(printed[0]!.replace(/\n$/, ""), printed[1]!.replace(/\n$/, ""));
  if (diff === "") return 0;
  ctx.io.stdout.write(`${diff}\n`);
  return 1;
}
