/**
 * `toolkit dashboard` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `dashboard.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { KUBE_FLAGS, NAMESPACE } from "../flags.ts";

/** `dashboard`. */
export const DASHBOARD = defineCommand({
  usage: "dashboard",
  withoutOutput: "it opens one URL (--print prints it)",
  describe: "Open the Developer Dashboard in the default browser",
  flags: {
    namespace: {
      ...NAMESPACE.tools,
      describe: "The namespace where the Dashboard has been deployed",
    },
    print: { type: "boolean", describe: "Print the URL instead of opening it" },
    ...KUBE_FLAGS,
  },
});
