/**
 * What `toolkit pipeline` takes from its user before it touches anything: the kind of pipeline
 * (`--tekton`/`--jenkins`, else a menu on a terminal), the `-p name=value` parameters, and the git
 * credentials. Credentials follow one rule: what the command line says (`-u` and the token of
 * `--git-token-file`, `$TOOLKIT_GIT_TOKEN`, `-P -` or `-P`, then the
 * URL's own `user:token@`) wins over what is stored in the namespace's `git-credentials` Secret,
 * and a prompt asks (on a terminal only) for what is still missing; `-g` asks again instead of
 * using the stored ones. Nothing stored ever silently replaces a value given on the command line.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { UsageError } from "../../lib/errors.ts";

/** The kinds of pipeline `pipeline` registers. */
export type PipelineKind = "tekton" | "jenkins";

/** `--tekton` or `--jenkins`; neither: a menu on a terminal, else a usage error. */
export async function pipelineKind(
  flags: { readonly tekton: boolean; readonly jenkins: boolean },
  ctx: Pick<CommandContext, "io" | "terminal">,
): Promise<PipelineKind> {
  if (flags.tekton && flags.jenkins) {
    throw new UsageError("--tekton and --jenkins exclude each other: give one");
  }
  if (flags.tekton) return "tekton";
  if (flags.jenkins) return "jenkins";
  if (!ctx.io.interactive) {
    throw new UsageError(
      "Choose the kind of pipeline: pass --tekton or --jenkins (there is no terminal to ask on)",
    );
  }
  return await ctx.terminal.askChoice<PipelineKind>(
    "Select the type of pipeline that should be run?",
    [
      { value: "tekton", label: "Tekton" },
      { value: "jenkins", label: "Jenkins" },
    ],
  );
}

/**
 * The `-p name=value` parameters, split at the first `=` (`a=b=c` sets `a` to `b=c`; igc split
 * at the last). An entry without `=` or with an empty name is a usage error; a name given twice
 * keeps its last value.
 */
export function parseParams(entries: readonly string[]): Map<string, string> {
  const params = new Map<string, string>();
  for (const entry of entries) {
    const at = entry.indexOf("=");
    if (at <= 0) {
      throw new UsageError(`Cannot use -p "${entry}": write it as name=value`);
    }
    params.set(entry.slice(0, at), entry.slice(at + 1));
  }
  return params;
}

/** Git credentials and where each came from. */
export interface GitCredentials {
  readonly username: string;
  readonly password: string;
  /** Where the credentials came from, for messages (never the values). */
  readonly source: "command line" | "stored Secret" | "prompt";
}

/** What {@linkcode resolveGitCredentials} chooses from. */
export interface CredentialSources {
  /** `-u`, and the token of `-P` or its file, environment or stdin (`cli/secret_flag.ts`). */
  readonly flags: {
    readonly username?: string | undefined;
    readonly password?: string | undefined;
  };
  /** The `user:token@` of the repository URL. */
  readonly url: { readonly username?: string | undefined; readonly password?: string | undefined };
  /** The namespace's `git-credentials` Secret. */
  readonly stored: {
    readonly username?: string | undefined;
    readonly password?: string | undefined;
  };
  /** `-g`: ask again rather than use the stored credentials. */
  readonly replace: boolean;
}

/**
 * The credentials to use: the command line (flags, then the URL) first, then the stored Secret
 * (unless `replace`), then a prompt on a terminal; without a terminal, a missing value is a usage
 * error that names the flag.
 */
export async function resolveGitCredentials(
  sources: CredentialSources,
  ctx: Pick<CommandContext, "terminal">,
): Promise<GitCredentials> {
  const { flags, url, stored, replace } = sources;
  const given = (key: "username" | "password") => flags[key] || url[key] || undefined;
  const kept = (key: "username" | "password") => (replace ? undefined : stored[key] || undefined);
  let asked = false;
  const username = given("username") ?? kept("username") ??
    (asked = true,
      await ctx.terminal.askText({
        message: "Provide the git username:",
        missing: "The git username is missing: pass -u/--username",
        ...(stored.username ? { defaultValue: stored.username } : {}),
      }));
  const password = given("password") ?? kept("password") ??
    (asked = true,
      await ctx.terminal.askText({
        message: "Provide the git password or personal access token:",
        missing:
          "The git password or personal access token is missing: pass --git-token-file FILE, set TOOLKIT_GIT_TOKEN or give -P - (stdin)",
        secret: true,
      }));
  const source = asked
    ? "prompt"
    : given("username") !== undefined || given("password") !== undefined
    ? "command line"
    : "stored Secret";
  return { username, password, source };
}
