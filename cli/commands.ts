/**
 * Every command of the toolkit CLI, with its aliases, positionals and flags. Names, aliases
 * and flags follow the Cloud-Native Toolkit CLI (`igc`) so that its users' scripts keep working.
 *
 * @module
 */
import type { CommandRun, CommandSpec, FlagSpec } from "./command.ts";
import { NotImplementedError } from "../lib/errors.ts";

/** `--kubeconfig` and `--context`, for every command that talks to a cluster. */
export const KUBE_FLAGS: Readonly<Record<string, FlagSpec>> = {
  kubeconfig: {
    type: "string",
    describe: "Path to the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)",
  },
  context: { type: "string", describe: "The kubeconfig context to use (default: the current one)" },
};

/** `-o json|yaml` for commands that print data. */
export function outputFlag(choices: readonly string[], fallback: string): Record<string, FlagSpec> {
  return {
    output: { type: "string", alias: "o", choices, default: fallback, describe: "Output format" },
  };
}

/** Skopeo-compatible registry access flags for the image commands. */
const REGISTRY_FLAGS: Readonly<Record<string, FlagSpec>> = {
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
};

/** `-n`: the namespace of the enforcement controller. */
const CONTROLLER_NAMESPACE: FlagSpec = {
  type: "string",
  alias: "n",
  default: "toolkit-system",
  describe: "The controller's namespace",
};

/** A command that is registered but not built yet: it says so and exits 1. */
function notBuilt(name: string): () => Promise<CommandRun> {
  return () =>
    Promise.resolve(() => {
      throw new NotImplementedError(name);
    });
}

