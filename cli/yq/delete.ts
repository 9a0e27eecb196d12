/**
 * `toolkit yq d <file> <path>`: deletes the keys and items the path matches, in the documents
 * chosen with `-d`, with their lines, and prints the file (or with `-i` writes it back). A
 * mapping or sequence that loses its last entry becomes `{}` or `[]`. A path that matches
 * nothing changes nothing and says so on stderr; `-v` lists what was deleted.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { YQ_DELETE } from "./delete_command.ts";
import { pathToChange } from "./change.ts";
import { parseDocumentChoice } from "./documents.ts";
import { checkInPlace, readSource } from "./files.ts";
import { checkIndent, emitResult } from "./output.ts";
import { applyChanges, reporter } from "./plan.ts";

/** Runs `yq d`. */
export async function run(
  options: OptionsOf<typeof YQ_DELETE>,
  ctx: CommandContext,
): Promise<void> {
  const segments = pathToChange(options.path, "delete");
  const choice = parseDocumentChoice(options.doc);
  checkInPlace(options.file, options.inplace);
  checkIndent(options.indent);
  const source = await readSource(ctx.io, options.file);
  const change = { command: "delete", path: options.path, segments } as const;
  const text = applyChanges(source, [change], choice, reporter(ctx.io, source.name, options));
  await emitResult(ctx.io, source, text, options);
}
