/**
 * The Jenkins job `toolkit pipeline --jenkins` creates: a Pipeline job (`flow-definition`) whose
 * Jenkinsfile comes from the repository's branch (GitSCM with the `git-credentials` credentials),
 * with the `NAMESPACE` and `BRANCH` string parameters, five builds kept, and the push trigger of the
 * Jenkins plugin that handles the git host's webhook:
 *
 * - GitHub, GitHub Enterprise: the GitHub plugin's `GitHubPushTrigger`;
 * - GitLab: the GitLab plugin's `GitLabPushTrigger` for pushes to the branch, with the hook's
 *   secret as its `secretToken` (the plugin refuses deliveries without it);
 * - Bitbucket Cloud: the Bitbucket plugin's `BitBucketTrigger`;
 * - Gitea: an `SCMTrigger` without schedule (the Gitea plugin's webhook makes such jobs poll);
 * - Gogs: the Generic Webhook Trigger plugin's `GenericTrigger` with the secret as its token and a
 *   filter on `refs/heads/<branch>`.
 *
 * The XML is written and read with fast-xml-parser, so every value is escaped.
 *
 * @module
 */
import { XMLBuilder, XMLParser } from "fast-xml-parser";
import type { GitFlavour } from "../githost/mod.ts";

/** What the job is made of. */
export interface JobConfigInput {
  /** The repository to clone. */
  readonly gitUrl: string;
  /** The branch to build. */
  readonly branch: string;
  /** The namespace the pipeline deploys to (`NAMESPACE`). */
  readonly namespace: string;
  /** The git host's flavour: which push trigger. */
  readonly flavour: GitFlavour;
  /** The webhook secret, for the triggers that check one (GitLab, Gogs). */
  readonly secret: string;
  /** Jenkins' credentials id of the git credentials. */
  readonly credentialsId?: string;
  /** The Jenkinsfile's path. */
  readonly jenkinsfile?: string;
}

function stringParameter(name: string, value: string) {
  return { name, defaultValue: value, trim: "true" };
}

function pushTrigger(input: JobConfigInput): Record<string, unknown> {
  switch (input.flavour) {
    case "github":
    case "ghe":
      return { "com.cloudbees.jenkins.GitHubPushTrigger": { "@_plugin": "github", spec: "" } };
    case "gitlab":
      return {
        "com.dabsquared.gitlabjenkins.GitLabPushTrigger": {
          "@_plugin": "gitlab-plugin",
          spec: "",
          triggerOnPush: "true",
          triggerOnMergeRequest: "false",
          triggerOnNoteRequest: "false",
          branchFilterType: "NameBasedFilter",
          includeBranchesSpec: input.branch,
          excludeBranchesSpec: "",
          secretToken: input.secret,
        },
      };
    case "bitbucket":
      return {
        "com.cloudbees.jenkins.plugins.BitBucketTrigger": { "@_plugin": "bitbucket", spec: "" },
      };
    case "gitea":
      return { "hudson.triggers.SCMTrigger": { spec: "", ignorePostCommitHooks: "false" } };
    case "gogs":
      return {
        "org.jenkinsci.plugins.gwt.GenericTrigger": {
          "@_plugin": "generic-webhook-trigger",
          spec: "",
          genericVariables: {
            "org.jenkinsci.plugins.gwt.GenericVariable": {
              expressionType: "JSONPath",
              key: "ref",
              value: "$.ref",
              regexpFilter: "",
              defaultValue: "",
            },
          },
          regexpFilterText: "$ref",
          regexpFilterExpression: `^refs/heads/${
            input.branch.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
          }$`,
          token: input.secret,
          printContributedVariables: "false",
          printPostContent: "false",
          silentResponse: "false",
        },
      };
  }
}

/** The job's `config.xml`. */
export function pipelineJobXml(input: JobConfigInput): string {
  const document = {
    "?xml": { "@_version": "1.1", "@_encoding": "UTF-8" },
    "flow-definition": {
      "@_plugin": "workflow-job",
      description: `Builds ${input.gitUrl} (${input.branch}); made by toolkit pipeline`,
      keepDependencies: "false",
      properties: {
        "jenkins.model.BuildDiscarderProperty": {
          strategy: {
            "@_class": "hudson.tasks.LogRotator",
            daysToKeep: "-1",
            numToKeep: "5",
            artifactDaysToKeep: "-1",
            artifactNumToKeep: "-1",
          },
        },
        "hudson.model.ParametersDefinitionProperty": {
          parameterDefinitions: {
            "hudson.model.StringParameterDefinition": [
              stringParameter("NAMESPACE", input.namespace),
              stringParameter("BRANCH", input.branch),
            ],
          },
        },
        "org.jenkinsci.plugins.workflow.job.properties.PipelineTriggersJobProperty": {
          triggers: pushTrigger(input),
        },
      },
      definition: {
        "@_class": "org.jenkinsci.plugins.workflow.cps.CpsScmFlowDefinition",
        "@_plugin": "workflow-cps",
        scm: {
          "@_class": "hudson.plugins.git.GitSCM",
          "@_plugin": "git",
          configVersion: "2",
          userRemoteConfigs: {
            "hudson.plugins.git.UserRemoteConfig": {
              url: input.gitUrl,
              credentialsId: input.credentialsId ?? "git-credentials",
            },
          },
          branches: { "hudson.plugins.git.BranchSpec": { name: `*/${input.branch}` } },
          doGenerateSubmoduleConfigurations: "false",
          extensions: "",
        },
        scriptPath: input.jenkinsfile ?? "Jenkinsfile",
        lightweight: "true",
      },
      disabled: "false",
    },
  };
  return new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: "@_",
    format: true,
    indentBy: "  ",
    suppressEmptyNode: false,
  }).build(document);
}

/** A job's `config.xml` as data (attributes as `@_name`), to compare or check. */
export function parseJobXml(xml: string): Record<string, unknown> {
  return new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "@_",
    parseTagValue: false,
    trimValues: true,
  }).parse(xml) as Record<string, unknown>;
}

/** Whether two job configurations say the same (whitespace and formatting aside). */
export function sameJobConfig(a: string, b: string): boolean {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).sort(([x], [y]) => x.localeCompare(y))
          .map(([k, v]) => [k, canonical(v)]),
      );
    }
    return value;
  };
  try {
    return JSON.stringify(canonical(parseJobXml(a))) === JSON.stringify(canonical(parseJobXml(b)));
  } catch {
    return false;
  }
}
