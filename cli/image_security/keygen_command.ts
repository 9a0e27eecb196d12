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
  describe: "Make a key pair: OpenPGP for gpg and skopeo, or ECDSA in cosign's files",
  examples: [
    ["image-security keygen --name CI --email ci@example.com", "An OpenPGP RSA-3072 key"],
    ["image-security keygen --type ecdsa-p256", "cosign.key and cosign.pub, as cosign makes"],
  ],
  flags: {
    name: { type: "string", describe: "The key's user name (OpenPGP keys: required)" },
    email: { type: "string", describe: "The key's email address (OpenPGP keys)" },
    type: {
      type: "string",
      choices: ["rsa", "ed25519", "ecdsa-p256"],
      default: "rsa",
      describe:
        "Key type: OpenPGP RSA-3072 or Ed25519 (simple signing), or ECDSA P-256 in cosign's files (cosign signatures)",
    },
    "public-key": {
      type: "string",
      describe:
        "Where to write the public key (default <user>.pub.asc: the email's local part, else the name; ecdsa-p256: cosign.pub)",
    },
    "private-key": {
      type: "string",
      describe:
        "Where to write the private key, mode 0600 (default <user>.key.asc; ecdsa-p256: cosign.key)",
    },
    "passphrase-file": {
      type: "string",
      describe:
        "Protect the private key with the passphrase in this file (ecdsa-p256: else $COSIGN_PASSWORD, else asked on a terminal)",
    },
    force: { type: "boolean", describe: "Replace existing key files" },
    ...OUTPUT,
  },
});
