/**
 * The local clone of a repository, read by running `git` (through the {@linkcode ProcessRunner}
 * the caller passes: the CLI's context's): its remote URL and its checked-out branch.
 *
 * @module
 */
import { ToolkitError } from "../errors.ts";
import type { ProcessRunner } from "../process.ts";

/** Running git failed, or the directory is not a git repository. */
export class GitError extends ToolkitError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "GitError";
  }
}

/** Runs git in `dir` and returns its trimmed stdout; a failure throws {@linkcode GitError}. */
export async function runGit(
  processes: ProcessRunner,
  dir: string,
  args: readonly string[],
): Promise<string> {
  let output;
  try {
    output = await processes.output("git", {
      args: ["-C", dir, ...args],
      env: { GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" },
    });
  } catch (error) {
    throw new GitError(`Cannot run git: ${error instanceof Error ? error.message : error}`, {
      cause: error,
    });
  }
  const stderr = new TextDecoder().decode(output.stderr).trim();
  if (!output.success) {
    if (/not a git repository/i.test(stderr)) {
      throw new GitError(
        `Cannot read the git repository in "${dir}": not a git repository (run it in a clone, or name one with -d/--workingDir)`,
      );
    }
    if (/cannot change to/i.test(stderr)) {
      throw new GitError(`Cannot read the git repository in "${dir}": no such directory`);
    }
    throw new GitError(
      `Cannot run "git ${args.join(" ")}" in "${dir}": ${stderr || `exit ${output.code}`}`,
    );
  }
  return new TextDecoder().decode(output.stdout).trim();
}

/** The push URL of `remote` in the repository at `dir`. */
export async function readRemoteUrl(
  processes: ProcessRunner,
  dir: string,
  remote = "origin",
): Promise<string> {
  await runGit(processes, dir, ["rev-parse", "--git-dir"]);
  try {
    return await runGit(processes, dir, ["remote", "get-url", "--push", remote]);
  } catch (error) {
    if (error instanceof GitError && /no such remote/i.test(error.message)) {
      throw new GitError(`Cannot read git remote "${remote}" in "${dir}": there is no such remote`);
    }
    throw error;
  }
}

/** The checked-out branch at `dir`, or undefined when HEAD is detached. */
export async function currentBranch(
  processes: ProcessRunner,
  dir: string,
): Promise<string | undefined> {
  try {
    return (await runGit(processes, dir, ["symbolic-ref", "--short", "-q", "HEAD"])) || undefined;
  } catch (error) {
    if (error instanceof GitError && /not a git repository|no such directory/.test(error.message)) {
      throw error;
    }
    return undefined;
  }
}
