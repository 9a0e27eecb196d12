/**
 * `toolkit yq new <path> <value>`: prints a new YAML document holding the value at the path
 * (`new a.b[0].c 1.10` prints `a:\n  b:\n    - c: 1.10\n`), written as `w` writes values.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { YQ_NEW } from "./new_command.ts";
import { pathToChange, writeValue } from "./change.ts";

/** Runs `yq new`. */
export function run(options: OptionsOf<typeof YQ_NEW>, ctx: CommandContext): Promise<void> {
  const segments = pathToChange(options.path, "write");
  const source = { name: "the new document", path: undefined, text: "" };
  const outcome = writeValue(source, segments, { text: options.value, tag: options.tag }, 0);
  ctx.io.stdout.write(outcome.text);
  return Promise.resolve();
}
