/**
 * The entry of `deno task toolkit`: the CLI run from source. `deno task` runs its command in the
 * directory of `deno.json`, the checkout, but a command acts where the user is: `keygen` writes
 * the keys there, `gitops` and `git-secret` read that directory's git remote, relative paths are
 * relative to it. `deno task` (as npm) says where it was started in `INIT_CWD`, so the CLI moves
 * there first. (As npm's, a task runner keeps the `INIT_CWD` of a task runner around it: `deno
 * task toolkit` run from another task or npm script acts where the outermost one was started.)
 *
 * @module
 */
import { main } from "./main.ts";

/** The directory the user ran `deno task toolkit` from, when the task runner says. */
export function callerDirectory(
  env: { get(name: string): string | undefined },
): string | undefined {
  const dir = env.get("INIT_CWD");
  return dir ? dir : undefined;
}

if (import.meta.main) {
  const dir = callerDirectory(Deno.env);
  if (dir !== undefined) Deno.chdir(dir);
  await main("toolkit");
}
