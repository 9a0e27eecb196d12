/**
 * `toolkit git [remote]`: opens the web page of the repository a git remote (default `origin`)
 * points at, in the repository of `-d` (default the current directory): `git@github.com:org/repo.git`
 * and `https://user:token@github.com/org/repo.git` both open `https://github.com/org/repo`,
 * credentials stripped. `--print` (or no browser) prints the URL instead.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { GIT } from "./git_command.ts";
import { resolveDir } from "./common.ts";
import { parseGitUrl, readRemoteUrl } from "../../lib/githost/mod.ts";
import { openUrl } from "./browser.ts";

/** Runs `git`. */
export async function run(
  options: OptionsOf<typeof GIT>,
  ctx: CommandContext,
): Promise<void> {
  const remote = options.remote;
  const dir = resolveDir(ctx.io, options.workingDir);
  const parsed = parseGitUrl(await readRemoteUrl(ctx.processes, dir, remote));
  await openUrl(ctx, parsed.url, { print: options.print, label: "git repo" });
}
