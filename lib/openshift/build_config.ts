/**
 * OpenShift's Jenkins pipeline builds (`build.openshift.io/v1`): the BuildConfig of a repository
 * and branch with the `JenkinsPipeline` strategy (the Jenkinsfile of the branch, with
 * `CLOUD_NAME=openshift`, `NAMESPACE` and `BRANCH`), a webhook trigger of the git host's own type
 * (`GitHub`, `GitLab`, `Bitbucket`, else `Generic`) whose secret is in a Secret (key
 * `WebHookSecretKey`; igc wrote the constant `secret101` and always a GitHub trigger), the URL a git
 * host calls to start a build, and starting one (`buildconfigs/<name>/instantiate`).
 *
 * @module
 */
import type { KubeClient, KubeObject, ResourceType } from "../kube/mod.ts";
import type { GitFlavour } from "../githost/mod.ts";

/** BuildConfigs. */
export const BUILD_CONFIGS: ResourceType = {
  group: "build.openshift.io",
  version: "v1",
  plural: "buildconfigs",
  kind: "BuildConfig",
  namespaced: true,
};

/** The key of a BuildConfig webhook secret in its Secret. */
export const WEBHOOK_SECRET_KEY_OPENSHIFT = "WebHookSecretKey";

/** The webhook trigger types of a BuildConfig. */
export type BuildTriggerType = "GitHub" | "GitLab" | "Bitbucket" | "Generic";

/** The BuildConfig trigger type for a git host. */
export function buildTriggerType(flavour: GitFlavour): BuildTriggerType {
  switch (flavour) {
    case "github":
    case "ghe":
      return "GitHub";
    case "gitlab":
      return "GitLab";
    case "bitbucket":
      return "Bitbucket";
    default:
      return "Generic";
  }
}

/** What a Jenkins pipeline BuildConfig is made of. */
export interface BuildConfigInput {
  readonly name: string;
  readonly namespace: string;
  readonly gitUrl: string;
  readonly branch: string;
  readonly flavour: GitFlavour;
  /** The Secret with the webhook secret (key `WebHookSecretKey`). */
  readonly webhookSecretName: string;
  /** The Secret with the git credentials. */
  readonly sourceSecretName?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

/** The BuildConfig. */
export function jenkinsBuildConfig(input: BuildConfigInput): KubeObject {
  const type = buildTriggerType(input.flavour);
  const field = type.toLowerCase();
  return {
    apiVersion: "build.openshift.io/v1",
    kind: "BuildConfig",
    metadata: { name: input.name, namespace: input.namespace, labels: { ...input.labels } },
    spec: {
      triggers: [{ type, [field]: { secretReference: { name: input.webhookSecretName } } }],
      source: {
        type: "Git",
        git: { uri: input.gitUrl, ref: input.branch },
        ...(input.sourceSecretName ? { sourceSecret: { name: input.sourceSecretName } } : {}),
      },
      strategy: {
        type: "JenkinsPipeline",
        jenkinsPipelineStrategy: {
          jenkinsfilePath: "Jenkinsfile",
          env: [
            { name: "CLOUD_NAME", value: "openshift" },
            { name: "NAMESPACE", value: input.namespace },
            { name: "BRANCH", value: input.branch },
          ],
        },
      },
    },
  };
}

/** The URL a git host calls to start a build of BuildConfig `namespace/name`. */
export function buildWebhookUrl(
  server: string,
  namespace: string,
  name: string,
  secret: string,
  type: BuildTriggerType,
): string {
  return `${server.replace(/\/+$/, "")}/apis/build.openshift.io/v1/namespaces/${
    encodeURIComponent(namespace)
  }/buildconfigs/${encodeURIComponent(name)}/webhooks/${
    encodeURIComponent(secret)
  }/${type.toLowerCase()}`;
}

/** Starts a build of BuildConfig `namespace/name`; returns the Build's name. */
export async function instantiateBuild(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<string> {
  const build = await client.request<KubeObject>(
    "POST",
    `/apis/build.openshift.io/v1/namespaces/${encodeURIComponent(namespace)}/buildconfigs/${
      encodeURIComponent(name)
    }/instantiate`,
    {
      body: { kind: "BuildRequest", apiVersion: "build.openshift.io/v1", metadata: { name } },
      action: `start a build of BuildConfig "${namespace}/${name}"`,
    },
  );
  return build?.metadata?.name ?? name;
}
