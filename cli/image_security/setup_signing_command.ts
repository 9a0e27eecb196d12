/**
 * `toolkit image-security setup-signing` as `--help` and completion know it: usage, help text and
 * flags. Its implementation, `setup_signing.ts`, is imported only when the command runs
 * (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { KUBE_FLAGS, NAMESPACE, templateNamespace, VAULT_FLAGS } from "../flags.ts";

/** `image-security setup-signing`. */
export const SETUP_SIGNING = defineCommand({
  usage: "setup-signing",
  describe:
    "Set up image signing for pipelines: a key in the vault, its public key, a policy requiring it, the signing Task",
  examples: [
    [
      "image-security setup-signing --repository us.icr.io/team/* --kms-url https://us-south.kms.cloud.ibm.com --instance-id ID",
      "Key in Key Protect (IBMCLOUD_API_KEY), Secret image-signing in tools, a ClusterImagePolicy for us.icr.io/team/*",
    ],
    [
      "image-security setup-signing --repository us.icr.io/team/* --dry-run -o yaml",
      "Print what would be written",
    ],
    [
      "image-security setup-signing --repository us.icr.io/team/* --replace",
      "Rotate: a new key (the old public key stays trusted until --retire-old-keys)",
    ],
  ],
  flags: {
    repository: {
      type: "array",
      describe:
        "The repositories the pipeline pushes to, HOST/NAMESPACE/* (repeatable): the policy requires the key's signature for them",
    },
    templateNamespace: {
      ...templateNamespace("tools"),
      describe:
        "The template namespace: where the image-signing Secret and the signing Task go (toolkit sync and pipeline copy them from there)",
    },
    namespace: NAMESPACE.policy,
    "controller-namespace": {
      type: "string",
      default: "toolkit-system",
      describe: "The webhook's namespace: where a ClusterImagePolicy's key Secret is kept",
    },
    format: {
      type: "string",
      choices: ["simple", "cosign"],
      default: "simple",
      describe:
        "The kind of key: simple (OpenPGP, simple signing; the policy requires signedBy) or cosign (ECDSA P-256; the policy requires sigstoreSigned)",
    },
    "key-type": {
      type: "string",
      choices: ["rsa", "ed25519"],
      default: "rsa",
      describe: "simple: RSA-3072 (Portieris and gpg read it) or Ed25519",
    },
    signer: {
      type: "string",
      default: "Image signing",
      describe: "simple: the name in the new key's user ID",
    },
    "signer-email": { type: "string", describe: "simple: the e-mail address in its user ID" },
    "key-name": {
      type: "string",
      default: "toolkit-image-signing",
      describe: "The name of the new key in the vault",
    },
    "vault-key": {
      type: "string",
      describe:
        "Use this key of the vault (id, name or alias) instead of making one, e.g. the Cloud-Native Toolkit's portieris-image-signing-private-key",
    },
    ...VAULT_FLAGS,
    "passphrase-file": {
      type: "string",
      describe: "--vault-key of a cosign key: the file with its password (else $COSIGN_PASSWORD)",
    },
    "builder-id": {
      type: "string",
      describe:
        "The pipeline's identity in the SLSA provenance it writes (runDetails.builder.id), a URI (default: https://toolkit.dev/tekton/<template namespace>)",
    },
    "key-secret": {
      type: "string",
      default: "image-signing-key",
      describe: "The Secret holding the public key (entry `key`) that the policy names",
    },
    "policy-name": {
      type: "string",
      default: "image-signing",
      describe: "The name of the ClusterImagePolicy (or ImagePolicy)",
    },
    "mutate-image": {
      type: "boolean",
      default: true,
      describe:
        "Pin admitted images to the verified digest (--no-mutate-image: leave them as written, for GitOps)",
    },
    replace: {
      type: "boolean",
      describe:
        "Replace an existing signing key with a new one (or --vault-key); the old public key stays trusted",
    },
    "retire-old-keys": {
      type: "boolean",
      describe: "Trust only the current key: remove earlier public keys from the key Secret",
    },
    "dry-run": {
      type: "boolean",
      describe: "Print the objects that would be written; make no key, change nothing",
    },
    output: {
      type: "string",
      alias: "o",
      choices: ["json", "yaml"],
      describe: "Print what was done (or, with --dry-run, the objects) as JSON or YAML",
    },
    ...KUBE_FLAGS,
  },
});
