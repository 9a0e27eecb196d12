/**
 * The flag groups more than one command declares (`--kubeconfig`/`--context`, `-o`, the registry
 * access flags, the git host flags, …): a group two declaration modules
 * share lives here, so that a flag means the same everywhere.
 *
 * @module
 */
import type { FlagSpec } from "./options.ts";
import { REQUEST_TIMEOUT_FLAG } from "./network.ts";

/** `--request-timeout`, kubectl's, for every command that reaches a server (`network.ts`). */
export const REQUEST_TIMEOUT = { "request-timeout": REQUEST_TIMEOUT_FLAG } as const;

/**
 * `-n`, declared here once. A command's `-n` means one of five things, each declared below; a
 * command spreads the one it means (its help may word it for the command, never change it):
 *
 * | meaning      | the namespace                                 | absent                   |
 * | ------------ | --------------------------------------------- | ------------------------ |
 * | `current`    | the command works in                          | the kubeconfig context's |
 * | `tools`      | of the toolkit's tools                        | `tools`                  |
 * | `workload`   | the images would run in (`check`)             | `default`                |
 * | `policy`     | of an ImagePolicy (`setup-signing`)           | a ClusterImagePolicy     |
 * | `controller` | of the enforcement controller (`--controller-namespace`) | `toolkit-system` |
 *
 * No other module declares a flag `-n` (`flags_test.ts` checks).
 */
export const NAMESPACE = {
  current: {
    type: "string",
    alias: "n",
    describe: "The namespace (default: the context's)",
  },
  tools: { type: "string", alias: "n", default: "tools", describe: "The namespace" },
  workload: {
    type: "string",
    alias: "n",
    default: "default",
    describe: "The namespace the images would run in",
  },
  policy: {
    type: "string",
    alias: "n",
    describe:
      "Write an ImagePolicy in this namespace (with the key Secret) instead of a ClusterImagePolicy",
  },
  controller: {
    type: "string",
    alias: ["n", "namespace"],
    default: "toolkit-system",
    describe: "The controller's namespace",
  },
} as const satisfies Record<string, FlagSpec>;

/**
 * A meaning of {@linkcode NAMESPACE} also spelled `--<alias>` (igc's spellings: `pipeline`'s
 * `--namespace`, `credentials`' `--CLUSTER_NAMESPACE`).
 */
export function namespaceAlsoSpelled<const F extends FlagSpec, const A extends string>(
  meaning: F,
  alias: A,
): Omit<F, "alias"> & { readonly alias: readonly ["n", A] } {
  return { ...meaning, alias: ["n", alias] };
}

/** `--kubeconfig` and `--context`, for every command that talks to a cluster. */
export const KUBE_FLAGS = {
  kubeconfig: {
    type: "string",
    describe: "Path to the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)",
  },
  context: { type: "string", describe: "The kubeconfig context to use (default: the current one)" },
  ...REQUEST_TIMEOUT,
} as const satisfies Record<string, FlagSpec>;

/** `--throttle`: 2 requests a second, on by default in IBM Cloud Shell (`CLOUDSHELL=true`) as with igc. */
export const THROTTLE_FLAG = {
  type: "boolean",
  describe:
    "Throttle requests to the Kubernetes API to 2 a second (default: on when CLOUDSHELL=true)",
  trueWhen: { env: "CLOUDSHELL", value: "true" },
} as const satisfies FlagSpec;

/** `-o text|json|yaml` (default text) for commands that print data. */
export const OUTPUT = {
  output: {
    type: "string",
    alias: "o",
    choices: ["text", "json", "yaml"],
    default: "text",
    describe: "Output format",
  },
} as const satisfies Record<string, FlagSpec>;

/**
 * `-o json|yaml` for commands that change objects: without it they tell what they did on
 * stderr; with it they also print each object's result as data on stdout.
 */
export const RESULT_OUTPUT = {
  output: {
    type: "string",
    alias: "o",
    choices: ["json", "yaml"],
    describe: "Also print the result of each object as JSON or YAML on stdout",
  },
} as const satisfies Record<string, FlagSpec>;

/** Skopeo-compatible registry access flags for the image commands. */
export const REGISTRY_FLAGS = {
  "registries.d": {
    type: "string",
    default: "/etc/containers/registries.d",
    describe: "Directory of registries.d files that configure lookaside signature stores",
  },
  "tls-verify": {
    type: "boolean",
    default: true,
    describe: "Use HTTPS and verify the registry's certificate (false: plain HTTP or untrusted)",
  },
  creds: { type: "string", describe: "Registry credentials as USER[:PASSWORD]" },
  authfile: {
    type: "string",
    env: "REGISTRY_AUTH_FILE",
    describe: "Registry credentials file (containers auth.json format)",
  },
  "cert-dir": { type: "string", describe: "Directory of CA certificates (*.crt) for the registry" },
  ...REQUEST_TIMEOUT,
} as const satisfies Record<string, FlagSpec>;

/**
 * Where a Key Protect compatible vault is and how to sign in to it, for the commands that use the
 * vault (`vault store|fetch`, `sign --vault-key`, `setup-signing`). A bearer token comes from
 * `--token-file`, `KMS_TOKEN` or `--token`, an IAM API key from `--api-key-file`,
 * `IBMCLOUD_API_KEY` or `--api-key` (`cli/secret_flag.ts`: one source each, `-` reads stdin, a
 * value warns); neither is ever printed.
 */
