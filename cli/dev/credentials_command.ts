/**
 * `toolkit credentials` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `credentials.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { KUBE_FLAGS } from "../flags.ts";

/** `credentials`. */
export const CREDENTIALS = defineCommand({
  usage: "credentials",
  describe: "List the urls and credentials for the tools deployed to the cluster",
  flags: {
    namespace: {
      type: "string",
      alias: ["n", "CLUSTER_NAMESPACE"],
      env: "CLUSTER_NAMESPACE",
      describe: "The namespace where the credentials are stored (default: tools)",
    },
    yaml: { type: "boolean", describe: "Print the result as YAML (same as -o yaml)" },
    output: {
      type: "string",
      alias: "o",
      choices: ["json", "yaml"],
      default: "json",
      describe: "Output format",
    },
    ...KUBE_FLAGS,
  },
});
