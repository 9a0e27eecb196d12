/**
 * `toolkit git-secret [name]` and `toolkit gitops [gitUrl]`: register a git repository in a
 * namespace (`-n`, else the context's, else `default`) for pipelines.
 *
 * - The repository URL and branch come from `gitops`'s `gitUrl` (`url#branch`) or from the
 *   `origin` remote and checked-out branch of the repository in `-d` (default: the current
 *   directory).
 * - Secret `git-credentials` (type `kubernetes.io/basic-auth`): `username` and `password`
 *   (`-u`, `-p`, the URL's own credentials, or a prompt on a terminal), plus the attributes
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
import type { CommandContext, CommandRun, OptionsOf } from "../command.ts";
import type { GIT_SECRET, GITOPS } from "../commands.ts";
import { decodeBase64Text } from "../../lib/mod.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import {
  applyObject,
  type ApplyResult,
  CONFIG_MAPS,
  countOutcomes,
  describeCounts,
  type KubeClient,
  type KubeObject,
  objectNameProblem,
  SECRETS,
} from "../../lib/kube/mod.ts";
import {
  connect,
  makeLogger,
  namespaceOf,
  printReport,
  requireNamespace,
  resolveDir,
} from "./common.ts";
import {
  currentBranch,
  type GitUrl,
  InvalidGitUrlError,
  parseGitUrl,
  readRemoteUrl,
} from "../../lib/githost/mod.ts";
import { askText } from "./prompt.ts";
import { readValuesFile } from "./values_file.ts";

/** The name of the git credentials Secret (what the toolkit's pipelines read). */
export const GIT_SECRET_NAME = "git-credentials";
/** The ConfigMap name `gitops` writes. */
export const GITOPS_CONFIG_NAME = "gitops-repo";

/** Credentials on the command line differ from the ones already stored. */
export class GitCredentialsConflictError extends ToolkitError {
  /** Creates the error. */
  constructor(namespace: string, storedUser: string) {
    super(
      `Cannot store the git credentials given: Secret "${namespace}/${GIT_SECRET_NAME}" already holds credentials for user "${storedUser}"; pass --replace to replace them`,
    );
    this.name = "GitCredentialsConflictError";
  }
}

/** The ConfigMap name igc used: `<org>.<repo>[.<branch>]`, lower case, `.`/`_`/`/` → `-`. */
export function repoConfigName(git: GitUrl, branch: string): string {
  const base = [git.org, git.repo, ...(branch === "main" || branch === "master" ? [] : [branch])]
    .join(".");
  return normalizeName(base);
}

/** An object name from free text: lower case, anything but `[a-z0-9-]` turned into `-`. */
export function normalizeName(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "");
}

function labelValue(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "")
    .slice(0, 63).replace(/[^A-Za-z0-9]+$/, "");
}

function decode(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    return decodeBase64Text(value);
  } catch {
    return undefined;
  }
}

/** The body of the git credentials Secret. */
export function gitSecret(
  namespace: string,
  git: GitUrl,
  username: string,
  password: string,
  values: Record<string, string> = {},
): {
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
  };
  type: string;
  stringData: Record<string, string>;
} {
  const origin = `${git.protocol}://${git.host}`;
  return {
    metadata: {
      name: GIT_SECRET_NAME,
      namespace,
      labels: {
        "jenkins.io/credentials-type": "usernamePassword",
        app: labelValue(git.repo),
        group: "pipeline",
        type: "git",
      },
      annotations: {
        description:
          `secret providing credentials for git repo ${git.url} used by the Jenkins pipeline`,
        "jenkins.io/credentials-description":
          `Git credentials for ${git.url} stored in kubernetes secret`,
        "build.openshift.io/source-secret-match-uri-1": `${origin}/*`,
        "tekton.dev/git-0": origin,
      },
    },
    type: "kubernetes.io/basic-auth",
    stringData: { ...values, username, password },
  };
}

/** The options of `git-secret` and `gitops`: the same flags, and each its own positional. */
type GitSecretOptions = OptionsOf<{ flags: typeof GIT_SECRET.flags }> & {
  readonly name?: string | undefined;
  readonly gitUrl?: string | undefined;
};

/** The git credentials Secret of a namespace, and what it holds. */
export interface StoredCredentials {
  /** The Secret, when there is one. */
  readonly object: KubeObject | undefined;
  /** Its user name. */
  readonly username: string | undefined;
  /** Its password or token. */
  readonly password: string | undefined;
}