export const VAULT_FLAGS = {
  "kms-url": {
    type: "string",
    env: "KMS_URL",
    describe: "The vault's base URL (Key Protect: https://<region>.kms.cloud.ibm.com)",
  },
  "instance-id": {
    type: "string",
    env: "KMS_INSTANCE_ID",
    describe: "The vault's instance id (or its CRN)",
  },
  token: {
    type: "string",
    describe:
      "A bearer token (an IAM access token); - reads it from stdin. As a value it shows in ps and shell history: prefer --token-file or $KMS_TOKEN",
  },
  "token-file": {
    type: "string",
    describe: "A file holding the bearer token (one line); $KMS_TOKEN may hold it instead",
  },
  "api-key": {
    type: "string",
    describe:
      "An API key for IAM; - reads it from stdin. As a value it shows in ps and shell history: prefer --api-key-file or $IBMCLOUD_API_KEY",
  },
  "api-key-file": {
    type: "string",
    describe:
      "A file holding the API key for IAM (one line); $IBMCLOUD_API_KEY may hold it instead",
  },
  "iam-url": {
    type: "string",
    describe: "The IAM token endpoint (default https://iam.cloud.ibm.com/identity/token)",
  },
  "key-ring": {
    type: "string",
    env: "KMS_KEY_RING",
    describe: "The key ring (x-kms-key-ring): keys are stored in it and looked up only in it",
  },
  ...REQUEST_TIMEOUT,
} as const satisfies Record<string, FlagSpec>;

/** `--git-host-type` and `--git-ca-file`, for the commands that call a git host's API. */
export const GIT_HOST_FLAGS = {
  "git-host-type": {
    type: "string",
    choices: ["github", "ghe", "gitlab", "gitea", "gogs", "bitbucket"],
    describe: "The kind of git host (default: detected)",
  },
  "git-ca-file": {
    type: "string",
    describe: "PEM file of the CA certificates the git host's certificate is checked against",
  },
  "git-api-url": {
    type: "string",
    describe:
      "The git host's API base URL, when it is not where the flavour has it (e.g. a GitHub Enterprise API behind another host name)",
  },
  ...REQUEST_TIMEOUT,
} as const satisfies Record<string, FlagSpec>;

const TEMPLATE_NAMESPACE = {
  type: "string",
  alias: "t",
  describe: "The template namespace that is the source of the config",
} as const satisfies FlagSpec;

/** `-t/--templateNamespace`: where `sync` and `pull-secret` copy from, with its default. */
export function templateNamespace<const D extends string>(
  fallback: D,
): typeof TEMPLATE_NAMESPACE & { readonly default: D } {
  return { ...TEMPLATE_NAMESPACE, default: fallback };
}

/** `-z/--serviceAccount`: the service account `sync` and `pull-secret` give pull secrets to. */
export const SERVICE_ACCOUNT = {
  type: "string",
  alias: "z",
  default: "default",
  describe: "The service account that is used within the namespace",
} as const satisfies FlagSpec;

/**
 * `--git-token-file FILE`: the git password or token of `pipeline`, `git-secret`, `gitops` and
 * `create-webhook` from a file, so that it is neither an argument (`ps`, shell history) nor typed
 * (`cli/secret_flag.ts`; also `$TOOLKIT_GIT_TOKEN` and the value flag's `-`, standard input).
 */
export const GIT_TOKEN_FILE = {
  "git-token-file": {
    type: "string",
    describe:
      "File holding the git password or personal access token (one line); $TOOLKIT_GIT_TOKEN may hold it instead",
  },
} as const satisfies Record<string, FlagSpec>;

const SIGNING_KEY_SOURCES = {
  "vault-key": {
    type: "string",
    describe:
      "Sign with this key of the vault (id, name or alias): read into memory only, never written anywhere",
  },
  ...VAULT_FLAGS,
  "signing-secret-dir": {
    type: "string",
    describe: "The image-signing Secret of setup-signing mounted as files (the Tekton Task's)",
  },
  "signing-secret": {
    type: "string",
    describe: "NAMESPACE/NAME of the Secret mounted at --signing-secret-dir, for messages",
  },
} as const satisfies Record<string, FlagSpec>;

/**
 * Where `sign` and `attest` take a private key besides `--key FILE`: the vault
 * (`--vault-key` with {@linkcode VAULT_FLAGS}) or the mounted `image-signing` Secret of
 * `setup-signing`; `holds` says what the command reads of that Secret.
 */
export function signingKeySources(
  holds: string,
): Omit<typeof SIGNING_KEY_SOURCES, "signing-secret-dir"> & {
  readonly "signing-secret-dir": { readonly type: "string"; readonly describe: string };
} {
  const dir = SIGNING_KEY_SOURCES["signing-secret-dir"];
  return {
    ...SIGNING_KEY_SOURCES,
    "signing-secret-dir": { ...dir, describe: `${dir.describe}: ${holds}` },
  };
}

/** `--passphrase-file`: the signing key's passphrase, for `sign` and `attest`. */
export const SIGNING_PASSPHRASE_FILE = {
  "passphrase-file": {
    type: "string",
    describe: "File with the private key's passphrase (cosign keys: else $COSIGN_PASSWORD)",
  },
} as const satisfies Record<string, FlagSpec>;

/** `--certificate-identity[-regexp]` and `--certificate-oidc-issuer[-regexp]`, cosign's, for the keyless verifications. */
export const CERTIFICATE_IDENTITY_FLAGS = {
  "certificate-identity": {
    type: "string",
    describe: "Keyless: the certificate's subject (URI or e-mail), exactly",
  },
  "certificate-identity-regexp": {
    type: "string",
    describe: "Keyless: the certificate's subject, by an RE2 regular expression",
  },
  "certificate-oidc-issuer": {
    type: "string",
    describe: "Keyless: the OIDC issuer in the certificate, exactly",
  },
  "certificate-oidc-issuer-regexp": {
    type: "string",
    describe: "Keyless: the OIDC issuer, by an RE2 regular expression",
  },
} as const satisfies Record<string, FlagSpec>;
