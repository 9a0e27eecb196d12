/**
 * `toolkit yq new [path] [value]`: prints a new YAML document holding the value at the path
 * (`new a.b[0].c 1.10` prints `a:\n  b:\n    - c: 1.10\n`), written as `w` writes values
 * (`--tag`, `--style`, `--anchorName`, `-s` a script of changes). A path that cannot make
 * anything (`a.*`, `a.**`, a filter with a glob) is a usage error naming where it stops.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { YQ_NEW } from "./new_command.ts";
import { checkCreatable } from "./create.ts";
import { checkIndent, emitResult } from "./output.ts";
import { applyChanges, changesOf, reporter } from "./plan.ts";

/** Runs `yq new`. */
export async function run(options: OptionsOf<typeof YQ_NEW>, ctx: CommandContext): Promise<void> {
  checkIndent(options.indent);
  const changes = await changesOf(ctx.io, { ...options, from: undefined });
  for (const change of changes) {
    if (change.command === "update") checkCreatable(change.path, change.segments);
  }
  const source = { name: "the new document", path: undefined, text: "" };
  const report = reporter(ctx.io, source.name, options);
  const text = applyChanges(source, changes, 0, report, options.indent);
  await emitResult(ctx.io, source, text, { ...options, inplace: false });
}
