/**
 * `toolkit endpoints` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `endpoints.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { KUBE_FLAGS, NAMESPACE, OUTPUT } from "../flags.ts";

/** `endpoints`. */
export const ENDPOINTS = defineCommand({
  usage: "endpoints",
  aliases: ["ingress", "endpoint", "ingresses"],
  describe: "List the ingress and route URLs of the apps in a namespace",
  flags: {
    namespace: NAMESPACE.current,
    print: { type: "boolean", describe: "Print the list instead of showing a menu" },
    ...OUTPUT,
    ...KUBE_FLAGS,
  },
});
