/**
 * `toolkit console` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `console.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { KUBE_FLAGS } from "../flags.ts";

/** `console`. */
export const CONSOLE = defineCommand({
  usage: "console",
  withoutOutput: "it opens one URL (--print prints it)",
  describe: "Launch the Kubernetes or OpenShift admin console",
  flags: {
    print: { type: "boolean", describe: "Print the URL instead of opening it" },
    ...KUBE_FLAGS,
  },
});
