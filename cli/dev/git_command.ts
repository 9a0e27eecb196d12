/**
 * `toolkit git` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `git.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";

/** `git`. */
export const GIT = defineCommand({
  usage: "git [remote]",
  withoutOutput: "it opens one URL (--print prints it)",
  describe: "Open the web page of the git repository of a remote (default origin)",
  positionals: { remote: { type: "string", default: "origin", describe: "The git remote" } },
  flags: {
    workingDir: { type: "string", alias: "d", describe: "Directory of the git repository" },
    print: { type: "boolean", describe: "Print the URL instead of opening it" },
  },
});
