/**
 * `toolkit git-secret` and `toolkit gitops` as `--help` and completion know it: usage, help text
 * and flags. Its implementation, `git_secret.ts`, is imported only when the command runs
 * (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import type { FlagSpec } from "../options.ts";
import { GIT_TOKEN_FILE, KUBE_FLAGS, NAMESPACE, RESULT_OUTPUT } from "../flags.ts";

/** The flags of `git-secret` and `gitops` (each has its own positional and `-n` help). */
const GIT_SECRET_FLAGS = {
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
  gitPat: {
    type: "string",
    alias: "p",
    describe:
      "Git personal access token; - reads it from stdin (asked without echo on a terminal). As a value it shows in ps and shell history: prefer --git-token-file",
  },
  ...GIT_TOKEN_FILE,
  replace: { type: "boolean", describe: "Replace the secret if it already exists" },
  ...RESULT_OUTPUT,
  ...KUBE_FLAGS,
} as const satisfies Record<string, FlagSpec>;

/** `git-secret`. */
export const GIT_SECRET = defineCommand({
  usage: "git-secret [name]",
  describe:
    "Store the credentials of a git repo in the Secret git-credentials and its url, org, repo and branch in a ConfigMap",
  positionals: {
    name: {
      type: "string",
      describe: "The ConfigMap's name (default: <org>-<repo> of the repository, lower case)",
    },
  },
  flags: {
    namespace: {
      ...NAMESPACE.current,
      describe:
        "The namespace of the Secret git-credentials and the ConfigMap (default: the context's)",
    },
    ...GIT_SECRET_FLAGS,
  },
});

/** `gitops`. */
export const GITOPS = defineCommand({
  usage: "gitops [gitUrl]",
  describe:
    "Register the git repository as the gitops repository of a namespace (ConfigMap gitops-repo, Secret git-credentials)",
  positionals: {
    gitUrl: {
      type: "string",
      describe:
        "The gitops repository URL, #branch for its branch (default: the origin remote of the current directory)",
    },
  },
  flags: {
    namespace: {
      ...NAMESPACE.current,
      describe:
        "The namespace whose gitops repository it is: where the ConfigMap gitops-repo and the Secret git-credentials go (default: the context's)",
    },
    ...GIT_SECRET_FLAGS,
  },
});
