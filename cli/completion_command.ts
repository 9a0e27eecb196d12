/**
 * `toolkit completion` as `--help` and completion know it: usage, help text and its argument.
 * Its implementation, `print_completion.ts`, is imported only when the command runs
 * (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "./command.ts";

/** `completion [bash|zsh]`. */
export const COMPLETION = defineCommand({
  usage: "completion [shell]",
  withoutOutput: "it prints a shell script",
  describe: "Print a bash or zsh completion script",
  examples: [
    ["completion bash > /etc/bash_completion.d/toolkit", "Complete toolkit in every bash"],
    ["completion zsh", "The zsh script (source <(toolkit completion zsh))"],
  ],
  positionals: {
    shell: {
      type: "string",
      choices: ["bash", "zsh"],
      default: "bash",
      describe: "The shell",
    },
  },
});
