/**
 * `toolkit image-security verify` as `--help` and completion know it: usage, help text and flags.
 * Its implementation, `verify.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { OUTPUT, REGISTRY_FLAGS } from "../flags.ts";

/** `image-security verify`. */
export const VERIFY = defineCommand({
  usage: "verify <image>",
  describe: "Verify the image's signatures against a public key",
  positionals: { image: { type: "string", required: true, describe: "The image reference" } },
  flags: {
    key: { type: "string", describe: "Armoured public key file", demandOption: true },
    "identity-rule": {
      type: "string",
      choices: [
        "matchRepoDigestOrExact",
        "matchRepository",
        "matchExact",
        "matchExactReference",
        "matchExactRepository",
        "remapIdentity",
      ],
      describe: "signedIdentity rule",
      default: "matchRepoDigestOrExact",
    },
    "identity-reference": {
      type: "string",
      describe: "For matchExactReference: the reference the signature must name",
    },
    "identity-repository": {
      type: "string",
      describe: "For matchExactRepository: the repository the signature must name",
    },
    prefix: { type: "string", describe: "For remapIdentity: the image name prefix to replace" },
    "signed-prefix": { type: "string", describe: "For remapIdentity: the prefix signed for" },
    ...REGISTRY_FLAGS,
    ...OUTPUT,
  },
});
