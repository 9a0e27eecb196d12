/**
 * `toolkit pull-secret` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `pull_secret.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { KUBE_FLAGS, RESULT_OUTPUT, SERVICE_ACCOUNT, templateNamespace } from "../flags.ts";

/** `pull-secret`. */
export const PULL_SECRET = defineCommand({
  usage: "pull-secret [namespace]",
  describe: "Copy pull secrets into the namespace from the template namespace",
  positionals: { namespace: { type: "string", describe: "The target namespace" } },
  flags: {
    templateNamespace: templateNamespace("default"),
    serviceAccount: SERVICE_ACCOUNT,
    dev: { type: "boolean", describe: "Mark the namespace as a development namespace" },
    ...RESULT_OUTPUT,
    ...KUBE_FLAGS,
  },
});
