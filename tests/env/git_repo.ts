/**
 * Real git repositories for tests: `git` run in a directory with a fixed author, and a fresh
 * repository on a branch with an `origin` remote.
 *
 * @module
 */

/** Runs git in `dir` and fails the test when it fails. */
export async function git(dir: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-C", dir, ...args],
    env: {
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

/** A real git repository in `dir` on `branch`, with `origin` set to `remote`. */
export async function gitRepo(
  dir: string,
  remote: string | undefined,
  branch = "main",
): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  await git(dir, "init", "-q", "-b", branch);
  if (remote) await git(dir, "remote", "add", "origin", remote);
  return dir;
}
