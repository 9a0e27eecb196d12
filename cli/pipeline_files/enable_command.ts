/**
 * `toolkit enable` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `enable.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { REQUEST_TIMEOUT } from "../flags.ts";

/** `enable`. */
export const ENABLE = defineCommand({
  usage: "enable",
  withoutOutput: "its -o is json alone, as igc's enable",
  describe: "Enable the current repository with pipeline logic",
  examples: [
    ["enable -p nodejs", "Add the stable Node.js pipeline's files to this repository"],
    ["enable -p nodejs -r 1.0.0 --dry-run", "Show what would be added or changed"],
  ],
  flags: {
    repo: {
      type: "string",
      default: "https://cloud-native-toolkit.github.io/garage-pipelines/",
      describe: "The repository from which the pipelines are retrieved",
    },
    pipeline: { type: "string", alias: "p", describe: "The name of the pipeline to enable" },
    release: { type: "string", alias: "r", default: "latest", describe: "The release version" },
    branch: { type: "string", alias: "b", default: "stable", describe: "The pipeline branch" },
    dir: { type: "string", describe: "The repository to add the files to (default: here)" },
    force: {
      type: "boolean",
      describe: "Overwrite changed files and accept a working tree with uncommitted changes",
    },
    "dry-run": { type: "boolean", describe: "Show what would be added or changed; write nothing" },
    output: { type: "string", alias: "o", choices: ["json"], describe: "Print the result as JSON" },
    ...REQUEST_TIMEOUT,
  },
});
