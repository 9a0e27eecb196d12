/**
 * `deno task toolkit` (the CLI from source, as README runs it) acts in the directory it is run
 * from, not in the checkout where `deno task` runs its command: keygen writes the keys there, and
 * the git commands read that directory's remote.
 */
import assert from "node:assert/strict";
import { tempDir } from "./env/files.ts";
import { gitRepo } from "./env/git_repo.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** Runs `deno task toolkit` in `cwd`, as a user's shell would (no task runner around it). */
async function task(cwd: string, args: string[]) {
  // A task runner around this one (`deno task test`) has set INIT_CWD to where it was started,
  // and a task runner keeps what an outer one set: a user's shell sets none.
  const env = Deno.env.toObject();
  delete env.INIT_CWD;
  const output = await new Deno.Command(`${ROOT}tools/deno`, {
    args: ["task", "-q", "--config", `${ROOT}deno.json`, "toolkit", ...args],
    cwd,
    clearEnv: true,
    env: { ...env, NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: output.code, out: decode(output.stdout), err: decode(output.stderr) };
}

Deno.test("deno task toolkit writes keygen's keys in the caller's directory", async () => {
  await using dir = await tempDir("toolkit-from-source-");
  await Deno.writeTextFile(`${dir.path}/pw`, "secret\n");
  const r = await task(dir.path, [
    "image-security",
    "keygen",
    "--type",
    "ecdsa-p256",
    "--passphrase-file",
    "pw",
  ]);
  assert.equal(r.code, 0, r.err);
  assert.ok((await Deno.stat(`${dir.path}/cosign.key`)).isFile);
  assert.ok((await Deno.stat(`${dir.path}/cosign.pub`)).isFile);
  await assert.rejects(Deno.stat(`${ROOT}cosign.key`), Deno.errors.NotFound, "not in the checkout");
});

Deno.test("deno task toolkit reads the git remote of the caller's directory", async () => {
  await using dir = await tempDir("toolkit-from-source-");
  const repo = await gitRepo(`${dir.path}/app`, "https://github.com/me/my-app.git");
  const r = await task(repo, ["git", "--print"]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out.trim(), "https://github.com/me/my-app");
});
