/**
 * `toolkit yq r` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `read.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { YQ_DOC, YQ_OUTPUT, YQ_PRINT } from "./flags.ts";

/** `yq r`. */
export const YQ_READ = defineCommand({
  usage: "r [file] [path]",
  aliases: ["read"],
  describe: "Print what a path matches (nothing, exit 0, when it matches nothing; -e: exit 1)",
  examples: [
    ["yq r values.yaml 'image.tag'", "A value"],
    ["yq r values.yaml 'spec.containers(name==app*).image'", "Filter items, with a glob"],
    ["yq r -p pv values.yaml '**'", "Every leaf with its path"],
    ["yq r -d'*' -c all.yaml kind", "Every document's kind, as one sequence"],
    ["yq r -j values.yaml", "As JSON"],
  ],
  positionals: {
    file: {
      type: "string",
      default: "-",
      allowEmpty: true,
      describe: "The YAML file (- or none: standard input)",
    },
    path: { type: "string", describe: "What to print (default: the whole document)" },
  },
  flags: {
    ...YQ_DOC,
    ...YQ_PRINT,
    length: {
      type: "boolean",
      alias: "l",
      describe: "Print the length of each match (items, keys, or characters)",
    },
    collect: { type: "boolean", alias: "c", describe: "Print the matches as one sequence" },
    unwrapScalar: {
      type: "boolean",
      default: true,
      describe: "Print a scalar as its text (--unwrapScalar=false: as YAML, quotes and comment)",
    },
    exitStatus: {
      type: "boolean",
      alias: "e",
      describe: "Exit with status 1 when the path matches nothing",
    },
    ...YQ_OUTPUT,
  },
});
