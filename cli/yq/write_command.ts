/**
 * `toolkit yq w` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `write.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { YQ_DOC, YQ_INPLACE, YQ_OUTPUT, YQ_VALUE } from "./flags.ts";

/** `yq w`. */
export const YQ_WRITE = defineCommand({
  usage: "w <file> [path] [value]",
  aliases: ["write"],
  describe: "Write a value at a path (creating what is missing); print or -i",
  examples: [
    ["yq w values.yaml replicas 3 --tag '!!str'", 'Write a string ("3")'],
    ["yq w -d 1 all.yaml metadata.labels.team web", "Write in the second document"],
    ["yq w values.yaml 'args[+]' -- --debug", "A value that starts with - goes after --"],
    ["yq w values.yaml 'b.*' --tag '!!str'", "Re-tag what is there (no value)"],
    ["yq w values.yaml tolerations '[]'", "An empty sequence ({} an empty mapping)"],
    ["yq w values.yaml image -f image.yaml", "Write a file's document"],
    ["yq w -s changes.yaml values.yaml", "Make the changes a script lists"],
  ],
  positionals: {
    file: { type: "string", required: true, describe: "The YAML file (-: standard input)" },
    path: { type: "string", describe: "Where to write (a.b[0].c, a[name==x].c, a.*.c, a.**)" },
    value: {
      type: "string",
      allowEmpty: true,
      describe: "The value, written as typed ([] and {} are empty collections)",
    },
  },
  flags: {
    ...YQ_INPLACE,
    ...YQ_DOC,
    ...YQ_VALUE,
    from: { type: "string", alias: "f", describe: "Write the first document of this file" },
    ...YQ_OUTPUT,
  },
});
