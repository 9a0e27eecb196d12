/**
 * `toolkit create-webhook` as `--help` and completion know it: usage, help text and flags. Its
 * implementation, `create_webhook.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { GIT_HOST_FLAGS, GIT_TOKEN_FILE } from "../flags.ts";

/** `create-webhook`: igc's flags (and environment variables), and what users expect beyond. */
export const CREATE_WEBHOOK = defineCommand({
  usage: "create-webhook",
  describe: "Create a git webhook for a given Jenkins pipeline (or any listener)",
  examples: [
    [
      "create-webhook --gitUrl https://github.com/org/app --git-token-file ~/.git-token --jenkinsUrl https://jenkins.example.com",
      "GitHub calls Jenkins' GitHub plugin on every push",
    ],
    [
      "create-webhook --gitUrl https://gitlab.com/org/app --jobName dev/app --jenkinsUrl https://jenkins.example.com",
      "GitLab calls the job's own endpoint",
    ],
  ],
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
      describe:
        "The personal access token for git; - reads it from stdin. As a value it shows in ps and shell history: prefer --git-token-file, or $TOOLKIT_GIT_TOKEN (igc's $API_TOKEN works too)",
    },
    ...GIT_TOKEN_FILE,
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
      describe:
        "The webhook secret (default: a new random one for a new hook); - reads it from stdin. As a value it shows in ps and shell history: prefer --secret-file or $WEBHOOK_SECRET",
    },
    "secret-file": {
      type: "string",
      describe: "File holding the webhook secret (one line); $WEBHOOK_SECRET may hold it instead",
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
