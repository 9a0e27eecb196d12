/**
 * `toolkit yq d` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `delete.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { YQ_DOC, YQ_INPLACE } from "../flags.ts";

/** `yq d`. */
export const YQ_DELETE = defineCommand({
  usage: "d <file> <path>",
  aliases: ["delete"],
  describe: "Delete the keys or items at a path; print or -i",
  positionals: {
    file: { type: "string", required: true, describe: "The YAML file (-: standard input)" },
    path: { type: "string", required: true, describe: "What to delete" },
  },
  flags: { ...YQ_INPLACE, ...YQ_DOC },
});
