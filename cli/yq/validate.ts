/**
 * `toolkit yq validate <file> [path]`: exits 0 when the chosen documents (`-d`) are YAML, and
 * 1 with the place of the first mistake when not. With a path (yq ignored one), the path must
 * also match something.
 *
 * @module
 */
import { ToolkitError } from "../../lib/errors.ts";
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { YQ_VALIDATE } from "./validate_command.ts";
import { parseDocumentChoice } from "./documents.ts";
import { readSource } from "./files.ts";
import { parsePath } from "./path.ts";
import { matchesIn } from "./query.ts";

/** Runs `yq validate`. */
export async function run(
  options: OptionsOf<typeof YQ_VALIDATE>,
  ctx: CommandContext,
): Promise<void> {
  parsePath(options.path ?? "");
  parseDocumentChoice(options.doc);
  const source = await readSource(ctx.io, options.file);
  const matches = matchesIn(source, options.path ?? "", options.doc);
  if (options.path !== undefined && matches.length === 0) {
    throw new ToolkitError(`path "${options.path}" matches nothing in "${source.name}"`);
  }
  if (options.verbose) ctx.io.stderr.write(`"${source.name}" is valid YAML\n`);
}
