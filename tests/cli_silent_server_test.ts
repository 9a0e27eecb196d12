/**
 * The CLI as users run it (a process), against an API server that accepts the connection and
 * never answers: with no flag it gives up after the default `--request-timeout` (30 s), exits 1
 * and names the server and the flag; Ctrl-C (SIGINT) while it waits exits 130.
 */
import assert from "node:assert/strict";
import { kubeconfigFor, silentServer } from "./fakes/silent_server.ts";
import { tempDir } from "./env/files.ts";

const entry = new URL("../cli/main.ts", import.meta.url).pathname;

function toolkit(args: string[], env: Record<string, string>): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", entry, ...args],
    env: { ...env, NO_COLOR: "1" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

Deno.test("endpoints gives up on a silent API server after the default 30 s", async () => {
  await using server = silentServer();
  await using dir = await tempDir("toolkit-silent-");
  await Deno.writeTextFile(`${dir.path}/kubeconfig`, kubeconfigFor(`https://${server.host}`));
  const started = performance.now();
  const output = await toolkit(["endpoints", "-n", "dev"], {
    KUBECONFIG: `${dir.path}/kubeconfig`,
    HOME: dir.path,
  }).output();
  const seconds = (performance.now() - started) / 1000;
  const err = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 1, err);
  assert.ok(seconds >= 29 && seconds < 90, `gave up after ${seconds} s`);
  assert.match(err, new RegExp(`no answer from https://${server.host} within 30 s`));
  assert.match(err, /--request-timeout sets how long to wait/);
  assert.equal(new TextDecoder().decode(output.stdout), "");
});

Deno.test("Ctrl-C while a command waits for a server exits 130", async () => {
  await using server = silentServer();
  await using dir = await tempDir("toolkit-silent-");
  await Deno.writeTextFile(`${dir.path}/kubeconfig`, kubeconfigFor(`https://${server.host}`));
  const child = toolkit(["sync", "dev"], { KUBECONFIG: `${dir.path}/kubeconfig`, HOME: dir.path });
  // Interrupted once the command is waiting on the server.
  for (let i = 0; i < 200 && server.accepted() === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(server.accepted() > 0, "the command reached the server");
  child.kill("SIGINT");
  const output = await child.output();
  assert.equal(output.code, 130);
});
