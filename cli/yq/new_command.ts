/**
 * `toolkit yq new` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `new.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { YQ_TAG } from "../flags.ts";

/** `yq new`. */
export const YQ_NEW = defineCommand({
  usage: "new <path> <value>",
  aliases: ["n"],
  describe: "Print a new document with a value at a path",
  positionals: {
    path: { type: "string", required: true, describe: "Where the value goes" },
    value: {
      type: "string",
      required: true,
      allowEmpty: true,
      describe: "The value, written as typed",
    },
  },
  flags: { ...YQ_TAG },
});
