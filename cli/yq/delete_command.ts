/**
 * `toolkit yq d` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `delete.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { YQ_DOC, YQ_INPLACE, YQ_OUTPUT } from "./flags.ts";

/** `yq d`. */
export const YQ_DELETE = defineCommand({
  usage: "d <file> <path>",
  aliases: ["delete"],
  describe: "Delete the keys or items at a path; print or -i (-v: what went)",
  examples: [
    ["yq d values.yaml 'metadata.annotations.\"app.kubernetes.io/name\"'", "A key with dots"],
    ["yq d values.yaml 'c.te*'", "Every key of c that starts with te"],
    ["yq d values.yaml '**.thing'", "Every key thing, at any depth"],
    ["yq d -i deploy.yaml 'containers(name==sidecar)'", "Items chosen by a field"],
  ],
  positionals: {
    file: { type: "string", required: true, describe: "The YAML file (-: standard input)" },
    path: { type: "string", required: true, describe: "What to delete" },
  },
  flags: { ...YQ_INPLACE, ...YQ_DOC, ...YQ_OUTPUT },
});
