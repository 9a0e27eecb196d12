/**
 * `toolkit image-security verify` as `--help` and completion know it: usage, help text and flags.
 * Its implementation, `verify.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { CERTIFICATE_IDENTITY_FLAGS, OUTPUT, REGISTRY_FLAGS } from "../flags.ts";

/** `image-security verify`. */
export const VERIFY = defineCommand({
  usage: "verify <image>",
  describe: "Verify the image's signatures (simple signing or cosign) against a key or trust root",
  positionals: { image: { type: "string", required: true, describe: "The image reference" } },
  flags: {
    key: {
      type: "string",
      describe:
        "Public key file: armoured OpenPGP keys (simple signing) or PEM public keys (cosign signatures, either storage format)",
    },
    "trust-root": {
      type: "string",
      describe:
        "A sigstore trusted_root.json: keyless cosign signatures (with the --certificate-* flags), or the logs' keys for --key with --tlog required",
    },
    ...CERTIFICATE_IDENTITY_FLAGS,
    tlog: {
      type: "string",
      choices: ["required", "optional"],
      describe:
        "Cosign: require a transparency log entry of the trust root (default: optional with --key, required keyless)",
    },
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
      describe:
        "signedIdentity rule (default matchRepoDigestOrExact; for cosign signatures, matchRepository)",
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
