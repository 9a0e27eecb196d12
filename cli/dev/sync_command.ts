/**
 * `toolkit sync` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `sync.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import {
  KUBE_FLAGS,
  RESULT_OUTPUT,
  SERVICE_ACCOUNT,
  templateNamespace,
  THROTTLE_FLAG,
} from "../flags.ts";

/** `sync`. */
export const SYNC = defineCommand({
  usage: "sync [namespace]",
  aliases: ["project", "namespace"],
  describe: "Create a namespace (if it does not exist) and prepare it with the configuration",
  positionals: { namespace: { type: "string", describe: "The namespace to create and sync" } },
  flags: {
    templateNamespace: templateNamespace("tools"),
    serviceAccount: SERVICE_ACCOUNT,
    tekton: { type: "boolean", alias: "p", describe: "Give the pipeline service account SCC" },
    puller: { type: "boolean", default: true, describe: "Grant image-puller in the namespace" },
    argocd: { type: "boolean", alias: "a", describe: "Let Argo CD manage the namespace" },
    argocdNamespace: {
      type: "string",
      alias: "x",
      default: "openshift-gitops",
      describe: "The namespace where Argo CD runs",
    },
    throttle: THROTTLE_FLAG,
    ...RESULT_OUTPUT,
    ...KUBE_FLAGS,
  },
});
