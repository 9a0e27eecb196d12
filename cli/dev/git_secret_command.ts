/**
 * `toolkit git-secret` and `toolkit gitops` as `--help` and completion know it: usage, help text
 * and flags. Its implementation, `git_secret.ts`, is imported only when the command runs
 * (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import type { FlagSpec } from "../options.ts";
import { KUBE_FLAGS, RESULT_OUTPUT } from "../flags.ts";

/** The flags of `git-secret` and `gitops` (each has its own positional). */
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
export const GIT_SECRET = defineCommand({
  usage: "git-secret [name]",
  describe: "Create a secret with the url, username and access token of a git repo",
  positionals: {
    name: { type: "string", describe: "The ConfigMap name (default: <org>.<repo>)" },
  },
  flags: GIT_SECRET_FLAGS,
});

/** `gitops`. */
export const GITOPS = defineCommand({
  usage: "gitops [gitUrl]",
  describe: "Register the git repository as the gitops repository of a namespace",
  positionals: { gitUrl: { type: "string", describe: "The gitops repository URL" } },
  flags: GIT_SECRET_FLAGS,
});
