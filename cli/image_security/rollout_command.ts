/**
 * `toolkit image-security rollout` as `--help` and completion know it: usage, help text and
 * flags. Its implementation, `rollout.ts`, is imported only when the command runs
 * (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { KUBE_FLAGS, NAMESPACE, RESULT_OUTPUT } from "../flags.ts";
import { AUDIT_FLAGS } from "./audit_run.ts";

/** `image-security rollout`. */
export const ROLLOUT = defineCommand({
  usage: "rollout",
  describe:
    "Move a namespace from warn to enforce once the audit finds nothing there that would be denied (the toolkit.dev/enforcement label)",
  examples: [
    [
      "image-security rollout -n team --enforce",
      "Enforce in team, if nothing running would be denied",
    ],
    ["image-security rollout -n team --enforce --dry-run", "Would team be enforced?"],
    ["image-security rollout -n team --warn", "Back to warnings in team"],
  ],
  flags: {
    namespace: { ...NAMESPACE.current, describe: "The namespace (default: the context's)" },
    enforce: {
      type: "boolean",
      describe:
        "Label the namespace toolkit.dev/enforcement=enforce, after an audit finds nothing that would be denied",
    },
    warn: { type: "boolean", describe: "Label the namespace toolkit.dev/enforcement=warn" },
    force: {
      type: "boolean",
      describe: "With --enforce: enforce even though the audit finds images that would be denied",
    },
    "dry-run": { type: "boolean", describe: "Audit and tell what would change; change nothing" },
    ...AUDIT_FLAGS,
    ...KUBE_FLAGS,
    ...RESULT_OUTPUT,
  },
});
