/**
 * `toolkit yq new` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `new.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { YQ_OUTPUT, YQ_VALUE } from "./flags.ts";

/** `yq new`. */
export const YQ_NEW = defineCommand({
  usage: "new [path] [value]",
  aliases: ["n"],
  describe: "Print a new document with a value at a path",
  examples: [
    ["yq new 'a.b[0].c' 3.0", "a:\\n  b:\\n    - c: 3.0"],
    ["yq new a.b cat --anchorName=pet", "a:\\n  b: &pet cat"],
    ["yq new -s create.yaml", "The document a script of changes makes"],
  ],
  positionals: {
    path: { type: "string", describe: "Where the value goes" },
    value: {
      type: "string",
      allowEmpty: true,
      describe: "The value, written as typed ([] and {} are empty collections)",
    },
  },
  flags: { ...YQ_VALUE, ...YQ_OUTPUT },
});
