/**
 * The flag groups more than one command declares (`--kubeconfig`/`--context`, `-o`, the registry
 * access flags, the git host flags, the yq document flags, …): a group two declaration modules
 * share lives here, so that a flag means the same everywhere.
 *
 * @module
 */
import type { FlagSpec } from "./options.ts";
import { REQUEST_TIMEOUT_FLAG } from "./network.ts";

/** `--request-timeout`, kubectl's, for every command that reaches a server (`network.ts`). */
export const REQUEST_TIMEOUT = { "request-timeout": REQUEST_TIMEOUT_FLAG } as const;

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

/** `-d` of the yq commands: which document of a multi-document file. */
export const YQ_DOC = {
  doc: {
    type: "string",
    alias: "d",
    default: "0",
    describe: "The document of a multi-document file, counted from 0, or '*' for all of them",
  },
} as const satisfies Record<string, FlagSpec>;

/** `-i` of the yq commands that change a file. */
export const YQ_INPLACE = {
  inplace: {
    type: "boolean",
    alias: "i",
    describe: "Write the result back to the file (nothing is written when nothing changes)",
  },
} as const satisfies Record<string, FlagSpec>;

/** `--tag` of the yq commands that write a value. */
export const YQ_TAG = {
  tag: {
    type: "string",
    alias: "t",
    choices: ["!!str", "!!int", "!!float", "!!bool", "!!null"],
    describe: "The type of the value (default: as typed; a string stays a string)",
  },
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
