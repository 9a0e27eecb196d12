/**
 * `toolkit image-security trust-root` as `--help` and completion know it: usage, help text and
 * flags. Its implementation, `trust_root.ts`, is imported only when the command runs
 * (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { KUBE_FLAGS, NAMESPACE } from "../flags.ts";

/** `image-security trust-root`. */
export const TRUST_ROOT = defineCommand({
  usage: "trust-root <name>",
  describe: "Create the ConfigMap holding a sigstore trusted_root.json for keyless policies",
  positionals: { name: { type: "string", required: true, describe: "The ConfigMap's name" } },
  flags: {
    file: {
      type: "string",
      alias: "f",
      describe: "The sigstore trusted_root.json (e.g. from `cosign trusted-root create`)",
      demandOption: true,
    },
    namespace: NAMESPACE.current,
    replace: {
      type: "boolean",
      describe:
        "Replace a ConfigMap of that name that holds another trust root (else asked on a terminal)",
    },
    "dry-run": { type: "boolean", describe: "Print the ConfigMap instead of creating it" },
    output: {
      type: "string",
      alias: "o",
      choices: ["yaml", "json"],
      describe: "Print the ConfigMap (--dry-run, default yaml) or the result as JSON or YAML",
    },
    ...KUBE_FLAGS,
  },
});
