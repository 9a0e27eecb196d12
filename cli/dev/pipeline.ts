/**
 * `toolkit pipeline [gitUrl] --tekton`: connects a branch of a git repository to a Tekton
 * pipeline, starts the first run and registers the webhook so that every push starts another.
 *
 * 1. The repository and branch come from `gitUrl` (`url#branch`, else the host's default
 *    branch) or from the local clone (its `origin` remote and checked-out branch).
 * 2. The git credentials (`-u`/`-P`, the URL, the namespace's `git-credentials` Secret, a
 *    prompt; `-g` asks again) are stored as `git-secret` stores them, with the repository's
 *    ConfigMap; flags always win over what is stored.
 * 3. The git host's flavour is detected (or `--git-host-type`); the runtime is read from the
 *    local files or the host's tree of the branch; the template pipelines of `-t` (at the newest
 *    Tekton version the cluster serves) are narrowed to the runtime, one is chosen and its
 *    parameters answered (`-p name=value`, a prompt on a terminal, the defaults).
 * 4. The Tasks the pipeline uses and the pipeline itself (named after the repository) are
 *    copied into the namespace, the pipeline signing what it builds when signing is set up
 *    (`pipeline_signing.ts`: the signing Task after the task reporting the image); the EventListener's ServiceAccount and RBAC are made where they
 *    are missing; the TriggerTemplate, TriggerBinding and webhook Secret of this repository and
 *    branch are written and its trigger put into the EventListener `tekton`; the listener is
 *    exposed by a Route (OpenShift) or an Ingress (`--ingress-host`), and awaited.
 * 5. The first PipelineRun starts (unless `--no-start`) at the branch's head commit, read from
 *    the host just before (its `git-revision`, as a push's run gets the pushed commit), then the
 *    webhook is created or updated on the host (unless `--skipWebhook`). What cannot be done is
 *    reported (a branch whose head cannot be read: no run), everything else stays, and the
 *    command exits 1; a webhook that cannot be made is explained with the URL, secret and event
 *    to register by hand.
 *
 * Every write is idempotent: a second run changes nothing and adds no hook.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { formatData } from "../output.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { encodeBase64 } from "../../lib/base64.ts";
import {
  applyObject,
  type ApplyResult,
  containsFields,
  countOutcomes,
  describeCounts,
  type KubeClient,
  type KubeObject,
  SECRETS,
  updateObject,
} from "../../lib/kube/mod.ts";
import type { GitHost } from "../../lib/githost/mod.ts";
import {
  answerParams,
  buildTriggerObjects,
  choosePipeline,
  copyPipeline,
  describeRuntime,
  detectRuntime,
  discoverTektonApis,
  ensureListenerAccess,
  EVENT_LISTENER_NAME,
  type EventListener,
  exposeListener,
  listenerAccessObjects,
  listenerIngress,
  listenerRoute,
  listLocalFiles,
  listTemplatePipelines,
  localFileReader,
  ownsListenerAccess,
  PIPELINE_SERVICE_ACCOUNT,
  pipelineCopies,
  pipelineNameFor,
  pipelineRunObject,
  pipelinesForRuntime,
  type Runtime,
  startPipelineRun,
  type TektonApis,
  templateParams,
  TRIGGER_FLAVOURS,
  triggerName,
  upsertTrigger,
  waitForListener,
  webhookSecret,
  webhookUrlFor,
} from "../../lib/tekton/mod.ts";
import { type Logger, makeLogger, reportData } from "./common.ts";
import { writeRepository } from "./git_repository.ts";
import { findConsoleUrl } from "./console_url.ts";
import {
  failedSteps,
  type PipelineOptions,
  type PipelineReport,
  registerWebhook,
  type RepositorySource,
  setUpPipeline,
  WEBHOOK_SECRET_KEY,
  webhookSecretValue,
} from "./pipeline_common.ts";
import { parseParams, pipelineKind } from "./pipeline_input.ts";
import { type PipelineSigning, planSigning } from "./pipeline_signing.ts";

/** Runs `pipeline`. */
export async function run(options: PipelineOptions, ctx: CommandContext): Promise<number> {
  const { io } = ctx;
  const log = makeLogger(options, io);
  const kind = await pipelineKind(options, ctx);
  const given = parseParams(options.param);
  const waitTimeout = options.waitTimeout;
  if (!(waitTimeout > 0)) {
    throw new UsageError(`Cannot use --wait-timeout "${waitTimeout}": expected seconds above 0`);
  }
  if (options.listenerUrl && !URL.canParse(options.listenerUrl)) {
    throw new UsageError(`Invalid --listener-url "${options.listenerUrl}": not an absolute URL`);
  }
  if (kind === "jenkins" && (options.sign === true || options.signAfter !== undefined)) {
    throw new UsageError("--sign and --sign-after are for Tekton pipelines (--tekton)");
  }
  if (options.sign === false && options.signAfter !== undefined) {
    throw new UsageError("--sign-after and --no-sign exclude each other");
  }
  const setup = await setUpPipeline(options, ctx, log);
  using client = setup.client;
  if (kind === "jenkins") {
    const { runJenkins } = await import("./pipeline_jenkins.ts");
    return await runJenkins(options, ctx, setup, log);
  }
  const { source, git, branch, namespace, templateNamespace, host } = setup;
  const [apis, openshift] = await Promise.all([discoverTektonApis(client), client.isOpenShift()]);
  log.step(
    `Tekton Pipelines tekton.dev/${apis.pipelinesVersion}, Triggers triggers.tekton.dev/${apis.triggersVersion}`,
  );

  const runtime = await repositoryRuntime(source, host, branch);
  const templates = await listTemplatePipelines(client, apis, templateNamespace);
  const { candidates, filtered } = pipelinesForRuntime(templates, runtime);
  if (filtered && runtime && !options.pipeline) {
    log.info(`Pipeline templates filtered by the detected runtime: ${describeRuntime(runtime)}`);
  }
  const template = await choosePipeline(templates, candidates, {
    name: options.pipeline,
    ...(io.interactive
      ? {
        choose: (names: readonly string[]) =>
          ctx.terminal.askChoice(
            "Select the Pipeline to use in the PipelineRun:",
            names.map((n) => ({ value: n, label: n })),
          ),
      }
      : {}),
  });
  log.info(`Pipeline template: ${templateNamespace}/${template.metadata.name}`);
  const answers = await answerParams(
    templateParams(template),
    given,
    io.interactive
      ? async (param) => {
        const message = `${param.name}${param.description ? `: ${param.description}` : ""}?`;
        if (param.boolean) {
          return String(
            await ctx.terminal.askConfirm(message, param.default === "true"),
          );
        }
        return await ctx.terminal.askText({
          message,
          missing: `pass -p ${param.name}=VALUE`,
          ...(param.default !== undefined ? { defaultValue: param.default } : {}),
        });
      }
      : undefined,
  );

  const pipelineName = pipelineNameFor(git.repo);
  const labels = { app: pipelineName };
  const repoPath = `${git.org}/${git.repo}`;
  const triggerInput = {
    pipelineName,
    namespace,
    flavour: host.flavour,
    repoPath,
    branch,
    secretKey: WEBHOOK_SECRET_KEY,
    triggersApiVersion: `triggers.tekton.dev/${apis.triggersVersion}` as const,
    pipelinesApiVersion: `tekton.dev/${apis.pipelinesVersion}` as const,
    pipelineParams: Object.fromEntries(answers),
  };
  const secretName = `${triggerName(repoPath, branch)}-webhook`;
  const triggers = buildTriggerObjects({ ...triggerInput, secretName });
  const signing = await planSigning(client, apis, {
    namespace,
    templateNamespace,
    template,
    sign: options.sign,
    after: options.signAfter,
  }, log);
  const copy = {
    from: templateNamespace,
    to: namespace,
    template: signing.template,
    name: pipelineName,
    params: answers,
    labels,
  };
  const secretBody = setup.gitSecret;

  if (options.dryRun) {
    // The run would build the branch's head (reading it changes nothing on the host).
    const revision = options.start ? await host.branchHead(branch) : branch;
    const objects = await plannedObjects(client, apis, {
      namespace,
      openshift,
      ingressHost: options.ingressHost,
      copy,
      triggers,
      secretName,
      pipelineName,
      labels,
      start: options.start,
      gitUrl: git.url,
      revision,
      answers,
      gitSecret: secretBody,
      signing,
    });
    io.stdout.write(
      options.output === "json"
        ? formatData({ apiVersion: "v1", kind: "List", items: objects }, "json")
        : objects.map((o) => formatData(o, "yaml")).join("---\n"),
    );
    return 0;
  }

  const report: PipelineReport = {
    namespace,
    repository: git.url,
    branch,
    gitHost: host.flavour,
    ...(runtime ? { runtime: describeRuntime(runtime) } : {}),
    template: `${templateNamespace}/${template.metadata.name}`,
    pipeline: pipelineName,
    signing: signing.summary,
    results: [],
    problems: [],
  };
  const record = (...results: ApplyResult[]) => {
    for (const r of results) log.result(r);
    report.results.push(...results);
  };

  record(
    ...await writeRepository(client, {
      namespace,
      git,
      branch,
      secret: secretBody,
      stored: setup.stored.object,
    }),
  );
  const access = await ensureListenerAccess(client, namespace);
  if (access) record(...access);
  else log.step(`ServiceAccount ${PIPELINE_SERVICE_ACCOUNT} exists: its permissions are kept`);
  if (signing.secretCopy) record(await applyObject(client, SECRETS, signing.secretCopy));
  log.step(`Copying the pipeline and its tasks from ${templateNamespace}`);
  record(...await copyPipeline(client, apis, copy));
  const { value: secret, fresh: secretChanged } = await webhookSecretValue(
    client,
    namespace,
    secretName,
  );
  record(
    await applyObject(
      client,
      SECRETS,
      webhookSecret({
        name: secretName,
        namespace,
        key: WEBHOOK_SECRET_KEY,
        value: secret,
        pipelineName,
      }),
    ),
    await applyObject(client, apis.triggerTemplates, triggers.triggerTemplate),
    await applyObject(client, apis.triggerBindings, triggers.triggerBinding),
  );
  const listener = await updateObject(
    client,
    apis.eventListeners,
    namespace,
    EVENT_LISTENER_NAME,
    (live) => {
      const next = upsertTrigger(live as EventListener | undefined, triggers.trigger, {
        namespace,
        triggersApiVersion: triggerInput.triggersApiVersion,
        replacing: triggers.supersedes,
      });
      // Unchanged when the live listener already holds what would be written (the server may
      // have added defaults to it).
      return live && containsFields(live.spec, next.spec) ? undefined : next;
    },
  );
  if (listener) record(listener);
  const exposure = await exposeListener(client, namespace, {
    openshift,
    ingressHost: options.ingressHost,
    labels,
  });
  if (exposure.result) record(exposure.result);
  const listenerUrl = options.listenerUrl || exposure.url;
  if (listenerUrl) report.listenerUrl = listenerUrl;

  log.info(
    `Pipeline ${pipelineName} in ${namespace}: ${describeCounts(countOutcomes(report.results))}`,
  );
  if (options.wait) {
    log.info(`Waiting for the event listener ${namespace}/el-tekton to be available`);
    try {
      await waitForListener(client, namespace, { ...ctx.clock, timeoutMs: waitTimeout * 1000 });
    } catch (error) {
      if (!(error instanceof ToolkitError)) throw error;
      report.problems.push(error.message);
      log.warn(error.message);
    }
  }
  if (options.start) {
    const commit = await branchHeadOrProblem(host, branch, report, log);
    if (commit !== undefined) {
      report.commit = commit;
      report.pipelineRun = await startPipelineRun(client, apis, {
        namespace,
        pipeline: pipelineName,
        gitUrl: git.url,
        gitRevision: commit,
        params: answers,
        serviceAccount: PIPELINE_SERVICE_ACCOUNT,
        labels,
      });
      log.info(`Pipeline run started at ${branch} ${commit}: ${report.pipelineRun}`);
    }
  }

  if (options.skipWebhook) {
    log.step("--skipWebhook: no webhook on the git host");
  } else {
    if (!listenerUrl) {
      const why = exposure.kind === "none"
        ? "the event listener has no URL: pass --ingress-host (an Ingress) or --listener-url"
        : "the Route or Ingress has no host yet: pass --listener-url";
      report.problems.push(`No webhook: ${why}`);
      log.warn(`No webhook was created: ${why}`);
    } else {
      await registerWebhook(host, report, log, {
        url: webhookUrlFor(host.flavour, listenerUrl, secret),
        shownUrl: listenerUrl,
        secret,
        secretChanged,
        event: TRIGGER_FLAVOURS[host.flavour].pushEvent,
      });
    }
  }

  if (options.output) {
    const { results, ...rest } = report;
    io.stdout.write(formatData({ ...rest, ...reportData({ results }) }, options.output));
  }
  await nextSteps(client, apis, report, openshift, log);
  const failure = failedSteps(report);
  if (failure) throw failure;
  return 0;
}

