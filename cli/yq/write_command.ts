/**
 * `toolkit yq w` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `write.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { YQ_DOC, YQ_INPLACE, YQ_TAG } from "../flags.ts";

/** `yq w`. */
export const YQ_WRITE = defineCommand({
  usage: "w <file> <path> <value>",
  aliases: ["write"],
  describe: "Write a value at a path (creating what is missing); print or -i",
  examples: [
    ["yq w values.yaml replicas 3 --tag '!!str'", 'Write a string ("3")'],
    ["yq w -d 1 all.yaml metadata.labels.team web", "Write in the second document"],
    ["yq w values.yaml 'args[+]' -- --debug", "A value that starts with - goes after --"],
  ],
  positionals: {
    file: { type: "string", required: true, describe: "The YAML file (-: standard input)" },
    path: { type: "string", required: true, describe: "Where to write (a.b[0].c, a[name==x].c)" },
    value: {
      type: "string",
      required: true,
      allowEmpty: true,
      describe: "The value, written as typed",
    },
  },
  flags: { ...YQ_INPLACE, ...YQ_DOC, ...YQ_TAG },
});
