/**
 * `toolkit git-secret [name]` and `toolkit gitops [gitUrl]`: register a git repository in a
 * namespace (`-n`, else the context's, else `default`) for pipelines.
 *
 * - The repository URL and branch come from `gitops`'s `gitUrl` (`url#branch`) or from the
 *   `origin` remote and checked-out branch of the repository in `-d` (default: the current
 *   directory).
 * - Secret `git-credentials` (type `kubernetes.io/basic-auth`): `username` and `password`
 *   (`-u`; the token from `--git-token-file`, `$TOOLKIT_GIT_TOKEN`, `-p -` (stdin) or `-p`
 *   (`cli/secret_flag.ts`); the URL's own credentials; or a prompt on a terminal), plus the attributes
 *   of `--values FILE`. Labelled `jenkins.io/credentials-type=usernamePassword`, and annotated
 *   `build.openshift.io/source-secret-match-uri-1` and `tekton.dev/git-0` with the
 *   repository's real scheme and host (igc always wrote `https`).
 * - ConfigMap `<org>.<repo>` (`.<branch>` added when it is not main or master; dots turned into
 *   `-` as igc did), or the `name` positional, or `gitops-repo` for `gitops`, with `url`,
 *   `host`, `org`, `owner`, `repo`, `branch` and `protocol`.
 *
 * An existing secret is kept unless `--replace` is given; credentials given on the command
 * line that differ from the stored ones are an error, never silently replaced by them.
 *
 * @module
 */
import type { CommandContext, CommandRun } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { GIT_SECRET, GITOPS } from "./git_secret_command.ts";
import { confirmReplace } from "../replace.ts";
import { UsageError } from "../../lib/errors.ts";
import { countOutcomes, describeCounts, objectNameProblem } from "../../lib/kube/mod.ts";
import { makeLogger, namespaceOf, printReport, requireNamespace, resolveDir } from "./common.ts";
import {
  currentBranch,
  type GitUrl,
  InvalidGitUrlError,
  parseGitUrl,
  readRemoteUrl,
} from "../../lib/githost/mod.ts";
import { readValuesFile } from "./values_file.ts";
import { GIT_TOKEN_ENV, resolveSecret, warnSecretArgument } from "../secret_flag.ts";
import {
  GIT_SECRET_NAME,
  gitSecret,
  normalizeName,
  readStoredCredentials,
  writeRepository,
} from "./git_repository.ts";

/** The ConfigMap name `gitops` writes. */
export const GITOPS_CONFIG_NAME = "gitops-repo";

/** The options of `git-secret` and `gitops`: the same flags, and each its own positional. */
type GitSecretOptions = OptionsOf<{ flags: typeof GIT_SECRET.flags }> & {
  readonly name?: string | undefined;
  readonly gitUrl?: string | undefined;
};

async function repository(
  options: GitSecretOptions,
  ctx: CommandContext,
  gitops: boolean,
): Promise<{ git: GitUrl; branch: string }> {
  const given = gitops ? options.gitUrl : undefined;
  if (given) {
    let git: GitUrl;
    try {
      git = parseGitUrl(given);
    } catch (error) {
      if (error instanceof InvalidGitUrlError) throw new UsageError(error.message);
      throw error;
    }
    if (git.password) {
      warnSecretArgument(
        ctx.io,
        "git token",
        "the URL's user:token@",
        "give the URL without it, and the token with --git-token-file FILE, TOOLKIT_GIT_TOKEN or -p -",
      );
    }
    const branch = git.branch ??
      await ctx.terminal.askText({
        message: "Provide the git branch that should be used:",
        missing: "The branch is not known: give the URL as URL#branch",
        defaultValue: "main",
      });
    return { git, branch };
  }
  const dir = resolveDir(ctx.io, options.workingDir);
  const git = parseGitUrl(await readRemoteUrl(ctx.processes, dir));
  const branch = git.branch ?? await currentBranch(ctx.processes, dir) ??
    await ctx.terminal.askText({
      message: "Provide the git branch that should be used:",
      missing: `The branch is not known: HEAD is detached in "${dir}"; check out a branch`,
      defaultValue: "main",
    });
  return { git, branch };
}

function runFor(
  gitops: boolean,
): (options: GitSecretOptions, ctx: CommandContext) => Promise<void> {
  return async (options, ctx) => {
    const log = makeLogger(options, ctx.io);
    // First: two sources at once are a usage error before anything is read or reached.
    const token = await resolveSecret({
      what: "git token",
      flag: "-p/--gitPat",
      value: options.gitPat,
      fileFlag: "--git-token-file",
      file: options.gitTokenFile,
      env: [GIT_TOKEN_ENV],
    }, ctx);
    let replace = options.replace;
    const positional = gitops ? undefined : options.name;
    const configName = gitops ? GITOPS_CONFIG_NAME : positional && normalizeName(positional);
    if (configName !== undefined) {
      const problem = objectNameProblem(configName);
      if (problem) throw new UsageError(`Invalid name "${positional}": ${problem}`);
    }
    const valuesPath = options.values;
    const values = valuesPath ? await readValuesFile(resolveDir(ctx.io, valuesPath)) : {};
    const { git, branch } = await repository(options, ctx, gitops);

    using client = await ctx.kube(options);
    const namespace = namespaceOf(options.namespace, client);
    log.info(`Setting the git credentials in the ${namespace} namespace`);
    log.info(`  Project git repo: ${git.url}`);
    log.info(`  Branch: ${branch}`);
    await requireNamespace(client, namespace);

    const givenUser = options.gitUsername || git.username;
    const givenPass = token?.value || git.password;
    const { object: stored, username: storedUser, password: storedPass } =
      await readStoredCredentials(client, namespace);

    let secretBody: ReturnType<typeof gitSecret> | undefined;
    if (
      stored && !replace &&
      ((givenUser !== undefined && givenUser !== storedUser) ||
        (givenPass !== undefined && givenPass !== storedPass))
    ) {
      // Credentials on the command line differ from the stored ones: replaced only when asked.
      await confirmReplace(ctx, {
        what: `Secret "${namespace}/${GIT_SECRET_NAME}"`,
        differs: `holds credentials for user "${storedUser ?? ""}"`,
        replace,
      });
      replace = true;
    }
    if (stored && !replace) {
      log.info(`Git credentials have already been stored for user: ${storedUser ?? "(none)"}`);
      if (valuesPath) log.warn(`--values is not stored: the secret exists (pass --replace)`);
    } else {
      const username = givenUser ?? (stored ? storedUser : undefined) ??
        await ctx.terminal.askText({
          message: "Provide the git username:",
          missing: "The git username is missing: pass -u/--gitUsername",
        });
      const password = givenPass ?? (stored ? storedPass : undefined) ??
        await ctx.terminal.askText({
          message: "Provide the git password or personal access token:",
          missing:
            "The git password or token is missing: pass --git-token-file FILE, set TOOLKIT_GIT_TOKEN or give -p - (stdin)",
          secret: true,
        });
      secretBody = gitSecret(namespace, git, username, password, values);
    }

    const results = await writeRepository(client, {
      namespace,
      git,
      branch,
      configName,
      secret: secretBody,
      stored,
    });
    for (const r of results) log.result(r, false);
    log.info(`Git repository in ${namespace}: ${describeCounts(countOutcomes(results))}`);
    printReport(ctx.io, options.output, { results }, { namespace, url: git.url, branch });
  };
}

/** Runs `git-secret`. */
export const run: CommandRun<typeof GIT_SECRET> = runFor(false);

/** Runs `gitops`. */
export const runGitops: CommandRun<typeof GITOPS> = runFor(true);
