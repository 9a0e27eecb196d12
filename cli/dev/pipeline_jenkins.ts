/**
 * `toolkit pipeline --jenkins` on Kubernetes: a Jenkins job for a branch of a repository, built by
 * the Jenkins whose URL and API token are in Secret `jenkins-access` (keys `url`, `username`,
 * `api_token`) of the template namespace.
 *
 * 1. The git credentials and the repository's ConfigMap are stored in the pipeline namespace and
 *    in the template namespace (where Jenkins reads its credentials), as igc did.
 * 2. With a crumb (`-c/--generateCrumb`, default true), the folder named after the namespace is
 *    created when missing and awaited until Jenkins serves it.
 * 3. The job, named after the repository, is created from its `config.xml`
 *    (`lib/jenkins/job_config.ts`); when it exists with another configuration it is replaced after
 *    a confirmation on a terminal or with `--replace`, and is otherwise a usage error (igc exited
 *    0 when the answer was no); the same configuration is left alone.
 * 4. The first build is queued (unless `--no-start`) with `NAMESPACE` and `BRANCH`.
 * 5. The push webhook is registered on the git host (unless `--skipWebhook`) at the endpoint of the
 *    Jenkins plugin for that host, with the webhook secret kept in Secret `<job>-jenkins-webhook`.
 *
 * On OpenShift, a BuildConfig instead (`pipeline_jenkins_openshift.ts`).
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { clientTimeoutMs, observedContextFetch } from "../network.ts";
import { ToolkitError } from "../../lib/errors.ts";
import { decodeBase64Text } from "../../lib/base64.ts";
import { applyObject, type KubeObject, SECRETS } from "../../lib/kube/mod.ts";
import {
  JenkinsClient,
  jenkinsHookUrl,
  type JenkinsJobRef,
  jobPath,
  pipelineJobXml,
  sameJobConfig,
} from "../../lib/jenkins/mod.ts";
import { pipelineNameFor } from "../../lib/tekton/mod.ts";
import type { Logger } from "./common.ts";
import { gitSecret, readStoredCredentials, writeRepository } from "./git_repository.ts";
import {
  confirmReplace,
  finishRegistration,
  type PipelineOptions,
  type PipelineReport,
  type PipelineSetup,
  WEBHOOK_SECRET_KEY,
  webhookSecretValue,
} from "./pipeline_common.ts";

/** The Secret of the template namespace that says how to reach Jenkins. */
export const JENKINS_ACCESS_SECRET = "jenkins-access";

/** `jenkins-access` is missing or incomplete. */
export class JenkinsAccessError extends ToolkitError {
  /** Creates the error. */
  constructor(namespace: string, detail: string) {
    super(
      `Cannot reach Jenkins: Secret "${namespace}/${JENKINS_ACCESS_SECRET}" ${detail} (keys url, username and api_token)`,
    );
    this.name = "JenkinsAccessError";
  }
}

async function jenkinsAccess(
  setup: PipelineSetup,
): Promise<{ url: string; username: string; apiToken: string }> {
  const secret = await setup.client.read(SECRETS, setup.templateNamespace, JENKINS_ACCESS_SECRET);
  if (!secret) throw new JenkinsAccessError(setup.templateNamespace, "does not exist");
  const data = (secret.data ?? {}) as Record<string, string>;
  const value = (key: string) => {
    try {
      return data[key] ? decodeBase64Text(data[key]).trim() : "";
    } catch {
      return "";
    }
  };
  const url = value("url");
  const username = value("username");
  const apiToken = value("api_token");
  const missing = [["url", url], ["username", username], ["api_token", apiToken]]
    .filter(([, v]) => !v).map(([k]) => k);
  if (missing.length > 0) {
    throw new JenkinsAccessError(setup.templateNamespace, `has no ${missing.join(", ")}`);
  }
  if (!URL.canParse(url)) throw new JenkinsAccessError(setup.templateNamespace, "has a bad url");
  return { url, username, apiToken };
}

