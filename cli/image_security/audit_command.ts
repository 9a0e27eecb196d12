/**
 * `toolkit image-security audit` as `--help` and completion know it: usage, help text and flags.
 * Its implementation, `audit.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { KUBE_FLAGS, NAMESPACE, OUTPUT } from "../flags.ts";
import { AUDIT_FLAGS } from "./audit_run.ts";

/** `image-security audit`. */
export const AUDIT = defineCommand({
  usage: "audit",
  describe: "Show which running workloads' images the webhook would deny",
  examples: [
    ["image-security audit -A", "Every namespace, against the cluster's policies"],
    ["image-security audit -n team --policy policy.yaml -o json", "Before applying policy.yaml"],
  ],
  flags: {
    namespace: {
      ...NAMESPACE.current,
      describe: "The namespace to audit (default: the context's)",
    },
    "all-namespaces": {
      type: "boolean",
      alias: "A",
      describe: "Audit every namespace",
    },
    mode: {
      type: "string",
      choices: ["enforce", "warn"],
      default: "enforce",
      describe: "The webhook's --mode, for namespaces without a toolkit.dev/enforcement label",
    },
    ...AUDIT_FLAGS,
    ...KUBE_FLAGS,
    ...OUTPUT,
  },
});
