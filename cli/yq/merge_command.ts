/**
 * `toolkit yq merge` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `merge.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { YQ_DOC, YQ_INPLACE, YQ_OUTPUT } from "./flags.ts";

/** `yq merge`. */
export const YQ_MERGE = defineCommand({
  usage: "merge <files..>",
  aliases: ["m"],
  describe: "Deep-merge the first document of each other file into the first file; print or -i",
  examples: [
    ["yq merge -x base.yaml overrides.yaml", "Later values win"],
    ["yq m -i -a append values.yaml more.yaml", "Sequences are concatenated"],
    ["yq m -d'*' all.yaml common.yaml", "Into every document"],
    ["yq m --autocreate=false base.yaml other.yaml", "Only what base.yaml has"],
  ],
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
    autocreate: {
      type: "boolean",
      alias: "c",
      default: true,
      describe: "Add what the first file lacks (--autocreate=false: only change what it has)",
    },
    arrays: {
      type: "string",
      alias: "a",
      default: "update",
      choices: ["update", "append", "overwrite"],
      describe:
        "Sequences: update (item by item, as keys), append (concatenated), overwrite (replaced)",
    },
    append: { type: "boolean", hidden: true, describe: "Same as --arrays=append" },
    comments: {
      type: "string",
      default: "setWhenBlank",
      choices: ["setWhenBlank", "ignore", "append", "overwrite"],
      describe:
        "Line comments of later files: set where there is none, ignored, appended, or replacing",
    },
    ...YQ_OUTPUT,
  },
});