/** Runs `pipeline --jenkins` with the front part done. */
export async function runJenkins(
  options: PipelineOptions,
  ctx: CommandContext,
  setup: PipelineSetup,
  log: Logger,
): Promise<number> {
  const { io } = ctx;
  const { client, git, branch, namespace, templateNamespace, host } = setup;
  const openshift = await client.isOpenShift();
  const name = pipelineNameFor(git.repo);
  const job: JenkinsJobRef = { folder: namespace, name };
  const report: PipelineReport = {
    namespace,
    repository: git.url,
    branch,
    gitHost: host.flavour,
    pipeline: `${namespace}/${name}`,
    results: [],
    problems: [],
  };
  const record = (...results: typeof report.results) => {
    for (const r of results) log.result(r);
    report.results.push(...results);
  };

  if (options.dryRun && openshift) {
    const { runOpenShiftJenkins } = await import("./pipeline_jenkins_openshift.ts");
    return await runOpenShiftJenkins(options, ctx, setup, report, log);
  }
  if (options.dryRun) {
    const { value } = await webhookSecretValue(client, namespace, `${name}-jenkins-webhook`);
    io.stdout.write(
      pipelineJobXml({ gitUrl: git.url, branch, namespace, flavour: host.flavour, secret: value }),
    );
    return 0;
  }

  // Jenkins reads its credentials in its own namespace: the repository goes into both.
  const { username, password } = setup.credentials;
  for (const ns of new Set([namespace, templateNamespace])) {
    const stored = ns === namespace ? setup.stored : await readStoredCredentials(client, ns);
    const changed = options.replaceGitSecret || !stored.object ||
      stored.username !== username || stored.password !== password;
    record(
      ...await writeRepository(client, {
        namespace: ns,
        git,
        branch,
        secret: changed ? gitSecret(ns, git, username, password, setup.values) : undefined,
        stored: stored.object,
      }),
    );
  }
  if (openshift) {
    const { runOpenShiftJenkins } = await import("./pipeline_jenkins_openshift.ts");
    return await runOpenShiftJenkins(options, ctx, setup, report, log);
  }
  const access = await jenkinsAccess(setup);
  const jenkins = new JenkinsClient({
    url: access.url,
    username: access.username,
    apiToken: access.apiToken,
    crumb: options.generateCrumb,
    timeoutMs: clientTimeoutMs(options),
    fetch: observedContextFetch(ctx, options),
  });
  const webhookSecretName = `${name}-jenkins-webhook`;
  const { value: secret, fresh } = await webhookSecretValue(client, namespace, webhookSecretName);
  const secretObject: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: webhookSecretName, namespace, labels: { app: name } },
    type: "Opaque",
    stringData: { [WEBHOOK_SECRET_KEY]: secret },
  };
  record(await applyObject(client, SECRETS, secretObject));

  const folder = await jenkins.ensureFolder(namespace, ctx.clock);
  log.info(`Jenkins folder ${namespace} ${folder}`);
  const xml = pipelineJobXml({ gitUrl: git.url, branch, namespace, flavour: host.flavour, secret });
  const existing = await jenkins.jobConfig(job);
  let jobOutcome: "created" | "replaced" | "unchanged";
  if (existing === undefined) {
    await jenkins.createJob(job, xml);
    jobOutcome = "created";
  } else if (sameJobConfig(existing, xml)) {
    jobOutcome = "unchanged";
  } else {
    await confirmReplace(
      ctx,
      options,
      `The build pipeline (${name}) already exists. Do you want to replace it?`,
      `The Jenkins job "${namespace}/${name}" exists with another configuration: pass --replace to replace it`,
    );
    await jenkins.deleteJob(job);
    await jenkins.createJob(job, xml);
    jobOutcome = "replaced";
  }
  log.info(`Jenkins job ${namespace}/${name} ${jobOutcome}`);
  if (options.start) {
    report.build = await jenkins.build(job, { NAMESPACE: namespace, BRANCH: branch }) ?? "queued";
    log.info(`Build queued: ${report.build}`);
  }
  const url = jenkinsHookUrl(host.flavour, jenkins.url, job, secret);
  return await finishRegistration(ctx, options, host, report, log, {
    url,
    shownUrl: url.replace(/token=[^&]*/, "token=<secret>"),
    secret,
    secretChanged: fresh,
  }, {
    data: { job: jobOutcome, folder },
    lastLines: ["", `Jenkins job: ${jenkins.url}/${jobPath(job)}`],
  });
}
