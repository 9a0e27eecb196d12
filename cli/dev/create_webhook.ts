/**
 * `toolkit create-webhook`: registers a push webhook on a repository's git host for a Jenkins job
 * (or, with `--webhookUrl`, any listener). igc's flags and environment variables
 * (`--jenkinsUrl`/`JENKINS_URL`, `--gitUsername`/`USER_NAME`, `--gitToken`/`API_TOKEN`,
 * `--gitUrl`/`GIT_URL`), plus `--jobName` (GitLab's hook calls the job itself: igc sent
 * `/project/undefined`), `--webhookUrl`, `--secret`, `--git-host-type`, `--git-ca-file` and `-o`.
 * The token also comes from `--git-token-file` or `$TOOLKIT_GIT_TOKEN`, the secret from
 * `--secret-file`, and either from stdin (`--gitToken -`, `--secret -`): `cli/secret_flag.ts`.
 *
 * Every flavour's hook gets a URL (igc sent none to Gitea, Gogs and Bitbucket) pointing at the
 * Jenkins plugin for that host (`lib/jenkins/hook_url.ts`), and a secret. A hook to the same URL is
 * kept or updated, never doubled; the output names the host's real hook id (igc printed `test`
 * for GitHub). A secret made up for a new hook is printed once, for Jenkins' side.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { clientTimeoutMs, observedContextFetch } from "../network.ts";
import type { OptionsOf } from "../options.ts";
import type { CREATE_WEBHOOK } from "./create_webhook_command.ts";
import { formatData } from "../output.ts";
import { UsageError } from "../../lib/errors.ts";
import {
  FLAVOUR_DISPLAY_NAMES,
  type GitUrl,
  InvalidGitUrlError,
  newWebhookSecret,
  parseGitUrl,
} from "../../lib/githost/mod.ts";
import { hookNeedsJob, jenkinsHookUrl, type JenkinsJobRef } from "../../lib/jenkins/mod.ts";
import { makeLogger, readCaFile, resolveDir } from "./common.ts";
import { GIT_TOKEN_ENV, resolveSecret } from "../secret_flag.ts";

type CreateWebhookOptions = OptionsOf<typeof CREATE_WEBHOOK>;

function checkUrl(flag: string, value: string): string {
  if (!URL.canParse(value) || !/^https?:/.test(value)) {
    throw new UsageError(`Invalid ${flag} "${value}": expected an http(s) URL`);
  }
  return value;
}

function jobRef(jobName: string | undefined): JenkinsJobRef | undefined {
  if (!jobName) return undefined;
  const parts = jobName.split("/").filter((p) => p !== "");
  if (parts.length === 0 || parts.length > 2) {
    throw new UsageError(`Invalid --jobName "${jobName}": expected <job> or <folder>/<job>`);
  }
  return parts.length === 2 ? { folder: parts[0]!, name: parts[1]! } : { name: parts[0]! };
}

/** Runs `create-webhook`. */
export async function run(options: CreateWebhookOptions, ctx: CommandContext): Promise<number> {
  const { io } = ctx;
  const log = makeLogger(options, io);
  if (!options.gitUrl) throw new UsageError("Missing the repository: pass --gitUrl (or GIT_URL)");
  let git: GitUrl;
  try {
    git = parseGitUrl(options.gitUrl);
  } catch (error) {
    if (error instanceof InvalidGitUrlError) throw new UsageError(error.message);
    throw error;
  }
  if (options.gitToken === "-" && options.secret === "-") {
    throw new UsageError("Only one of --gitToken and --secret can be read from stdin (-)");
  }
  const givenToken = await resolveSecret({
    what: "git token",
    flag: "--gitToken",
    value: options.gitToken,
    fileFlag: "--git-token-file",
    file: options.gitTokenFile,
    env: [GIT_TOKEN_ENV, "API_TOKEN"],
  }, ctx);
  const givenSecret = await resolveSecret({
    what: "webhook secret",
    flag: "--secret",
    value: options.secret,
    fileFlag: "--secret-file",
    file: options.secretFile,
    env: ["WEBHOOK_SECRET"],
  }, ctx);
  const token = givenToken?.value || git.password;
  if (!token) {
    throw new UsageError(
      "Missing the git token: pass --git-token-file FILE, set TOOLKIT_GIT_TOKEN (or API_TOKEN) or give --gitToken - (stdin)",
    );
  }
  const username = options.gitUsername || git.username || "";
  if (!options.webhookUrl && !options.jenkinsUrl) {
    throw new UsageError(
      "Missing where the hook sends events: pass --jenkinsUrl (or JENKINS_URL) or --webhookUrl",
    );
  }
  const webhookUrl = options.webhookUrl && checkUrl("--webhookUrl", options.webhookUrl);
  const jenkinsUrl = options.jenkinsUrl && checkUrl("--jenkinsUrl", options.jenkinsUrl);
  const job = jobRef(options.jobName);
  const caCertificates = options.gitCaFile
    ? [await readCaFile(resolveDir(io, options.gitCaFile), "--git-ca-file")]
    : undefined;

  const host = await ctx.gitHost(git, {
    credentials: { username, password: token },
    timeoutMs: clientTimeoutMs(options),
    fetch: observedContextFetch(ctx, options),
    ...(options.gitHostType ? { flavour: options.gitHostType } : {}),
    ...(caCertificates ? { caCertificates } : {}),
    ...(options.gitApiUrl
      ? { apiBaseUrl: checkUrl("--git-api-url", options.gitApiUrl).replace(/\/+$/, "") }
      : {}),
  });
  try {
    const name = FLAVOUR_DISPLAY_NAMES[host.flavour];
    if (["gitea", "gogs", "bitbucket"].includes(host.flavour) && !username) {
      throw new UsageError(
        `${name} needs the user name with the token: pass --gitUsername (or USER_NAME)`,
      );
    }
    if (!webhookUrl && hookNeedsJob(host.flavour) && !job) {
      throw new UsageError(
        `${name}'s hook calls the Jenkins job itself: pass --jobName <folder>/<job>`,
      );
    }
    const secret = givenSecret?.value || newWebhookSecret();
    const url = webhookUrl || jenkinsHookUrl(host.flavour, jenkinsUrl!, job, secret);
    if (url.startsWith("http:")) {
      log.warn(`${url.replace(/token=[^&]*/, "token=…")} is plain http: the host may refuse it`);
    }
    log.step(`Creating a ${name} webhook for ${git.url}`);
    const { hook, action } = await host.ensurePushHook({
      url,
      secret,
      // A secret given on the command line is set on an existing hook too.
      secretChanged: givenSecret !== undefined,
    });
    const madeUpSecret = givenSecret === undefined && action !== "unchanged";
    if (options.output) {
      io.stdout.write(formatData({
        id: hook.id,
        action,
        gitHost: host.flavour,
        repository: git.url,
        url: webhookUrl ? url : url.replace(/token=[^&]*/, "token=<secret>"),
        events: hook.events,
        ...(madeUpSecret ? { secret } : {}),
      }, options.output));
    } else {
      io.stdout.write(`Webhook ${action}: ${hook.id}\n`);
    }
    if (madeUpSecret) {
      log.info(`The webhook's secret (give it to Jenkins where its plugin checks one): ${secret}`);
    } else if (action === "unchanged" && givenSecret === undefined) {
      log.info(
        "The hook exists and was kept with its secret (pass --secret-file to set a new one)",
      );
    }
    return 0;
  } finally {
    host.close();
  }
}
