/**
 * `toolkit yq compare` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `compare.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { YQ_DOC, YQ_OUTPUT, YQ_PRINT } from "./flags.ts";

/** `yq compare`. */
export const YQ_COMPARE = defineCommand({
  usage: "compare <file1> <file2> [path]",
  aliases: ["x"],
  describe: "Print the differences of what a path matches in two files (exit 1 when they differ)",
  examples: [
    ["yq compare -P a.yaml b.yaml", "The data, not the formatting"],
    ["yq x -P -ppv a.yaml b.yaml '**'", "Leaf by leaf, with paths"],
  ],
  positionals: {
    file1: { type: "string", required: true, describe: "The first YAML file (-: standard input)" },
    file2: { type: "string", required: true, describe: "The second YAML file" },
    path: { type: "string", describe: "What to compare (default: the whole document)" },
  },
  flags: { ...YQ_DOC, ...YQ_PRINT, ...YQ_OUTPUT },
});
