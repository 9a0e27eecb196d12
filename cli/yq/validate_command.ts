/**
 * `toolkit yq validate` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `validate.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { YQ_DOC } from "./flags.ts";

/** `yq validate`. */
export const YQ_VALIDATE = defineCommand({
  usage: "validate <file> [path]",
  aliases: ["v"],
  describe: "Check that a file is YAML (and that a path matches something in it)",
  examples: [["yq v - < values.yaml", "Standard input"]],
  positionals: {
    file: { type: "string", required: true, describe: "The YAML file (-: standard input)" },
    path: { type: "string", describe: "A path that must match something" },
  },
  flags: { ...YQ_DOC },
});
