/**
 * Every command of the toolkit CLI, with its aliases, positionals and flags. Names, aliases
 * and flags follow the Cloud-Native Toolkit CLI (`igc`) so that its users' scripts keep working.
 *
 * @module
 */
import { command, type CommandSpec, defineOptions, type FlagSpec } from "./command.ts";

/** `--kubeconfig` and `--context`, for every command that talks to a cluster. */
export const KUBE_FLAGS = {
  kubeconfig: {
    type: "string",
    describe: "Path to the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)",
  },
  context: { type: "string", describe: "The kubeconfig context to use (default: the current one)" },
} as const satisfies Record<string, FlagSpec>;

/** `--throttle`: 2 requests a second, on by default in IBM Cloud Shell (`CLOUDSHELL=true`) as with igc. */
const THROTTLE_FLAG = {
  type: "boolean",
  describe:
    "Throttle requests to the Kubernetes API to 2 a second (default: on when CLOUDSHELL=true)",
  trueWhen: { env: "CLOUDSHELL", value: "true" },
} as const satisfies FlagSpec;

/** `-o text|json|yaml` (default text) for commands that print data. */
const OUTPUT = {
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
const RESULT_OUTPUT = {
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
} as const satisfies Record<string, FlagSpec>;

/**
 * The namespace of the enforcement controller. The commands that work in it (enable, status,
 * disable, rotate-certs) also take it as `-n/--namespace`; `check`, whose `-n` is the namespace
 * the images would run in, takes only the long name.
 */
const CONTROLLER_NAMESPACE = {
  type: "string",
  alias: ["n", "namespace"],
  default: "toolkit-system",
  describe: "The controller's namespace",
} as const satisfies FlagSpec;

/** `image-security keygen`. */
export const KEYGEN = defineOptions({
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

/** `image-security sign`. */
export const SIGN = defineOptions({
  positionals: { image: { type: "string", required: true, describe: "The image reference" } },
  flags: {
    key: { type: "string", describe: "Armoured private key file", demandOption: true },
    identity: { type: "string", describe: "The docker reference to sign for (default: IMAGE)" },
    "passphrase-file": { type: "string", describe: "File with the private key's passphrase" },
    ...REGISTRY_FLAGS,
    ...OUTPUT,
  },
});

/** `image-security verify`. */
export const VERIFY = defineOptions({
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

/** `image-security key-secret`. */
export const KEY_SECRET = defineOptions({
  positionals: { name: { type: "string", required: true, describe: "The Secret's name" } },
  flags: {
    key: {
      type: "string",
      describe: "Public key file: armoured OpenPGP keys (signedBy) or PEM keys (sigstoreSigned)",
      demandOption: true,
    },
    namespace: { type: "string", alias: "n", describe: "The namespace (default: the context's)" },
    "dry-run": { type: "boolean", describe: "Print the Secret instead of creating it" },
    output: {
      type: "string",
      alias: "o",
      choices: ["yaml", "json"],
      describe: "Print the Secret (--dry-run, default yaml) or the result as JSON or YAML",
    },
    ...KUBE_FLAGS,
  },
});

/** `image-security trust-root`. */
export const TRUST_ROOT = defineOptions({
  positionals: { name: { type: "string", required: true, describe: "The ConfigMap's name" } },
  flags: {
    file: {
      type: "string",
      alias: "f",
      describe: "The sigstore trusted_root.json (e.g. from `cosign trusted-root create`)",
      demandOption: true,
    },
    namespace: { type: "string", alias: "n", describe: "The namespace (default: the context's)" },
    "dry-run": { type: "boolean", describe: "Print the ConfigMap instead of creating it" },
    output: {
      type: "string",
      alias: "o",
      choices: ["yaml", "json"],
      describe: "Print the ConfigMap (--dry-run, default yaml) or the result as JSON or YAML",
    },
    ...KUBE_FLAGS,
  },
});

const VAULT_FLAGS = {
  "kms-url": { type: "string", env: "KMS_URL", describe: "The vault's base URL" },
  "instance-id": { type: "string", env: "KMS_INSTANCE_ID", describe: "The instance id" },
  token: { type: "string", env: "KMS_TOKEN", describe: "A bearer token" },
  "api-key": { type: "string", env: "IBMCLOUD_API_KEY", describe: "An API key for IAM" },
  "iam-url": {
    type: "string",
    describe: "The IAM token endpoint (default https://iam.cloud.ibm.com/identity/token)",
  },
  key: { type: "string", describe: "The private key file" },
  ...RESULT_OUTPUT,
} as const satisfies Record<string, FlagSpec>;

/** `image-security vault store`. */
export const VAULT_STORE = defineOptions({
  positionals: { name: { type: "string", required: true, describe: "The key's name" } },
  flags: {
    ...VAULT_FLAGS,
    description: { type: "string", describe: "A description stored with the key" },
  },
});

/** `image-security vault fetch`. */
export const VAULT_FETCH = defineOptions({
  positionals: { name: { type: "string", required: true, describe: "The key's name or id" } },
  flags: {
    ...VAULT_FLAGS,
    force: { type: "boolean", describe: "Replace an existing --key file" },
    import: { type: "boolean", describe: "Import the key into gpg (GNUPGHOME)" },
  },
});

/** `image-security doctor`. */
export const DOCTOR = defineOptions({
  flags: { "registries.d": REGISTRY_FLAGS["registries.d"], ...OUTPUT },
});

/** `image-security check`. */
export const CHECK = defineOptions({
  positionals: {
    images: { type: "string", variadic: true, required: true, describe: "Image references" },
  },
  flags: {
    filename: {
      type: "array",
      alias: "f",
      describe: "Policy and key Secret manifests",
      demandOption: true,
    },
    namespace: {
      type: "string",
      alias: "n",
      default: "default",
      describe: "The namespace the images would run in",
    },
    "no-match": {
      type: "string",
      choices: ["deny", "allow", "warn"],
      default: "deny",
      describe: "What happens to images no policy matches",
    },
    "controller-namespace": {
      type: "string",
      default: "toolkit-system",
      describe: "Where ClusterImagePolicy key Secrets are (the webhook's namespace)",
    },
    "insecure-registry": {
      type: "array",
      describe: "Reach this registry over plain HTTP (repeatable)",
    },
    ...REGISTRY_FLAGS,
    ...OUTPUT,
  },
});

/** `image-security enable`. */
export const ENABLE_ENFORCEMENT = defineOptions({
  flags: {
    "controller-namespace": CONTROLLER_NAMESPACE,
    image: { type: "string", describe: "The webhook image (default: this version's)" },
    replicas: { type: "number", default: 3, describe: "Webhook replicas" },
    default: {
      type: "string",
      choices: ["allow", "warn", "deny"],
      default: "warn",
      describe: "Images no other policy covers: allow, warn when unsigned, or deny unsigned",
    },
    "webhook-url": {
      type: "string",
      describe: "Call the webhook at this https URL instead of its Service",
    },
    "tls-dir": {
      type: "string",
      describe: "Also write the serving certificate to this directory (for --webhook-url)",
    },
    "cert-manager": {
      type: "boolean",
      describe: "Let cert-manager issue the serving certificate and inject the CA",
    },
    "exempt-namespace": {
      type: "array",
      describe: "A namespace the webhook never checks; repeatable",
    },
    lookaside: {
      type: "array",
      describe:
        "SCOPE=URL: the webhook reads signatures of images under SCOPE from this http(s) lookaside store; repeatable",
    },
    "exempt-namespace-label": {
      type: "string",
      default: "toolkit.dev/image-security=exempt",
      describe: 'Namespaces with this label are not checked ("" for none)',
    },
    timeout: { type: "number", default: 10, describe: "The webhook's timeoutSeconds (1-30)" },
    "dry-run": { type: "boolean", describe: "Print every manifest instead of applying" },
    wait: {
      type: "boolean",
      default: true,
      describe: "Switch enforcement on only once a webhook replica is ready (--no-wait: at once)",
    },
    "wait-timeout": {
      type: "number",
      default: 180,
      describe: "Seconds to wait for a ready replica",
    },
    output: {
      type: "string",
      alias: "o",
      choices: ["text", "json", "yaml"],
      describe: "Output format (default: text; with --dry-run, yaml: the manifests)",
    },
    ...KUBE_FLAGS,
  },
});

/** `image-security status`. */
export const STATUS = defineOptions({
  flags: { "controller-namespace": CONTROLLER_NAMESPACE, ...OUTPUT, ...KUBE_FLAGS },
});

/** `image-security disable`. */
export const DISABLE = defineOptions({
  flags: {
    "controller-namespace": CONTROLLER_NAMESPACE,
    purge: {
      type: "boolean",
      describe: "Also remove the default policies, the CRDs (every policy) and the namespace",
    },
    ...RESULT_OUTPUT,
    ...KUBE_FLAGS,
  },
});

/** `image-security rotate-certs`. */
export const ROTATE_CERTS = defineOptions({
  flags: {
    "controller-namespace": CONTROLLER_NAMESPACE,
    "tls-dir": {
      type: "string",
      describe: "Also write the serving certificate to this directory (for --webhook-url)",
    },
    ...OUTPUT,
    ...KUBE_FLAGS,
  },
});

const imageSecurity: CommandSpec = {
  usage: "image-security <command>",
  aliases: ["imagesecurity"],
  describe: "Sign images, manage keys and enforce image signatures in a cluster",
  subcommands: [
    command(KEYGEN, {
      usage: "keygen",
      describe: "Make an OpenPGP key pair that gpg and skopeo accept",
      load: () => import("./image_security/keygen.ts").then((m) => m.run),
    }),
    command(SIGN, {
      usage: "sign <image>",
      describe: "Sign the image's current digest and store the signature",
      load: () => import("./image_security/sign.ts").then((m) => m.run),
    }),
    command(VERIFY, {
      usage: "verify <image>",
      describe:
        "Verify the image's signatures (simple signing or cosign) against a key or trust root",
      load: () => import("./image_security/verify.ts").then((m) => m.run),
    }),
    command(KEY_SECRET, {
      usage: "key-secret <name>",
      describe: "Create the Secret whose `key` entry holds public keys (OpenPGP or PEM)",
      load: () => import("./image_security/key_secret.ts").then((m) => m.run),
    }),
    command(TRUST_ROOT, {
      usage: "trust-root <name>",
      describe: "Create the ConfigMap holding a sigstore trusted_root.json for keyless policies",
      load: () => import("./image_security/trust_root.ts").then((m) => m.run),
    }),
    {
      usage: "vault <command>",
      describe: "Store and fetch private keys in a Key Protect compatible vault",
      subcommands: [
        command(VAULT_STORE, {
          usage: "store <name>",
          describe: "Store a private key in the vault",
          load: () => import("./image_security/vault.ts").then((m) => m.runVaultStore),
        }),
        command(VAULT_FETCH, {
          usage: "fetch <name>",
          describe: "Fetch a private key from the vault",
          load: () => import("./image_security/vault.ts").then((m) => m.runVaultFetch),
        }),
      ],
    },
    command(DOCTOR, {
      usage: "doctor",
      describe: "Check the local signing setup (registries.d, gpg)",
      load: () => import("./image_security/doctor.ts").then((m) => m.run),
    }),
    command(CHECK, {
      usage: "check <images..>",
      describe: "Evaluate images against policies from files, offline",
      examples: [[
        "image-security check quay.io/team/app:1 -f policies.yaml -n prod",
        "Would the webhook admit this image in namespace prod?",
      ]],
      load: () => import("./image_security/check.ts").then((m) => m.run),
    }),
    command(ENABLE_ENFORCEMENT, {
      usage: "enable",
      describe: "Install image signature enforcement into the cluster",
      examples: [
        ["image-security enable --default deny", "Enforce signatures on every image"],
        ["image-security enable --dry-run -o yaml", "Print the manifests"],
        [
          "image-security enable --webhook-url https://10.0.0.5:8443/admit --tls-dir ./tls",
          "Call a webhook run outside the cluster with the certificate in ./tls",
        ],
      ],
      load: () => import("./image_security/install.ts").then((m) => m.runEnable),
    }),
    command(STATUS, {
      usage: "status",
      describe: "Show what is installed",
      load: () => import("./image_security/install.ts").then((m) => m.runStatus),
    }),
    command(DISABLE, {
      usage: "disable",
      describe: "Remove image signature enforcement",
      load: () => import("./image_security/install.ts").then((m) => m.runDisable),
    }),
    command(ROTATE_CERTS, {
      usage: "rotate-certs",
      describe: "Renew the webhook's serving certificate",
      load: () => import("./image_security/install.ts").then((m) => m.runRotateCerts),
    }),
  ],
};

const templateNamespace = <const D extends string>(fallback: D) => ({
  type: "string",
  alias: "t",
  default: fallback,
  describe: "The template namespace that is the source of the config",
} as const);
const serviceAccount = {
  type: "string",
  alias: "z",
  default: "default",
  describe: "The service account that is used within the namespace",
} as const satisfies FlagSpec;

/** `enable`. */
export const ENABLE = defineOptions({
  flags: {
    repo: {
      type: "string",
      default: "https://cloud-native-toolkit.github.io/garage-pipelines/",
      describe: "The repository from which the pipelines are retrieved",
    },
    pipeline: { type: "string", alias: "p", describe: "The name of the pipeline to enable" },
    release: { type: "string", alias: "r", default: "latest", describe: "The release version" },
    branch: { type: "string", alias: "b", default: "stable", describe: "The pipeline branch" },
    dir: { type: "string", describe: "The repository to add the files to (default: here)" },
    force: {
      type: "boolean",
      describe: "Overwrite changed files and accept a working tree with uncommitted changes",
    },
    "dry-run": { type: "boolean", describe: "Show what would be added or changed; write nothing" },
    output: { type: "string", alias: "o", choices: ["json"], describe: "Print the result as JSON" },
  },
});

/** `console`. */
export const CONSOLE = defineOptions({
  flags: {
    print: { type: "boolean", describe: "Print the URL instead of opening it" },
    ...KUBE_FLAGS,
  },
});

/** `--git-host-type` and `--git-ca-file`, for the commands that call a git host's API. */
const GIT_HOST_FLAGS = {
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
} as const satisfies Record<string, FlagSpec>;

/** `create-webhook`: igc's flags (and environment variables), and what users expect beyond. */
export const CREATE_WEBHOOK = defineOptions({
  flags: {
    jenkinsUrl: {
      type: "string",
      alias: "JENKINS_URL",
      env: "JENKINS_URL",
      describe: "The Jenkins host url",
    },
    gitUsername: {
      type: "string",
      alias: "USER_NAME",
      env: "USER_NAME",
      describe: "The username for git (default: the URL's)",
    },
    gitToken: {
      type: "string",
      alias: "API_TOKEN",
      env: "API_TOKEN",
      describe: "The personal access token for git",
    },
    gitUrl: { type: "string", alias: "GIT_URL", env: "GIT_URL", describe: "The git repo url" },
    jobName: {
      type: "string",
      describe: "The Jenkins job as <folder>/<job> or <job> (GitLab's hook calls the job)",
    },
    webhookUrl: {
      type: "string",
      describe: "Send push events to this URL instead of Jenkins (any listener)",
    },
    secret: {
      type: "string",
      env: "WEBHOOK_SECRET",
      describe: "The webhook secret (default: a new random one for a new hook)",
    },
    ...GIT_HOST_FLAGS,
    output: {
      type: "string",
      alias: "o",
      choices: ["json", "yaml"],
      describe: "Print the hook (id, URL, action) as JSON or YAML",
    },
  },
});

/** `credentials`. */
export const CREDENTIALS = defineOptions({
  flags: {
    namespace: {
      type: "string",
      alias: ["n", "CLUSTER_NAMESPACE"],
      env: "CLUSTER_NAMESPACE",
      describe: "The namespace where the credentials are stored (default: tools)",
    },
    yaml: { type: "boolean", describe: "Print the result as YAML (same as -o yaml)" },
    output: {
      type: "string",
      alias: "o",
      choices: ["json", "yaml"],
      default: "json",
      describe: "Output format",
    },
    ...KUBE_FLAGS,
  },
});

/** `dashboard`. */
export const DASHBOARD = defineOptions({
  flags: {
    namespace: {
      type: "string",
      alias: "n",
      default: "tools",
      describe: "The namespace where the Dashboard has been deployed",
    },
    print: { type: "boolean", describe: "Print the URL instead of opening it" },
    ...KUBE_FLAGS,
  },
});

/** `endpoints`. */
export const ENDPOINTS = defineOptions({
  flags: {
    namespace: { type: "string", alias: "n", describe: "The namespace (default: the context's)" },
    print: { type: "boolean", describe: "Print the list instead of showing a menu" },
    ...OUTPUT,
    ...KUBE_FLAGS,
  },
});

const GIT_SECRET_FLAGS = {
  namespace: {
    type: "string",
    alias: "n",
    describe: "Namespace where the secret is created (default: the context's)",
  },
  values: {
    type: "string",
    describe: "File (YAML, JSON or .properties) with additional attributes",
  },
  workingDir: {
    type: "string",
    alias: "d",
    describe: "Directory of the git repository (default: the current directory)",
  },
  gitUsername: { type: "string", alias: "u", describe: "Git username" },
  gitPat: { type: "string", alias: "p", describe: "Git personal access token" },
  replace: { type: "boolean", describe: "Replace the secret if it already exists" },
  ...RESULT_OUTPUT,
  ...KUBE_FLAGS,
} as const satisfies Record<string, FlagSpec>;

/** `git-secret`. */
export const GIT_SECRET = defineOptions({
  positionals: {
    name: { type: "string", describe: "The ConfigMap name (default: <org>.<repo>)" },
  },
  flags: GIT_SECRET_FLAGS,
});

/** `gitops`. */
export const GITOPS = defineOptions({
  positionals: { gitUrl: { type: "string", describe: "The gitops repository URL" } },
  flags: GIT_SECRET_FLAGS,
});

/** `git`. */
export const GIT = defineOptions({
  positionals: { remote: { type: "string", default: "origin", describe: "The git remote" } },
  flags: {
    workingDir: { type: "string", alias: "d", describe: "Directory of the git repository" },
    print: { type: "boolean", describe: "Print the URL instead of opening it" },
  },
});

/** `sync`. */
export const SYNC = defineOptions({
  positionals: { namespace: { type: "string", describe: "The namespace to create and sync" } },
  flags: {
    templateNamespace: templateNamespace("tools"),
    serviceAccount,
    tekton: { type: "boolean", alias: "p", describe: "Give the pipeline service account SCC" },
    puller: { type: "boolean", default: true, describe: "Grant image-puller in the namespace" },
    argocd: { type: "boolean", alias: "a", describe: "Let Argo CD manage the namespace" },
    argocdNamespace: {
      type: "string",
      alias: "x",
      default: "openshift-gitops",
      describe: "The namespace where Argo CD runs",
    },
    throttle: THROTTLE_FLAG,
    ...RESULT_OUTPUT,
    ...KUBE_FLAGS,
  },
});

/** `pull-secret`. */
export const PULL_SECRET = defineOptions({
  positionals: { namespace: { type: "string", describe: "The target namespace" } },
  flags: {
    templateNamespace: templateNamespace("default"),
    serviceAccount,
    dev: { type: "boolean", describe: "Mark the namespace as a development namespace" },
    ...RESULT_OUTPUT,
    ...KUBE_FLAGS,
  },
});

/** `tool-config`. */
export const TOOL_CONFIG = defineOptions({
  positionals: { name: { type: "string", describe: "The tool's name" } },
  flags: {
    namespace: { type: "string", alias: "n", default: "tools", describe: "The namespace" },
    url: { type: "string", describe: "The url of the tool" },
    username: { type: "string", describe: "The name of the user for the tool" },
    password: { type: "string", describe: "The password for the user for the tool" },
    ...RESULT_OUTPUT,
    ...KUBE_FLAGS,
  },
});

/** `pipeline`: igc's flags, and what users expect beyond them. */
export const PIPELINE = defineOptions({
  positionals: {
    gitUrl: {
      type: "string",
      describe:
        "The repository, with #branch to choose the branch (default: the origin remote and checked-out branch of the current directory)",
    },
  },
  flags: {
    pipelineNamespace: {
      type: "string",
      alias: ["n", "namespace"],
      describe: "The namespace the pipeline runs in (default: the context's)",
    },
    templateNamespace: {
      type: "string",
      alias: "t",
      default: "tools",
      describe: "The namespace of the template Tekton pipelines (or of Jenkins)",
    },
    tekton: { type: "boolean", describe: "Register a Tekton pipeline" },
    jenkins: { type: "boolean", describe: "Register a Jenkins pipeline" },
    pipeline: {
      type: "string",
      describe: "The template pipeline to use (default: chosen by runtime)",
    },
    param: {
      type: "array",
      alias: "p",
      describe: "A parameter of the pipeline as name=value (repeatable; split at the first =)",
    },
    username: { type: "string", alias: "u", describe: "The git user name" },
    password: { type: "string", alias: "P", describe: "The git password or personal access token" },
    replaceGitSecret: {
      type: "boolean",
      alias: "g",
      describe: "Ask for the git credentials again and replace the stored ones",
    },
    values: {
      type: "string",
      describe: "File (YAML, JSON or .properties) with additional values for the git secret",
    },
    skipWebhook: { type: "boolean", describe: "Do not create the webhook on the git host" },
    replace: {
      type: "boolean",
      describe: "Jenkins: replace a job that exists with another configuration without asking",
    },
    ...GIT_HOST_FLAGS,
    "ingress-host": {
      type: "string",
      describe: "Kubernetes: the host name of the Ingress that exposes the event listener",
    },
    "listener-url": {
      type: "string",
      describe: "The URL the git host sends push events to (default: from the Route or Ingress)",
    },
    start: {
      type: "boolean",
      default: true,
      describe: "Start a first PipelineRun (--no-start: do not)",
    },
    wait: {
      type: "boolean",
      default: true,
      describe: "Wait for the event listener to be available (--no-wait: do not)",
    },
    "wait-timeout": {
      type: "number",
      default: 120,
      describe: "Seconds to wait for the event listener",
    },
    "dry-run": {
      type: "boolean",
      describe: "Print the objects that would be written; change nothing",
    },
    output: {
      type: "string",
      alias: "o",
      choices: ["json", "yaml"],
      describe: "Print the objects (--dry-run) or what was done as JSON or YAML",
    },
    generateCrumb: {
      type: "boolean",
      alias: "c",
      default: true,
      describe: "Jenkins: ask for a crumb first",
    },
    throttle: THROTTLE_FLAG,
    removeargocdlabel: {
      type: "string",
      hidden: true,
      describe: "Accepted for igc's scripts; Argo CD instance labels are always removed",
    },
    ...KUBE_FLAGS,
  },
});

/** `vlan`. */
export const VLAN = defineOptions({
  flags: {
    datacenter: { type: "string", alias: "d", describe: "The zone (data center), e.g. dal10" },
    provider: {
      type: "string",
      alias: "p",
      choices: ["classic", "vpc"],
      default: "classic",
      describe: "The provider: only classic has VLANs",
    },
    region: { type: "string", alias: "r", describe: "The region (default: ibmcloud's target)" },
    "resource-group": {
      type: "string",
      describe: "The resource group (default: ibmcloud's target)",
    },
    "public-vlan": { type: "string", describe: "The id of the public VLAN to use" },
    "private-vlan": { type: "string", describe: "The id of the private VLAN to use" },
    format: {
      type: "string",
      choices: ["text", "tfvars", "json"],
      default: "text",
      describe: "text: igc's commented tfvars; tfvars: the variables only; json",
    },
    output: { type: "string", alias: "o", describe: "Write to this file instead of stdout" },
  },
});

/** `-d` of the yq commands: which document of a multi-document file. */
const YQ_DOC = {
  doc: {
    type: "string",
    alias: "d",
    default: "0",
    describe: "The document of a multi-document file, counted from 0, or '*' for all of them",
  },
} as const satisfies Record<string, FlagSpec>;

/** `-i` of the yq commands that change a file. */
const YQ_INPLACE = {
  inplace: {
    type: "boolean",
    alias: "i",
    describe: "Write the result back to the file (nothing is written when nothing changes)",
  },
} as const satisfies Record<string, FlagSpec>;

/** `--tag` of the yq commands that write a value. */
const YQ_TAG = {
  tag: {
    type: "string",
    alias: "t",
    choices: ["!!str", "!!int", "!!float", "!!bool", "!!null"],
    describe: "The type of the value (default: as typed; a string stays a string)",
  },
} as const satisfies Record<string, FlagSpec>;

/** `yq r`. */
export const YQ_READ = defineOptions({
  positionals: {
    file: { type: "string", default: "-", describe: "The YAML file (- or none: standard input)" },
    path: { type: "string", describe: "What to print (default: the whole document)" },
  },
  flags: { ...YQ_DOC },
});

/** `yq w`. */
export const YQ_WRITE = defineOptions({
  positionals: {
    file: { type: "string", required: true, describe: "The YAML file (-: standard input)" },
    path: { type: "string", required: true, describe: "Where to write (a.b[0].c, a[name==x].c)" },
    value: {
      type: "string",
      required: true,
      allowEmpty: true,
      describe: "The value, written as typed",
    },
  },
  flags: { ...YQ_INPLACE, ...YQ_DOC, ...YQ_TAG },
});

/** `yq d`. */
export const YQ_DELETE = defineOptions({
  positionals: {
    file: { type: "string", required: true, describe: "The YAML file (-: standard input)" },
    path: { type: "string", required: true, describe: "What to delete" },
  },
  flags: { ...YQ_INPLACE, ...YQ_DOC },
});

/** `yq merge`. */
export const YQ_MERGE = defineOptions({
  positionals: {
    files: {
      type: "string",
      variadic: true,
      required: true,
      describe: "The file to merge into, then the files merged into it",
    },
  },
  flags: {
    ...YQ_INPLACE,
    ...YQ_DOC,
    overwrite: {
      type: "boolean",
      alias: "x",
      describe: "Values of later files replace those of earlier ones",
    },
    append: { type: "boolean", alias: "a", describe: "Sequences of later files are appended" },
  },
});

/** `yq new`. */
export const YQ_NEW = defineOptions({
  positionals: {
    path: { type: "string", required: true, describe: "Where the value goes" },
    value: {
      type: "string",
      required: true,
      allowEmpty: true,
      describe: "The value, written as typed",
    },
  },
  flags: { ...YQ_TAG },
});

/** `yq`: YAML reading and editing that keeps comments, order and quoting. */
const yq: CommandSpec = {
  usage: "yq <command>",
  describe: "Read and change YAML files, keeping their comments, key order and quoting",
  examples: [
    ["yq w values.yaml image.tag 1.10 -i", "Set image.tag to 1.10 (not 1.1) in place"],
    [
      "yq w requirements.yaml 'dependencies[?(@.name == \"image\")].version' 1.2.0",
      "igc's JSONPath filters work",
    ],
    ["yq w deploy.yaml 'spec.containers[name==app].image' app:v2", "Pick a list item by field"],
    ["yq r values.yaml 'ingress.hosts[*].host'", "Print values"],
    ["yq d values.yaml 'metadata.annotations.\"app.kubernetes.io/name\"'", "Delete a key"],
    ["yq merge -x base.yaml overrides.yaml", "Deep-merge, later values winning"],
    ["yq new a.b[0].c 3.0", "Print a new document"],
  ],
  subcommands: [
    command(YQ_READ, {
      usage: "r [file] [path]",
      aliases: ["read"],
      describe: "Print the values at a path",
      load: () => import("./yq/read.ts").then((m) => m.run),
    }),
    command(YQ_WRITE, {
      usage: "w <file> <path> <value>",
      aliases: ["write"],
      describe: "Write a value at a path (creating what is missing); print or -i",
      examples: [
        ["yq w values.yaml replicas 3 --tag '!!str'", 'Write a string ("3")'],
        ["yq w -d 1 all.yaml metadata.labels.team web", "Write in the second document"],
        ["yq w values.yaml 'args[+]' -- --debug", "A value that starts with - goes after --"],
      ],
      load: () => import("./yq/write.ts").then((m) => m.run),
    }),
    command(YQ_DELETE, {
      usage: "d <file> <path>",
      aliases: ["delete"],
      describe: "Delete the keys or items at a path; print or -i",
      load: () => import("./yq/delete.ts").then((m) => m.run),
    }),
    command(YQ_MERGE, {
      usage: "merge <files..>",
      aliases: ["m"],
      describe: "Deep-merge files into the first; print or -i",
      load: () => import("./yq/merge.ts").then((m) => m.run),
    }),
    command(YQ_NEW, {
      usage: "new <path> <value>",
      aliases: ["n"],
      describe: "Print a new document with a value at a path",
      load: () => import("./yq/new.ts").then((m) => m.run),
    }),
  ],
};

/** The top-level commands, in the order of `--help`. */
export const COMMANDS: readonly CommandSpec[] = [
  command(CONSOLE, {
    usage: "console",
    describe: "Launch the Kubernetes or OpenShift admin console",
    load: () => import("./dev/console.ts").then((m) => m.run),
  }),
  command(CREATE_WEBHOOK, {
    usage: "create-webhook",
    describe: "Create a git webhook for a given Jenkins pipeline (or any listener)",
    examples: [
      [
        "create-webhook --gitUrl https://github.com/org/app --gitToken $TOKEN --jenkinsUrl https://jenkins.example.com",
        "GitHub calls Jenkins' GitHub plugin on every push",
      ],
      [
        "create-webhook --gitUrl https://gitlab.com/org/app --jobName dev/app --jenkinsUrl https://jenkins.example.com",
        "GitLab calls the job's own endpoint",
      ],
    ],
    load: () => import("./dev/create_webhook.ts").then((m) => m.run),
  }),
  command(CREDENTIALS, {
    usage: "credentials",
    describe: "List the urls and credentials for the tools deployed to the cluster",
    load: () => import("./dev/credentials.ts").then((m) => m.run),
  }),
  command(DASHBOARD, {
    usage: "dashboard",
    describe: "Open the Developer Dashboard in the default browser",
    load: () => import("./dev/dashboard.ts").then((m) => m.run),
  }),
  command(ENABLE, {
    usage: "enable",
    describe: "Enable the current repository with pipeline logic",
    examples: [
      ["enable -p nodejs", "Add the stable Node.js pipeline's files to this repository"],
      ["enable -p nodejs -r 1.0.0 --dry-run", "Show what would be added or changed"],
    ],
    load: () => import("./enable/enable.ts").then((m) => m.run),
  }),
  command(ENDPOINTS, {
    usage: "endpoints",
    aliases: ["ingress", "endpoint", "ingresses"],
    describe: "List the ingress and route URLs of the apps in a namespace",
    load: () => import("./dev/endpoints.ts").then((m) => m.run),
  }),
  command(GIT_SECRET, {
    usage: "git-secret [name]",
    describe: "Create a secret with the url, username and access token of a git repo",
    load: () => import("./dev/git_secret.ts").then((m) => m.run),
  }),
  command(GIT, {
    usage: "git [remote]",
    describe: "Open the web page of the git repository of a remote (default origin)",
    load: () => import("./dev/git.ts").then((m) => m.run),
  }),
  command(GITOPS, {
    usage: "gitops [gitUrl]",
    describe: "Register the git repository as the gitops repository of a namespace",
    load: () => import("./dev/git_secret.ts").then((m) => m.runGitops),
  }),
  command(SYNC, {
    usage: "sync [namespace]",
    aliases: ["project", "namespace"],
    describe: "Create a namespace (if it does not exist) and prepare it with the configuration",
    load: () => import("./dev/sync.ts").then((m) => m.run),
  }),
  command(PULL_SECRET, {
    usage: "pull-secret [namespace]",
    describe: "Copy pull secrets into the namespace from the template namespace",
    load: () => import("./dev/pull_secret.ts").then((m) => m.run),
  }),
  command(PIPELINE, {
    usage: "pipeline [gitUrl]",
    describe: "Register a pipeline (Tekton or Jenkins) for the current code repository",
    examples: [
      [
        "pipeline https://github.com/org/app#main --tekton -n dev",
        "Run the matching template pipeline of `tools` on every push to main",
      ],
      ["pipeline --tekton -n dev --dry-run -o yaml", "Print what would be created"],
    ],
    load: () => import("./dev/pipeline.ts").then((m) => m.run),
  }),
  command(TOOL_CONFIG, {
    usage: "tool-config [name]",
    describe: "Create the config map and secret for a tool configured in the environment",
    load: () => import("./dev/tool_config.ts").then((m) => m.run),
  }),
  command(VLAN, {
    usage: "vlan",
    describe: "Print the VLANs of an IBM Cloud classic zone for terraform (from ibmcloud)",
    examples: [
      ["vlan", "The target region's VLANs, chosen on a terminal when there are several"],
      ["vlan -r ca-tor -d tor01 --format tfvars -o vlan.tfvars", "Another region, to a file"],
    ],
    load: () => import("./vlan/vlan.ts").then((m) => m.run),
  }),
  yq,
  imageSecurity,
];
