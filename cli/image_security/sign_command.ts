/**
 * `toolkit image-security sign` as `--help` and completion know it: usage, help text and flags.
 * Its implementation, `sign.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { OUTPUT, REGISTRY_FLAGS } from "../flags.ts";

/** `image-security sign`. */
export const SIGN = defineCommand({
  usage: "sign <image>",
  describe: "Sign the image's current digest and store the signature",
  positionals: { image: { type: "string", required: true, describe: "The image reference" } },
  flags: {
    key: { type: "string", describe: "Armoured private key file", demandOption: true },
    identity: { type: "string", describe: "The docker reference to sign for (default: IMAGE)" },
    "passphrase-file": { type: "string", describe: "File with the private key's passphrase" },
    ...REGISTRY_FLAGS,
    ...OUTPUT,
  },
});