const imageSecurity: CommandSpec = {
  usage: "image-security <command>",
  aliases: ["imagesecurity"],
  describe: "Sign images, manage keys and enforce image signatures in a cluster",
  subcommands: [
    {
      usage: "keygen",
      describe: "Make an OpenPGP key pair that gpg and skopeo accept",
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
        ...outputFlag(["text", "json", "yaml"], "text"),
      },
      load: () => import("./image_security/keygen.ts").then((m) => m.run),
    },
    {
      usage: "sign <image>",
      describe: "Sign the image's current digest and store the signature",
      positionals: { image: { type: "string", describe: "The image reference" } },
      flags: {
        key: { type: "string", describe: "Armoured private key file", demandOption: true },
        identity: { type: "string", describe: "The docker reference to sign for (default: IMAGE)" },
        "passphrase-file": { type: "string", describe: "File with the private key's passphrase" },
        ...REGISTRY_FLAGS,
        ...outputFlag(["text", "json", "yaml"], "text"),
      },
      load: () => import("./image_security/sign.ts").then((m) => m.run),
    },
    {
      usage: "verify <image>",
      describe: "Verify the image's signatures against a public key",
      positionals: { image: { type: "string", describe: "The image reference" } },
      flags: {
        key: { type: "string", describe: "Armoured public key file", demandOption: true },
        "identity-rule": {
          type: "string",
          describe:
            "signedIdentity rule: matchRepoDigestOrExact, matchRepository, matchExact, matchExactReference, matchExactRepository, remapIdentity",
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
        ...outputFlag(["text", "json", "yaml"], "text"),
      },
      load: () => import("./image_security/verify.ts").then((m) => m.run),
    },
    {
      usage: "key-secret <name>",
      describe: "Create the Secret whose `key` entry holds an armoured public key",
      positionals: { name: { type: "string", describe: "The Secret's name" } },
      flags: {
        key: { type: "string", describe: "Armoured public key file", demandOption: true },
        namespace: {
          type: "string",
          alias: "n",
          describe: "The namespace (default: the context's)",
        },
        "dry-run": { type: "boolean", describe: "Print the Secret instead of creating it" },
        ...outputFlag(["yaml", "json"], "yaml"),
        ...KUBE_FLAGS,
      },
      load: () => import("./image_security/key_secret.ts").then((m) => m.run),
    },
    {
      usage: "vault <command>",
      describe: "Store and fetch private keys in a Key Protect compatible vault",
      subcommands: ["store", "fetch"].map((verb) => ({
        usage: `${verb} <name>`,
        describe: verb === "store"
          ? "Store a private key in the vault"
          : "Fetch a private key from the vault",
        positionals: { name: { type: "string", describe: "The key's name or id" } },
        flags: {
          "kms-url": { type: "string", env: "KMS_URL", describe: "The vault's base URL" },
          "instance-id": { type: "string", env: "KMS_INSTANCE_ID", describe: "The instance id" },
          token: { type: "string", env: "KMS_TOKEN", describe: "A bearer token" },
          "api-key": { type: "string", env: "IBMCLOUD_API_KEY", describe: "An API key for IAM" },
          "iam-url": {
            type: "string",
            describe: "The IAM token endpoint (default https://iam.cloud.ibm.com/identity/token)",
          },
          key: { type: "string", describe: "The private key file" },
          ...(verb === "store"
            ? { description: { type: "string", describe: "A description stored with the key" } }
            : {
              force: { type: "boolean", describe: "Replace an existing --key file" },
              import: { type: "boolean", describe: "Import the key into gpg (GNUPGHOME)" },
            }) as Record<string, FlagSpec>,
        },
        load: () =>
          import("./image_security/vault.ts").then((m) =>
            verb === "store" ? m.runVaultStore : m.runVaultFetch
          ),
      })),
    },
    {
      usage: "doctor",
      describe: "Check the local signing setup (registries.d, gpg)",
      flags: {
        "registries.d": REGISTRY_FLAGS["registries.d"]!,
        ...outputFlag(["text", "json", "yaml"], "text"),
      },
      load: () => import("./image_security/doctor.ts").then((m) => m.run),
    },
    {
      usage: "check <images..>",
      describe: "Evaluate images against policies from files, offline",
      positionals: { images: { type: "string", variadic: true, describe: "Image references" } },
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
        ...outputFlag(["text", "json", "yaml"], "text"),
      },
      examples: [[
        "image-security check quay.io/team/app:1 -f policies.yaml -n prod",
        "Would the webhook admit this image in namespace prod?",
      ]],
      load: () => import("./image_security/check.ts").then((m) => m.run),
    },
    {
      usage: "enable",
      describe: "Install image signature enforcement into the cluster",
      flags: {
        namespace: CONTROLLER_NAMESPACE,
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
          describe:
            "Switch enforcement on only once a webhook replica is ready (--no-wait: at once)",
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
      examples: [
        ["image-security enable --default deny", "Enforce signatures on every image"],
        ["image-security enable --dry-run -o yaml", "Print the manifests"],
        [
          "image-security enable --webhook-url https://10.0.0.5:8443/admit --tls-dir ./tls",
          "Call a webhook run outside the cluster with the certificate in ./tls",
        ],
      ],
      load: () => import("./image_security/install.ts").then((m) => m.runEnable),
    },
    {
      usage: "status",
      describe: "Show what is installed",
      flags: {
        namespace: CONTROLLER_NAMESPACE,
        ...outputFlag(["text", "json", "yaml"], "text"),
        ...KUBE_FLAGS,
      },
      load: () => import("./image_security/install.ts").then((m) => m.runStatus),
    },
    {
      usage: "disable",
      describe: "Remove image signature enforcement",
      flags: {
        namespace: CONTROLLER_NAMESPACE,
        purge: {
          type: "boolean",
          describe: "Also remove the default policies, the CRDs (every policy) and the namespace",
        },
        ...KUBE_FLAGS,
      },
      load: () => import("./image_security/install.ts").then((m) => m.runDisable),
    },
    {
      usage: "rotate-certs",
      describe: "Renew the webhook's serving certificate",
      flags: {
        namespace: CONTROLLER_NAMESPACE,
        "tls-dir": {
          type: "string",
          describe: "Also write the serving certificate to this directory (for --webhook-url)",
        },
        ...outputFlag(["text", "json", "yaml"], "text"),
        ...KUBE_FLAGS,
      },
      load: () => import("./image_security/install.ts").then((m) => m.runRotateCerts),
    },
  ],
};

