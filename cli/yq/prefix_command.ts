/**
 * `toolkit yq prefix` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `prefix.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { YQ_DOC, YQ_INPLACE, YQ_OUTPUT } from "./flags.ts";

/** `yq prefix`. */
export const YQ_PREFIX = defineCommand({
  usage: "prefix <file> <path>",
  aliases: ["p"],
  describe: "Put each chosen document under a path (a.b, [+].a); print or -i",
  examples: [
    ["yq prefix values.yaml app.config", "app:\\n  config:\\n    <the document>"],
    ["yq p -d'*' -i all.yaml spec", "Every document, in place"],
  ],
  positionals: {
    file: { type: "string", required: true, describe: "The YAML file (-: standard input)" },
    path: { type: "string", required: true, describe: "The keys and items to put it under" },
  },
  flags: { ...YQ_INPLACE, ...YQ_DOC, ...YQ_OUTPUT },
});