/** Reads the namespace's `git-credentials` Secret. */
export async function readStoredCredentials(
  client: KubeClient,
  namespace: string,
): Promise<StoredCredentials> {
  const object = await client.read(SECRETS, namespace, GIT_SECRET_NAME);
  const data = (object?.data ?? {}) as Record<string, string>;
  return { object, username: decode(data.username), password: decode(data.password) };
}

/** What {@linkcode writeRepository} writes. */
export interface RepositoryRegistration {
  readonly namespace: string;
  readonly git: GitUrl;
  readonly branch: string;
  /** The ConfigMap's name (default `<org>.<repo>[.<branch>]`). */
  readonly configName?: string | undefined;
  /** The git credentials Secret to write; absent: the stored one is kept. */
  readonly secret?: ReturnType<typeof gitSecret> | undefined;
  /** The Secret there is now, if any. */
  readonly stored?: KubeObject | undefined;
}

/**
 * Registers a repository in a namespace as igc did: the ConfigMap with its URL, host, org, repo,
 * branch and protocol, and the git credentials Secret (written when given, else reported as it is).
 */
export async function writeRepository(
  client: KubeClient,
  r: RepositoryRegistration,
): Promise<ApplyResult[]> {
  const { namespace, git, branch } = r;
  const results: ApplyResult[] = [];
  results.push(
    await applyObject(client, CONFIG_MAPS, {
      metadata: {
        name: r.configName ?? repoConfigName(git, branch),
        namespace,
        labels: { app: labelValue(git.repo), group: "pipeline", type: "git" },
      },
      data: {
        url: git.url,
        host: git.host,
        org: git.org,
        owner: git.org,
        repo: git.repo,
        branch,
        protocol: git.protocol,
      },
    }),
  );
  if (r.secret) {
    let existing = r.stored ?? null;
    if (existing && existing.type !== r.secret.type) {
      // The type of a Secret cannot change: replacing it means deleting it first.
      await client.delete(SECRETS, namespace, GIT_SECRET_NAME);
      existing = null;
    }
    results.push(await applyObject(client, SECRETS, r.secret, { existing }));
  } else if (r.stored) {
    results.push({
      outcome: "unchanged",
      type: SECRETS,
      namespace,
      name: GIT_SECRET_NAME,
      object: r.stored,
    });
  }
  return results;
}

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
    const branch = git.branch ??
      await askText(ctx.io, {
        message: "Provide the git branch that should be used:",
        missing: "The branch is not known: give the URL as URL#branch",
        defaultValue: "main",
      });
    return { git, branch };
  }
  const dir = resolveDir(ctx.io, options.workingDir);
  const git = parseGitUrl(await readRemoteUrl(dir));
  const branch = git.branch ?? await currentBranch(dir) ??
    await askText(ctx.io, {
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
    const replace = options.replace;
    const positional = gitops ? undefined : options.name;
    const configName = gitops ? GITOPS_CONFIG_NAME : positional && normalizeName(positional);
    if (configName !== undefined) {
      const problem = objectNameProblem(configName);
      if (problem) throw new UsageError(`Invalid name "${positional}": ${problem}`);
    }
    const valuesPath = options.values;
    const values = valuesPath ? await readValuesFile(resolveDir(ctx.io, valuesPath)) : {};
    const { git, branch } = await repository(options, ctx, gitops);

    using client = await connect(options, ctx);
    const namespace = namespaceOf(options.namespace, client);
    log.info(`Setting the git credentials in the ${namespace} namespace`);
    log.info(`  Project git repo: ${git.url}`);
    log.info(`  Branch: ${branch}`);
    await requireNamespace(client, namespace);

    const givenUser = options.gitUsername || git.username;
    const givenPass = options.gitPat || git.password;
    const { object: stored, username: storedUser, password: storedPass } =
      await readStoredCredentials(client, namespace);

    let secretBody: ReturnType<typeof gitSecret> | undefined;
    if (stored && !replace) {
      if (
        (givenUser !== undefined && givenUser !== storedUser) ||
        (givenPass !== undefined && givenPass !== storedPass)
      ) {
        throw new GitCredentialsConflictError(namespace, storedUser ?? "");
      }
      log.info(`Git credentials have already been stored for user: ${storedUser ?? "(none)"}`);
      if (valuesPath) log.warn(`--values is not stored: the secret exists (pass --replace)`);
    } else {
      const username = givenUser ?? (stored ? storedUser : undefined) ??
        await askText(ctx.io, {
          message: "Provide the git username:",
          missing: "The git username is missing: pass -u/--gitUsername",
        });
      const password = givenPass ?? (stored ? storedPass : undefined) ??
        await askText(ctx.io, {
          message: "Provide the git password or personal access token:",
          missing: "The git password or token is missing: pass -p/--gitPat",
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
