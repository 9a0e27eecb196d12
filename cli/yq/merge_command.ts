/**
 * `toolkit yq merge` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `merge.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { YQ_DOC, YQ_INPLACE } from "../flags.ts";

/** `yq merge`. */
export const YQ_MERGE = defineCommand({
  usage: "merge <files..>",
  aliases: ["m"],
  describe: "Deep-merge files into the first; print or -i",
  positionals: {
    files: {
      type: "string",
      variadic: true,
      required: true,
      describe: "The file to merge into, then the files merged into it",
    },
  },
  flags: {
    ...YQ_INPLACE,
    ...YQ_DOC,
    overwrite: {
      type: "boolean",
      alias: "x",
      describe: "Values of later files replace those of earlier ones",
    },
    append: { type: "boolean", alias: "a", describe: "Sequences of later files are appended" },
  },
});