const templateNamespace = (fallback: string): FlagSpec => ({
  type: "string",
  alias: "t",
  default: fallback,
  describe: "The template namespace that is the source of the config",
});
const serviceAccount: FlagSpec = {
  type: "string",
  alias: "z",
  default: "default",
  describe: "The service account that is used within the namespace",
};
const verbose: FlagSpec = { type: "boolean", describe: "Tell each step" };
const gitSecretFlags: Record<string, FlagSpec> = {
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
  ...KUBE_FLAGS,
};
const quietDebug: Record<string, FlagSpec> = {
  quiet: { type: "boolean", describe: "Suppress all logging" },
  debug: { type: "boolean", describe: "Turn on extra logging" },
};

/** The top-level commands, in the order of `--help`. */
export const COMMANDS: readonly CommandSpec[] = [
  {
    usage: "console",
    describe: "Launch the Kubernetes or OpenShift admin console",
    flags: {
      print: { type: "boolean", describe: "Print the URL instead of opening it" },
      ...quietDebug,
      ...KUBE_FLAGS,
    },
    load: () => import("./dev/console.ts").then((m) => m.run),
  },
  {
    usage: "create-webhook",
    describe: "Create a git webhook for a given Jenkins pipeline",
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
        describe: "The username for git",
      },
      gitToken: {
        type: "string",
        alias: "API_TOKEN",
        env: "API_TOKEN",
        describe: "The personal access token for git",
      },
      gitUrl: { type: "string", alias: "GIT_URL", env: "GIT_URL", describe: "The git repo url" },
    },
    load: notBuilt("create-webhook"),
  },
  {
    usage: "credentials",
    describe: "List the urls and credentials for the tools deployed to the cluster",
    flags: {
      namespace: {
        type: "string",
        alias: ["n", "CLUSTER_NAMESPACE"],
        env: "CLUSTER_NAMESPACE",
        describe: "The namespace where the credentials are stored (default: tools)",
      },
      yaml: { type: "boolean", describe: "Print the result as YAML (same as -o yaml)" },
      ...outputFlag(["json", "yaml"], "json"),
      ...quietDebug,
      ...KUBE_FLAGS,
    },
    load: () => import("./dev/credentials.ts").then((m) => m.run),
  },
  {
    usage: "dashboard",
    describe: "Open the Developer Dashboard in the default browser",
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
    load: () => import("./dev/dashboard.ts").then((m) => m.run),
  },
  {
    usage: "enable",
    describe: "Enable the current repository with pipeline logic",
    flags: {
      repo: {
        type: "string",
        default: "https://cloud-native-toolkit.github.io/garage-pipelines/",
        describe: "The repository from which the pipelines are retrieved",
      },
      pipeline: { type: "string", alias: "p", describe: "The name of the pipeline to enable" },
      release: { type: "string", alias: "r", default: "latest", describe: "The release version" },
      branch: { type: "string", alias: "b", default: "stable", describe: "The pipeline branch" },
    },
    load: notBuilt("enable"),
  },
  {
    usage: "endpoints",
    aliases: ["ingress", "endpoint", "ingresses"],
    describe: "List the ingress and route URLs of the apps in a namespace",
    flags: {
      namespace: {
        type: "string",
        alias: "n",
        describe: "The namespace (default: the context's)",
      },
      print: { type: "boolean", describe: "Print the list instead of showing a menu" },
      ...outputFlag(["text", "json", "yaml"], "text"),
      ...quietDebug,
      ...KUBE_FLAGS,
    },
    load: () => import("./dev/endpoints.ts").then((m) => m.run),
  },
  {
    usage: "git-secret [name]",
    describe: "Create a secret with the url, username and access token of a git repo",
    positionals: {
      name: { type: "string", describe: "The ConfigMap name (default: <org>.<repo>)" },
    },
    flags: gitSecretFlags,
    load: () => import("./dev/git_secret.ts").then((m) => m.run),
  },
  {
    usage: "git [remote]",
    describe: "Open the web page of the git repository of a remote (default origin)",
    positionals: { remote: { type: "string", default: "origin", describe: "The git remote" } },
    flags: {
      workingDir: { type: "string", alias: "d", describe: "Directory of the git repository" },
      print: { type: "boolean", describe: "Print the URL instead of opening it" },
    },
    load: () => import("./dev/git.ts").then((m) => m.run),
  },
  {
    usage: "gitops [gitUrl]",
    describe: "Register the git repository as the gitops repository of a namespace",
    positionals: { gitUrl: { type: "string", describe: "The gitops repository URL" } },
    flags: gitSecretFlags,
    load: () => import("./dev/git_secret.ts").then((m) => m.runGitops),
  },
  {
    usage: "sync [namespace]",
    aliases: ["project", "namespace"],
    describe: "Create a namespace (if it does not exist) and prepare it with the configuration",
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
      verbose,
      throttle: { type: "boolean", describe: "Throttle requests to the Kubernetes API" },
      ...KUBE_FLAGS,
    },
    load: () => import("./dev/sync.ts").then((m) => m.run),
  },
  {
    usage: "pull-secret [namespace]",
    describe: "Copy pull secrets into the namespace from the template namespace",
    positionals: { namespace: { type: "string", describe: "The target namespace" } },
    flags: {
      templateNamespace: templateNamespace("default"),
      serviceAccount,
      dev: { type: "boolean", describe: "Mark the namespace as a development namespace" },
      verbose,
      ...KUBE_FLAGS,
    },
    load: () => import("./dev/pull_secret.ts").then((m) => m.run),
  },
  {
    usage: "pipeline [gitUrl]",
    describe: "Register a pipeline (Tekton or Jenkins) for the current code repository",
    positionals: { gitUrl: { type: "string", describe: "The git repository URL" } },
    flags: {
      templateNamespace: {
        type: "string",
        alias: "t",
        describe: "The namespace of Jenkins or the template Tekton pipelines",
      },
      pipelineNamespace: { type: "string", alias: "n", describe: "Where to deploy the pipeline" },
      skipWebhook: { type: "boolean", describe: "Do not create the git webhook" },
      username: { type: "string", alias: "u", describe: "Username for the git repository" },
      password: { type: "string", alias: "P", describe: "Password or token for the git repo" },
      values: { type: "string", describe: "File with additional values for the secret" },
      replaceGitSecret: { type: "boolean", alias: "g", describe: "Recreate the git secret" },
      tekton: { type: "boolean", describe: "Register a Tekton pipeline" },
      jenkins: { type: "boolean", describe: "Register a Jenkins pipeline" },
      pipeline: { type: "string", describe: "The name of the Tekton pipeline to use" },
      generateCrumb: {
        type: "boolean",
        alias: "c",
        default: true,
        describe: "Use a Jenkins crumb",
      },
      param: { type: "array", alias: "p", default: [], describe: "Pipeline parameters key=value" },
      throttle: { type: "boolean", describe: "Throttle requests to the Kubernetes API" },
      ...quietDebug,
      ...KUBE_FLAGS,
    },
    load: notBuilt("pipeline"),
  },
  {
    usage: "tool-config [name]",
    describe: "Create the config map and secret for a tool configured in the environment",
    positionals: { name: { type: "string", describe: "The tool's name" } },
    flags: {
      namespace: { type: "string", alias: "n", default: "tools", describe: "The namespace" },
      url: { type: "string", describe: "The url of the tool" },
      username: { type: "string", describe: "The name of the user for the tool" },
      password: { type: "string", describe: "The password for the user for the tool" },
      ...KUBE_FLAGS,
    },
    load: () => import("./dev/tool_config.ts").then((m) => m.run),
  },
  {
    usage: "vlan",
    describe: "Print out the vlan values",
    flags: {
      datacenter: { type: "string", alias: "d", describe: "The datacenter to use" },
      provider: {
        type: "string",
        alias: "p",
        default: "classic",
        describe: "The provider: classic or vpc",
      },
      output: { type: "string", alias: "o", describe: "File where the output is written" },
      debug: { type: "boolean", describe: "Output additional information" },
    },
    load: notBuilt("vlan"),
  },
  {
    usage: "yq <command>",
    describe: "Lightweight YAML processor",
    subcommands: [
      {
        usage: "w <file> <path> <value>",
        describe: "Write a value at a path in a YAML file",
        positionals: {
          file: { type: "string", describe: "The YAML file" },
          path: { type: "string", describe: "The dotted path" },
          value: { type: "string", describe: "The value" },
        },
        flags: { inplace: { type: "boolean", alias: "i", describe: "Edit the file in place" } },
        load: notBuilt("yq w"),
      },
    ],
  },
  imageSecurity,
];
