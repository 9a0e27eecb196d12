/**
 * `toolkit tool-config` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `tool_config.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { KUBE_FLAGS, NAMESPACE, RESULT_OUTPUT } from "../flags.ts";

/** `tool-config`. */
export const TOOL_CONFIG = defineCommand({
  usage: "tool-config [name]",
  describe: "Create the config map and secret for a tool configured in the environment",
  positionals: { name: { type: "string", describe: "The tool's name" } },
  flags: {
    namespace: NAMESPACE.tools,
    url: { type: "string", describe: "The url of the tool" },
    username: { type: "string", describe: "The name of the user for the tool" },
    password: {
      type: "string",
      describe:
        "The password for the user for the tool; - reads it from stdin (asked without echo on a terminal). As a value it shows in ps and shell history: prefer --password-file",
    },
    "password-file": {
      type: "string",
      describe:
        "File holding the tool's password (one line); $TOOLKIT_TOOL_PASSWORD may hold it instead",
    },
    replace: {
      type: "boolean",
      describe:
        "Replace the tool's Secret when it holds other credentials (else asked on a terminal)",
    },
    ...RESULT_OUTPUT,
    ...KUBE_FLAGS,
  },
});