/**
 * The commit `branch` points to on the host, which the first run builds: its `git-revision`, as
 * the trigger's runs get the pushed commit, so the clone checks out exactly the commit the
 * provenance names (a branch name would be cloned at whatever its head is by then, and a
 * template whose clone task reports no `commit` result would leave the provenance step no full
 * hash). When it cannot be read, no run is started and the problem is reported (exit 1 at the
 * end); the other steps go on.
 */
async function branchHeadOrProblem(
  host: GitHost,
  branch: string,
  report: PipelineReport,
  log: Logger,
): Promise<string | undefined> {
  try {
    return await host.branchHead(branch);
  } catch (error) {
    if (!(error instanceof ToolkitError)) throw error;
    report.problems.push(`No PipelineRun: ${error.message}`);
    log.warn(`The first PipelineRun was not started: ${error.message}`);
    return undefined;
  }
}

async function repositoryRuntime(
  source: RepositorySource,
  host: GitHost,
  branch: string,
): Promise<Runtime | undefined> {
  if (source.localDir) {
    return await detectRuntime(
      await listLocalFiles(source.localDir),
      localFileReader(source.localDir),
    );
  }
  return await detectRuntime(
    await host.listFiles(branch),
    (path) => host.readFile(branch, path),
  );
}

async function nextSteps(
  client: KubeClient,
  apis: TektonApis,
  report: PipelineReport,
  openshift: boolean,
  log: Logger,
): Promise<void> {
  if (!report.pipelineRun) return;
  const lines = [
    "",
    "Next steps:",
    "  Tekton CLI:",
    `    View PipelineRun info - tkn pipelinerun describe ${report.pipelineRun} -n ${report.namespace}`,
    `    View PipelineRun logs - tkn pipelinerun logs -f ${report.pipelineRun} -n ${report.namespace}`,
  ];
  if (openshift) {
    const console = await findConsoleUrl(client).catch(() => undefined);
    if (console) {
      lines.push(
        "  OpenShift console:",
        `    View PipelineRun - ${
          console.replace(/\/$/, "")
        }/k8s/ns/${report.namespace}/tekton.dev~${apis.pipelinesVersion}~PipelineRun/${report.pipelineRun}`,
      );
    }
  }
  for (const line of lines) log.info(line);
}

