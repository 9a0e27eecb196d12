/**
 * `toolkit image-security check` as `--help` and completion know it: usage, help text and flags.
 * Its implementation, `check.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { NAMESPACE, OUTPUT, REGISTRY_FLAGS } from "../flags.ts";

/** `image-security check`. */
export const CHECK = defineCommand({
  usage: "check <images..>",
  describe: "Evaluate images against policies from files, offline",
  examples: [[
    "image-security check quay.io/team/app:1 -f policies.yaml -n prod",
    "Would the webhook admit this image in namespace prod?",
  ]],
  positionals: {
    images: { type: "string", variadic: true, required: true, describe: "Image references" },
  },
  flags: {
    filename: {
      type: "array",
      alias: "f",
      describe: "Policy and key Secret manifests",
      demandOption: true,
    },
    namespace: NAMESPACE.workload,
    "no-match": {
      type: "string",
      choices: ["deny", "allow", "warn"],
      default: "deny",
      describe: "What happens to images no policy matches",
    },
    "controller-namespace": {
      type: "string",
      default: "toolkit-system",
      describe: "Where ClusterImagePolicy key Secrets are (the webhook's namespace)",
    },
    "insecure-registry": {
      type: "array",
      describe: "Reach this registry over plain HTTP (repeatable)",
    },
    ...REGISTRY_FLAGS,
    ...OUTPUT,
  },
});
