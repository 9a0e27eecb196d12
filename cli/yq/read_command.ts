/**
 * `toolkit yq r` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `read.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { YQ_DOC } from "../flags.ts";

/** `yq r`. */
export const YQ_READ = defineCommand({
  usage: "r [file] [path]",
  aliases: ["read"],
  describe: "Print the values at a path",
  positionals: {
    file: { type: "string", default: "-", describe: "The YAML file (- or none: standard input)" },
    path: { type: "string", describe: "What to print (default: the whole document)" },
  },
  flags: { ...YQ_DOC },
});
