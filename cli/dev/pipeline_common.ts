/**
 * What `pipeline --tekton` and `pipeline --jenkins` share: where the repository is (argument or
 * local clone), the namespaces, the git credentials and host, the webhook secret kept in a Secret
 * (so a second run keeps the hook valid), the registration of the hook with what to do by hand when
 * it cannot be made, and the report of what was done.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { clientTimeoutMs, observedContextFetch } from "../network.ts";
import type { OptionsOf } from "../options.ts";
import type { PIPELINE } from "./pipeline_command.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { decodeBase64Text } from "../../lib/base64.ts";
import { type ApplyResult, type KubeClient, SECRETS } from "../../lib/kube/mod.ts";
import {
  currentBranch,
  FLAVOUR_DISPLAY_NAMES,
  type GitHost,
  type GitUrl,
  InvalidGitUrlError,
  newWebhookSecret,
  parseGitUrl,
  readRemoteUrl,
} from "../../lib/githost/mod.ts";
import { formatData } from "../output.ts";
import { TRIGGER_FLAVOURS } from "../../lib/tekton/mod.ts";
import {
  checkNamespaceName,
  type Logger,
  readCaFile,
  reportData,
  requireNamespace,
  requireTemplateNamespace,
  resolveDir,
} from "./common.ts";
import { gitSecret, readStoredCredentials, type StoredCredentials } from "./git_repository.ts";
import { type GitCredentials, resolveGitCredentials } from "./pipeline_input.ts";
import { readValuesFile } from "./values_file.ts";
import { GIT_TOKEN_ENV, resolveSecret, warnSecretArgument } from "../secret_flag.ts";

/** `pipeline`'s options. */
export type PipelineOptions = OptionsOf<typeof PIPELINE>;

/** The key of the webhook secret in its Secret. */
export const WEBHOOK_SECRET_KEY = "secret";

/** Where the repository is: the URL (with branch) and, for a local clone, its directory. */
export interface RepositorySource {
  readonly git: GitUrl;
  readonly branch?: string | undefined;
  readonly localDir?: string | undefined;
}

/** The repository of `gitUrl`, or of the local clone in the current directory. */
export async function repositorySource(
  options: PipelineOptions,
  ctx: Pick<CommandContext, "io" | "processes">,
): Promise<RepositorySource> {
  const { io } = ctx;
  if (options.gitUrl) {
    try {
      const git = parseGitUrl(options.gitUrl);
      if (git.password) {
        warnSecretArgument(
          io,
          "git token",
          "the URL's user:token@",
          "give the URL without it, and the token with --git-token-file FILE, TOOLKIT_GIT_TOKEN or -P -",
        );
      }
      return { git, branch: git.branch };
    } catch (error) {
      if (error instanceof InvalidGitUrlError) throw new UsageError(error.message);
      throw error;
    }
  }
  const dir = resolveDir(io, undefined);
  const git = parseGitUrl(await readRemoteUrl(ctx.processes, dir));
  return { git, branch: git.branch ?? await currentBranch(ctx.processes, dir), localDir: dir };
}

function checkApiUrl(value: string): string {
  if (!URL.canParse(value) || !/^https?:/.test(value)) {
    throw new UsageError(`Invalid --git-api-url "${value}": expected an http(s) URL`);
  }
  return value.replace(/\/+$/, "");
}

/** What every pipeline registration starts from. */
export interface PipelineSetup {
  readonly client: KubeClient;
  readonly source: RepositorySource;
  readonly git: GitUrl;
  readonly branch: string;
  readonly namespace: string;
  readonly templateNamespace: string;
  readonly stored: StoredCredentials;
  readonly credentials: GitCredentials;
  readonly host: GitHost;
  /** The attributes of `--values`, stored with the credentials. */
  readonly values: Record<string, string>;
  /** The git-credentials Secret to write, when the credentials changed. */
  readonly gitSecret: ReturnType<typeof gitSecret> | undefined;
}

/**
 * The front part of `pipeline`: the repository, the cluster and its namespaces (both must exist),
 * the git credentials, the git host and the branch. The caller disposes of the client.
 */
export async function setUpPipeline(
  options: PipelineOptions,
  ctx: CommandContext,
  log: Logger,
): Promise<PipelineSetup> {
  const { io } = ctx;
  // First: two sources at once are a usage error before anything is read or reached.
  const token = await resolveSecret({
    what: "git token",
    flag: "-P/--password",
    value: options.password,
    fileFlag: "--git-token-file",
    file: options.gitTokenFile,
    env: [GIT_TOKEN_ENV],
  }, ctx);
  const source = await repositorySource(options, ctx);
  const { git } = source;
  const values = options.values ? await readValuesFile(resolveDir(io, options.values)) : {};
  const caCertificates = options.gitCaFile
    ? [await readCaFile(resolveDir(io, options.gitCaFile), "--git-ca-file")]
    : undefined;
  const client = await ctx.kube(options);
  try {
    const namespace = options.pipelineNamespace || client.namespace;
    if (!namespace) {
      throw new UsageError(
        "The namespace is not known: pass -n NAMESPACE, or set a namespace in the kubeconfig context",
      );
    }
    checkNamespaceName(namespace);
    const templateNamespace = checkNamespaceName(options.templateNamespace, "template namespace");
    await requireNamespace(client, namespace);
    await requireTemplateNamespace(client, templateNamespace);
    const stored = await readStoredCredentials(client, namespace);
    const credentials = await resolveGitCredentials({
      flags: { username: options.username, password: token?.value },
      url: git,
      stored,
      replace: options.replaceGitSecret,
    }, ctx);
    const host = await ctx.gitHost(git, {
      credentials: { username: credentials.username, password: credentials.password },
      timeoutMs: clientTimeoutMs(options),
      fetch: observedContextFetch(ctx, options),
      ...(options.gitHostType ? { flavour: options.gitHostType } : {}),
      ...(caCertificates ? { caCertificates } : {}),
      ...(options.gitApiUrl ? { apiBaseUrl: checkApiUrl(options.gitApiUrl) } : {}),
    });
    const branch = source.branch ?? await host.defaultBranch();
    log.info(
      `Registering ${git.url} (${branch}, ${
        FLAVOUR_DISPLAY_NAMES[host.flavour]
      }) in namespace ${namespace}`,
    );
    const changed = options.replaceGitSecret || !stored.object ||
      stored.username !== credentials.username || stored.password !== credentials.password;
    if (changed && stored.object) {
      log.info(`Replacing the stored git credentials with those of the ${credentials.source}`);
    }
    return {
      client,
      source,
      git,
      branch,
      namespace,
      templateNamespace,
      stored,
      credentials,
      host,
      values,
      gitSecret: changed
        ? gitSecret(namespace, git, credentials.username, credentials.password, values)
        : undefined,
    };
  } catch (error) {
    client.close();
    throw error;
  }
}

