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
  examples: [
    ["image-security sign quay.io/team/app:1 --key ci.key.asc", "Simple signing (gpg key)"],
    [
      "image-security sign quay.io/team/app:1 --key cosign.key",
      "A cosign v3 bundle (OCI referrer), keyed, no transparency log",
    ],
    [
      "image-security sign quay.io/team/app:1 --key cosign.key --format cosign",
      "cosign's legacy sha256-<hex>.sig tag",
    ],
  ],
  positionals: { image: { type: "string", required: true, describe: "The image reference" } },
  flags: {
    key: {
      type: "string",
      describe: "Private key file: armoured OpenPGP, or cosign's (cosign.key)",
      demandOption: true,
    },
    format: {
      type: "string",
      choices: ["simple", "cosign", "bundle"],
      describe:
        "simple: simple signing (OpenPGP keys); cosign: cosign's sha256-<hex>.sig tag; bundle: a sigstore bundle as an OCI referrer, as cosign v3 (default: simple for OpenPGP keys, bundle for cosign keys). cosign formats: keyed, no transparency log (nothing goes to Rekor)",
    },
    identity: {
      type: "string",
      describe:
        "The docker reference to sign for (default: IMAGE; --format cosign: its repository; not for bundles)",
    },
    "passphrase-file": {
      type: "string",
      describe: "File with the private key's passphrase (cosign keys: else $COSIGN_PASSWORD)",
    },
    ...REGISTRY_FLAGS,
    ...OUTPUT,
  },
});
