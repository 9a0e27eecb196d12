/**
 * `toolkit git` in-process: the web URL of a clone's remote (read with git through the command
 * context's process runner), printed with `--print`. Opening the browser:
 * `tests/cli_dev/git_test.ts`.
 */
import assert from "node:assert/strict";
import { fakeCli } from "../../tests/fakes/cli.ts";
import { gitRepo } from "../../tests/env/git_repo.ts";

Deno.test("git --print prints the web URL of the remote, and names a directory that is no clone", async () => {
  await using cli = await fakeCli();
  const repo = await gitRepo(`${cli.dir}/repo`, "git@github.com:org/app.git");
  const r = await cli.run(["git", "--print", "-d", repo]);
  assert.equal(r.status, 0, r.err);
  assert.equal(r.out, "https://github.com/org/app\n");
  await Deno.mkdir(`${cli.dir}/plain`);
  const plain = await cli.run(["git", "--print", "-d", `${cli.dir}/plain`]);
  assert.equal(plain.status, 1);
  assert.match(
    plain.err,
    /not a git repository \(run it in a clone, or name one with -d\/--workingDir\)/,
  );
});
