/**
 * `toolkit git [remote]`: opens the web page of the repository a git remote (default `origin`)
 * points at, in the repository of `-d` (default the current directory): `git@github.com:org/repo.git`
 * and `https://user:token@github.com/org/repo.git` both open `https://github.com/org/repo`,
 * credentials stripped. `--print` (or no browser) prints the URL instead.
 *
 * @module
 */
import type { CommandArgs, CommandContext } from "../command.ts";
import { flagArg, resolveDir, stringArg } from "./common.ts";
import { parseGitUrl, readRemoteUrl } from "./git_remote.ts";
import { openUrl } from "./browser.ts";

/** Runs `git`. */
export async function run(args: CommandArgs, ctx: CommandContext): Promise<void> {
  const remote = stringArg(args, "remote") ?? "origin";
  const dir = resolveDir(ctx.io, stringArg(args, "workingDir"));
  const parsed = parseGitUrl(await readRemoteUrl(dir, remote));
  await openUrl(ctx.io, parsed.url, { print: flagArg(args, "print"), label: "git repo" });
}
