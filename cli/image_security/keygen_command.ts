/**
 * `toolkit image-security keygen` as `--help` and completion know it: usage, help text and flags.
 * Its implementation, `keygen.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { OUTPUT } from "../flags.ts";

/** `image-security keygen`. */
export const KEYGEN = defineCommand({
  usage: "keygen",
  describe: "Make an OpenPGP key pair that gpg and skopeo accept",
  flags: {
    name: { type: "string", describe: "The key's user name", demandOption: true },
    email: { type: "string", describe: "The key's email address" },
    type: {
      type: "string",
      choices: ["rsa", "ed25519"],
      default: "rsa",
      describe: "Key type (RSA-3072 or Ed25519)",
    },
    "public-key": {
      type: "string",
      describe:
        "Where to write the armoured public key (default <user>.pub.asc: the email's local part, else the name)",
    },
    "private-key": {
      type: "string",
      describe: "Where to write the armoured private key, mode 0600 (default <user>.key.asc)",
    },
    "passphrase-file": {
      type: "string",
      describe: "Protect the private key with the passphrase in this file",
    },
    force: { type: "boolean", describe: "Replace existing key files" },
    ...OUTPUT,
  },
});