/** What `--dry-run` prints. */
interface Plan {
  namespace: string;
  openshift: boolean;
  ingressHost: string | undefined;
  copy: Parameters<typeof pipelineCopies>[2];
  triggers: ReturnType<typeof buildTriggerObjects>;
  secretName: string;
  pipelineName: string;
  labels: Record<string, string>;
  start: boolean;
  gitUrl: string;
  /** The first run's `git-revision`: the branch's head commit. */
  revision: string;
  answers: ReadonlyMap<string, string>;
  gitSecret: KubeObject | undefined;
  signing: PipelineSigning;
}

/** Every object the command would write, in order, secrets redacted; nothing is written. */
async function plannedObjects(
  client: KubeClient,
  apis: TektonApis,
  plan: Plan,
): Promise<KubeObject[]> {
  const redacted = "<redacted>";
  const objects: KubeObject[] = [];
  if (plan.gitSecret) {
    objects.push({
      ...plan.gitSecret,
      apiVersion: "v1",
      kind: "Secret",
      stringData: { ...plan.gitSecret.stringData as Record<string, string>, password: redacted },
    });
  }
  const signingSecret = plan.signing.secretCopy;
  if (signingSecret) {
    const data = { ...signingSecret.data as Record<string, string> };
    for (const key of ["apikey", "cosign-password"]) {
      if (data[key] !== undefined) data[key] = encodeBase64(redacted);
    }
    objects.push({ ...signingSecret, data });
  }
  const ours = await ownsListenerAccess(client, plan.namespace);
  if (ours) objects.push(...listenerAccessObjects(plan.namespace).map(([, o]) => o));
  const { tasks, pipeline } = await pipelineCopies(client, apis, plan.copy);
  objects.push(...tasks, pipeline);
  objects.push(
    webhookSecret({
      name: plan.secretName,
      namespace: plan.namespace,
      key: WEBHOOK_SECRET_KEY,
      value: redacted,
      pipelineName: plan.pipelineName,
    }),
    plan.triggers.triggerTemplate,
    plan.triggers.triggerBinding,
  );
  const live = await client.read(apis.eventListeners, plan.namespace, EVENT_LISTENER_NAME);
  objects.push(
    upsertTrigger(live as EventListener | undefined, plan.triggers.trigger, {
      namespace: plan.namespace,
      triggersApiVersion: `triggers.tekton.dev/${apis.triggersVersion}`,
      replacing: plan.triggers.supersedes,
    }),
  );
  if (plan.openshift) objects.push(listenerRoute(plan.namespace, plan.labels));
  else if (plan.ingressHost) {
    objects.push(listenerIngress(plan.namespace, plan.ingressHost, plan.labels));
  }
  if (plan.start) {
    objects.push(pipelineRunObject(apis, {
      namespace: plan.namespace,
      pipeline: plan.pipelineName,
      gitUrl: plan.gitUrl,
      gitRevision: plan.revision,
      params: plan.answers,
      serviceAccount: PIPELINE_SERVICE_ACCOUNT,
      labels: plan.labels,
    }));
  }
  return objects.map((o) => ({ ...o, metadata: { ...o.metadata } }));
}
