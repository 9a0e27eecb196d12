/**
 * `toolkit pipeline --jenkins` on OpenShift: a Jenkins pipeline BuildConfig built by the
 * namespace's Jenkins.
 *
 * 1. The git credentials and the repository's ConfigMap are in the pipeline and template
 *    namespaces (done by the caller).
 * 2. Jenkins: when the namespace runs none (no Deployment or DeploymentConfig `jenkins`), the
 *    `jenkins-ephemeral` template of namespace `openshift` is processed and its objects applied;
 *    the `jenkins` ServiceAccount gets `edit` in the namespace and the `privileged` SCC (the image
 *    build runs as root). Every failure is reported (igc ignored them).
 * 3. The BuildConfig (`build.openshift.io/v1`, `lib/openshift/build_config.ts`), applied from
 *    memory (igc wrote `pipeline-build-config.yaml` into the user's repository), with a random
 *    webhook secret kept in Secret `<name>-webhook`; a BuildConfig that exists with another spec is
 *    replaced after a confirmation on a terminal or with `--replace`.
 * 4. The first build (`buildconfigs/<name>/instantiate`, unless `--no-start`), then the webhook
 *    `<api server>/apis/build.openshift.io/v1/namespaces/<ns>/buildconfigs/<name>/webhooks/<secret>/<type>`
 *    on the git host (unless `--skipWebhook`).
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { formatData } from "../output.ts";
import { ToolkitError } from "../../lib/errors.ts";
import {
  applyObject,
  type ApplyResult,
  containsFields,
  DEPLOYMENTS,
  ROLE_BINDINGS,
  SECRETS,
} from "../../lib/kube/mod.ts";
import {
  BUILD_CONFIGS,
  buildTriggerType,
  buildWebhookUrl,
  grantScc,
  instantiateBuild,
  jenkinsBuildConfig,
  processTemplate,
  TEMPLATES,
  WEBHOOK_SECRET_KEY_OPENSHIFT,
} from "../../lib/openshift/mod.ts";
import { pipelineNameFor } from "../../lib/tekton/mod.ts";
import { newWebhookSecret } from "../../lib/githost/mod.ts";
import { decodeBase64Text } from "../../lib/base64.ts";
import type { Logger } from "./common.ts";
import {
  confirmReplace,
  finishRegistration,
  type PipelineOptions,
  type PipelineReport,
  type PipelineSetup,
} from "./pipeline_common.ts";

/** The template OpenShift installs Jenkins from. */
export const JENKINS_TEMPLATE = { namespace: "openshift", name: "jenkins-ephemeral" } as const;

/** Jenkins could not be set up in the namespace. */
export class JenkinsSetupError extends ToolkitError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "JenkinsSetupError";
  }
}

const DEPLOYMENT_CONFIGS = {
  group: "apps.openshift.io",
  version: "v1",
  plural: "deploymentconfigs",
  kind: "DeploymentConfig",
  namespaced: true,
};

async function hasJenkins(setup: PipelineSetup): Promise<boolean> {
  const { client, namespace } = setup;
  if (await client.read(DEPLOYMENTS, namespace, "jenkins")) return true;
  if (await client.serves(DEPLOYMENT_CONFIGS)) {
    return Boolean(await client.read(DEPLOYMENT_CONFIGS, namespace, "jenkins"));
  }
  return false;
}

/** Installs Jenkins from the `jenkins-ephemeral` template, object by object. */
async function installJenkins(
  setup: PipelineSetup,
  record: (r: ApplyResult) => void,
  log: Logger,
): Promise<void> {
  const { client, namespace } = setup;
  const template = await client.read(TEMPLATES, JENKINS_TEMPLATE.namespace, JENKINS_TEMPLATE.name);
  if (!template) {
    throw new JenkinsSetupError(
      `The namespace has no Jenkins and there is no template ${JENKINS_TEMPLATE.namespace}/${JENKINS_TEMPLATE.name} to install one from: install Jenkins in "${namespace}"`,
    );
  }
  log.info(`Installing Jenkins in ${namespace} from template ${JENKINS_TEMPLATE.name}`);
  for (const object of processTemplate(template)) {
    const type = await client.discovery.resourceTypeOf(object.apiVersion ?? "", object.kind ?? "");
    if (!type) {
      throw new JenkinsSetupError(
        `Cannot install Jenkins: the cluster does not serve ${object.kind} (${object.apiVersion})`,
      );
    }
    const placed = type.namespaced
      ? { ...object, metadata: { ...object.metadata, namespace } }
      : object;
    record(await applyObject(client, type, placed));
  }
}

