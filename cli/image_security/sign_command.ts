/**
 * `toolkit image-security sign` as `--help` and completion know it: usage, help text and flags.
 * Its implementation, `sign.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { OUTPUT, REGISTRY_FLAGS, SIGNING_PASSPHRASE_FILE, signingKeySources } from "../flags.ts";

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
    [
      "image-security sign quay.io/team/app:1 --key cosign.key --recursive",
      "A multi-platform image: its index and every platform manifest it lists",
    ],
    [
      "image-security sign us.icr.io/team/app:1 --vault-key image-signing --kms-url https://us-south.kms.cloud.ibm.com --instance-id ID",
      "With the key kept in Key Protect (IBMCLOUD_API_KEY), read into memory only",
    ],
  ],
  positionals: { image: { type: "string", required: true, describe: "The image reference" } },
  flags: {
    key: {
      type: "string",
      describe: "Private key file: armoured OpenPGP, or cosign's (cosign.key)",
    },
    ...signingKeySources("the vault, key, API key and fingerprint"),
    digest: {
      type: "string",
      describe:
        "The digest to sign (sha256:…; Tekton's IMAGE_DIGEST): the image must have it, the tag is not resolved",
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
    ...SIGNING_PASSPHRASE_FILE,
    ...REGISTRY_FLAGS,
    "registry-secret-dir": {
      type: "string",
      describe:
        "A registry Secret mounted as files (.dockerconfigjson, .dockercfg, or REGISTRY_USER and REGISTRY_PASSWORD), instead of --creds/--authfile",
    },
    recursive: {
      type: "boolean",
      describe:
        "When the image is a multi-platform index, also sign every platform manifest it lists (as cosign sign --recursive; BuildKit attestation manifests are left out), in the same format and for the same identity",
    },
    "lookaside-staging": {
      type: "string",
      describe:
        "A directory to stage simple signatures in, instead of the lookaside of --registries.d (a registry's signature extension still comes first)",
    },
    "digest-file": {
      type: "string",
      describe: "Also write the signed digest to this file (a Tekton result)",
    },
    "store-file": {
      type: "string",
      describe: "Also write where the signature was stored to this file (a Tekton result)",
    },
    ...OUTPUT,
  },
});