/** The webhook secret kept in Secret `name` (so the hook stays valid), or a new one. */
export async function webhookSecretValue(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<{ value: string; fresh: boolean }> {
  const existing = await client.read(SECRETS, namespace, name);
  const stored = (existing?.data as Record<string, string> | undefined)?.[WEBHOOK_SECRET_KEY];
  if (stored) {
    try {
      const value = decodeBase64Text(stored);
      if (value) return { value, fresh: false };
    } catch {
      // Not base64: make a new one.
    }
  }
  return { value: newWebhookSecret(), fresh: true };
}

/** What was done, for `-o json|yaml` and the last lines. */
export interface PipelineReport {
  namespace: string;
  repository: string;
  branch: string;
  gitHost: string;
  runtime?: string;
  template?: string;
  pipeline: string;
  /** How the pipeline signs its images (false: it does not). */
  signing?: Record<string, unknown> | false;
  results: ApplyResult[];
  listenerUrl?: string;
  /** The commit the first run builds (the branch's head when it started). */
  commit?: string;
  pipelineRun?: string;
  build?: string;
  webhook?: { id: string | number; url: string; action: string };
  problems: string[];
}

/** What {@link registerWebhook} registers. */
export interface WebhookRegistration {
  /** The URL the host calls (may hold the secret: never printed unless to register by hand). */
  readonly url: string;
  /** The URL as reports show it (without a secret). */
  readonly shownUrl: string;
  readonly secret: string;
  readonly secretChanged: boolean;
  /** The event a user registering it by hand chooses. */
  readonly event: string;
}

/**
 * Creates or updates the push hook. When the host refuses, the failure is recorded as a problem
 * (the command exits 1 at the end) and what to register by hand is printed.
 */
export async function registerWebhook(
  host: GitHost,
  report: PipelineReport,
  log: Logger,
  hook: WebhookRegistration,
): Promise<void> {
  const name = FLAVOUR_DISPLAY_NAMES[host.flavour];
  try {
    const { hook: made, action } = await host.ensurePushHook({
      url: hook.url,
      secret: hook.secret,
      secretChanged: hook.secretChanged,
    });
    report.webhook = { id: made.id, url: hook.shownUrl, action };
    log.info(`Webhook ${action} on ${name} (id ${made.id})`);
  } catch (error) {
    if (!(error instanceof ToolkitError)) throw error;
    report.problems.push(`No webhook: ${error.message}`);
    log.warn(
      `The webhook could not be created: ${error.message}\n` +
        `  Register it by hand on ${name}: URL ${hook.url}, content type JSON, ` +
        `secret ${hook.secret}, event "${hook.event}" (push)`,
    );
  }
}

/**
 * The end of a Jenkins registration (a job, or an OpenShift BuildConfig): the push hook to
 * `hook` (unless `--skipWebhook`), the report on stdout with `-o` (with `data` of its own), the
 * last lines, and exit 1 naming the steps that failed.
 */
export async function finishRegistration(
  ctx: CommandContext,
  options: PipelineOptions,
  host: GitHost,
  report: PipelineReport,
  log: Logger,
  hook: Omit<WebhookRegistration, "event">,
  more: { readonly data?: Record<string, unknown>; readonly lastLines?: readonly string[] } = {},
): Promise<number> {
  if (options.skipWebhook) {
    log.step("--skipWebhook: no webhook on the git host");
  } else {
    await registerWebhook(host, report, log, {
      ...hook,
      event: TRIGGER_FLAVOURS[host.flavour].pushEvent,
    });
  }
  if (options.output) {
    const { results, ...rest } = report;
    ctx.io.stdout.write(
      formatData({ ...rest, ...more.data, ...reportData({ results }) }, options.output),
    );
  }
  for (const line of more.lastLines ?? []) log.info(line);
  const failure = failedSteps(report);
  if (failure) throw failure;
  return 0;
}

/**
 * Goes on only when what exists may be replaced: `--replace`, or a yes to `question` on a
 * terminal; else a usage error saying `refusal`.
 */
export async function confirmReplace(
  ctx: CommandContext,
  options: PipelineOptions,
  question: string,
  refusal: string,
): Promise<void> {
  const replace = options.replace ||
    (ctx.io.interactive && await ctx.terminal.askConfirm(question, false));
  if (!replace) throw new UsageError(refusal);
}

/** The end of a registration: exit 1 naming the steps that failed. */
export function failedSteps(report: PipelineReport): ToolkitError | undefined {
  if (report.problems.length === 0) return undefined;
  return new ToolkitError(
    `The pipeline is registered, but ${report.problems.length} step(s) failed: ${
      report.problems.join("; ")
    }`,
  );
}
