/** `toolkit completion` in-process: the bash and zsh scripts, and the shells it refuses. */
import assert from "node:assert/strict";
import { runCli } from "./app.ts";
import { bufferedIO } from "./io.ts";
import { commandContext } from "./context.ts";

async function run(args: string[], programName = "toolkit") {
  const io = bufferedIO();
  const status = await runCli(args, commandContext(io, programName));
  return { status, out: io.out(), err: io.err() };
}

Deno.test("runCli() prints bash and zsh completion scripts", async () => {
  const bash = await run(["completion", "bash"]);
  assert.match(bash.out, /complete -o default -F _toolkit_complete toolkit/);
  const zsh = await run(["completion", "zsh"]);
  assert.match(zsh.out, /^#compdef toolkit/);
  assert.equal((await run(["completion", "fish"])).status, 2);
});

Deno.test("completion --help works and completion takes bash or zsh only", async () => {
  const help = await run(["completion", "--help"]);
  assert.equal(help.status, 0);
  assert.match(help.out, /^toolkit completion \[shell\]/);
  const bad = await run(["completion", "fish"]);
  assert.equal(bad.status, 2);
  assert.match(bad.err, /<shell>|\[shell\] must be one of bash, zsh, not "fish"/);
  assert.match(bad.err, /Run 'toolkit completion --help' for usage/);
});
