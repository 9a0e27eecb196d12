/**
 * `toolkit image-security verify-attestation` as `--help` and completion know it: usage, help
 * text and flags. Its implementation, `verify_attestation.ts`, is imported only when the command
 * runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { CERTIFICATE_IDENTITY_FLAGS, KUBE_FLAGS, OUTPUT, REGISTRY_FLAGS } from "../flags.ts";

/** `image-security verify-attestation`. */
export const VERIFY_ATTESTATION = defineCommand({
  usage: "verify-attestation <image>",
  describe:
    "Verify the image's in-toto attestations of a predicate type (cosign attest, both storage formats; toolkit's) with a key, and the CEL conditions of a policy",
  positionals: { image: { type: "string", required: true, describe: "The image reference" } },
  flags: {
    type: {
      type: "string",
      describe:
        "The predicate type: a URI or one of cosign's short names (slsaprovenance1, slsaprovenance, spdxjson, cyclonedx, link, vuln, openvex, custom)",
    },
    key: {
      type: "string",
      describe:
        "Public key file: PEM public keys (cosign.pub) or armoured OpenPGP keys (toolkit's simple-signing keys)",
    },
    "key-secret": {
      type: "string",
      describe: "NAMESPACE/NAME of a key Secret in the cluster (its key entry), instead of --key",
    },
    "trust-root": {
      type: "string",
      describe:
        "A sigstore trusted_root.json: keyless attestations (GitHub's artifact attestations, cosign's keyless), with the --certificate-* flags, instead of a key",
    },
    ...CERTIFICATE_IDENTITY_FLAGS,
    policy: {
      type: "string",
      describe:
        "A YAML or JSON file of CEL conditions: a list of {name, expression, message}, an attestation requirement, or a ClusterImagePolicy/ImagePolicy (the conditions of its attestation requirements of --type)",
    },
    ...KUBE_FLAGS,
    ...REGISTRY_FLAGS,
    ...OUTPUT,
  },
});