async function webhookSecret(setup: PipelineSetup, name: string) {
  const existing = await setup.client.read(SECRETS, setup.namespace, name);
  const data = (existing?.data ?? {}) as Record<string, string>;
  const stored = data[WEBHOOK_SECRET_KEY_OPENSHIFT];
  const value = stored ? decodeBase64Text(stored) : newWebhookSecret();
  return { value, fresh: !stored };
}

/** Runs `pipeline --jenkins` on OpenShift with the front part done. */
export async function runOpenShiftJenkins(
  options: PipelineOptions,
  ctx: CommandContext,
  setup: PipelineSetup,
  report: PipelineReport,
  log: Logger,
): Promise<number> {
  const { io } = ctx;
  const { client, git, branch, namespace, host } = setup;
  const record = (...results: typeof report.results) => {
    for (const r of results) log.result(r);
    report.results.push(...results);
  };
  const name = pipelineNameFor(git.repo);
  report.pipeline = `${namespace}/${name}`;

  const secretName = `${name}-webhook`;
  const { value: secret, fresh } = await webhookSecret(setup, secretName);
  const wanted = jenkinsBuildConfig({
    name,
    namespace,
    gitUrl: git.url,
    branch,
    flavour: host.flavour,
    webhookSecretName: secretName,
    sourceSecretName: "git-credentials",
    labels: { app: name },
  });
  if (options.dryRun) {
    io.stdout.write(formatData(wanted, options.output ?? "yaml"));
    return 0;
  }
  if (!await hasJenkins(setup)) await installJenkins(setup, record, log);
  record(
    await applyObject(client, ROLE_BINDINGS, {
      metadata: { name: "toolkit-jenkins-edit", namespace, labels: { app: "jenkins" } },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "edit" },
      subjects: [{ kind: "ServiceAccount", name: "jenkins", namespace }],
    }),
  );
  const scc = await grantScc(client, "privileged", namespace, "jenkins");
  if (scc) {
    record(scc);
  } else {
    report.problems.push('There is no SecurityContextConstraints "privileged" to grant to jenkins');
  }

  record(
    await applyObject(client, SECRETS, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: secretName, namespace, labels: { app: name } },
      type: "Opaque",
      stringData: { [WEBHOOK_SECRET_KEY_OPENSHIFT]: secret },
    }),
  );
  const live = await client.read(BUILD_CONFIGS, namespace, name);
  if (live && !containsFields(live.spec, wanted.spec)) {
    await confirmReplace(
      ctx,
      options,
      `The build pipeline (${name}) already exists. Do you want to update it?`,
      `BuildConfig "${namespace}/${name}" exists with another spec: pass --replace to replace it`,
    );
    await client.delete(BUILD_CONFIGS, namespace, name);
    record(await applyObject(client, BUILD_CONFIGS, wanted, { existing: null }));
  } else {
    record(await applyObject(client, BUILD_CONFIGS, wanted));
  }
  if (options.start) {
    report.build = await instantiateBuild(client, namespace, name);
    log.info(`Build started: ${report.build}`);
  }
  const type = buildTriggerType(host.flavour);
  const url = buildWebhookUrl(client.context.cluster.server, namespace, name, secret, type);
  return await finishRegistration(ctx, options, host, report, log, {
    url,
    shownUrl: url.replace(`/webhooks/${encodeURIComponent(secret)}/`, "/webhooks/<secret>/"),
    secret,
    secretChanged: fresh,
  });
}
