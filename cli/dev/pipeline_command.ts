/**
 * `toolkit pipeline` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `pipeline.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import {
  GIT_HOST_FLAGS,
  GIT_TOKEN_FILE,
  KUBE_FLAGS,
  NAMESPACE,
  namespaceAlsoSpelled,
  THROTTLE_FLAG,
} from "../flags.ts";

/** `pipeline`: igc's flags, and what users expect beyond them. */
export const PIPELINE = defineCommand({
  usage: "pipeline [gitUrl]",
  describe: "Register a pipeline (Tekton or Jenkins) for the current code repository",
  examples: [
    [
      "pipeline https://github.com/org/app#main --tekton -n dev",
      "Run the matching template pipeline of `tools` on every push to main",
    ],
    [
      "pipeline https://github.com/org/app#main --tekton -n dev -u alice --git-token-file ~/.git-token",
      "The same, with the git token read from a file (or $TOOLKIT_GIT_TOKEN, or -P - from stdin)",
    ],
    ["pipeline --tekton -n dev --dry-run -o yaml", "Print what would be created"],
    [
      "pipeline --tekton -n dev --sign-after build",
      "Sign the image of task build (when several tasks report one)",
    ],
  ],
  positionals: {
    gitUrl: {
      type: "string",
      describe:
        "The repository, with #branch to choose the branch (default: the origin remote and checked-out branch of the current directory)",
    },
  },
  flags: {
    pipelineNamespace: {
      ...namespaceAlsoSpelled(NAMESPACE.current, "namespace"),
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
    password: {
      type: "string",
      alias: "P",
      describe:
        "The git password or personal access token; - reads it from stdin (asked without echo on a terminal). As a value it shows in ps and shell history: prefer --git-token-file",
    },
    ...GIT_TOKEN_FILE,
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
    sign: {
      type: "boolean",
      undecided: true,
      describe:
        "Tekton: sign the images the pipeline builds with the key of setup-signing (default: when Secret image-signing is in the namespace or -t; --no-sign: do not)",
    },
    "sign-after": {
      type: "string",
      describe:
        "Tekton: the task whose image is signed, when several report one (IMAGE_URL and IMAGE_DIGEST results)",
    },
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
      describe: "Start a first PipelineRun, at the branch's head commit (--no-start: do not)",
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
