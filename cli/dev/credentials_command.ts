/**
 * `toolkit credentials` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `credentials.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { KUBE_FLAGS, NAMESPACE, namespaceAlsoSpelled } from "../flags.ts";

/** `credentials`. */
export const CREDENTIALS = defineCommand({
  usage: "credentials",
  describe: "List the urls and credentials for the tools deployed to the cluster",
  flags: {
    namespace: {
      // igc's: also $CLUSTER_NAMESPACE; the default, tools, is the command's (its help says it).
      ...namespaceAlsoSpelled(NAMESPACE.tools, "CLUSTER_NAMESPACE"),
      default: undefined,
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
