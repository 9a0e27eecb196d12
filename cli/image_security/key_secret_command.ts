/**
 * `toolkit image-security key-secret` as `--help` and completion know it: usage, help text and
 * flags. Its implementation, `key_secret.ts`, is imported only when the command runs
 * (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { KUBE_FLAGS, NAMESPACE } from "../flags.ts";

/** `image-security key-secret`. */
export const KEY_SECRET = defineCommand({
  usage: "key-secret <name>",
  describe: "Create the Secret whose `key` entry holds public keys (OpenPGP or PEM)",
  positionals: { name: { type: "string", required: true, describe: "The Secret's name" } },
  flags: {
    key: {
      type: "string",
      describe: "Public key file: armoured OpenPGP keys (signedBy) or PEM keys (sigstoreSigned)",
      demandOption: true,
    },
    namespace: NAMESPACE.current,
    replace: {
      type: "boolean",
      describe:
        "Replace a Secret of that name that holds other keys, or is not a key Secret (else asked on a terminal)",
    },
    "dry-run": { type: "boolean", describe: "Print the Secret instead of creating it" },
    output: {
      type: "string",
      alias: "o",
      choices: ["yaml", "json"],
      describe: "Print the Secret (--dry-run, default yaml) or the result as JSON or YAML",
    },
    ...KUBE_FLAGS,
  },
});
