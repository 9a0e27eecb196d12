/** `toolkit yq prefix` in-process (yq v3's own output: `tests/cli_yq`). */
import assert from "node:assert/strict";
import { runCli } from "../app.ts";
import { bufferedIO } from "../io.ts";
import { commandContext } from "../context.ts";

/** Runs `toolkit yq ARGS` in a temp directory holding `files`, with `stdin`. */
async function yq(args: string[], files: Record<string, string> = {}, stdin = "") {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-yq-" });
  try {
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/${name}`, text);
    }
    const io = bufferedIO({ cwd: dir, stdin });
    const status = await runCli(["yq", ...args], commandContext(io));
    return { status, out: io.out(), err: io.err().replaceAll(dir, "D") };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("yq prefix puts a file's document under a path, or standard input's", async () => {
  const a = await yq(["prefix", "a.yaml", "top.x"], { "a.yaml": "a: 1\nb: {c: 2}\n" });
  assert.equal(a.status, 0, a.err);
  assert.equal(a.out, "top:\n  x:\n    a: 1\n    b: {c: 2}\n");
  const stdin = await yq(["prefix", "-", "top"], {}, "k: v\n");
  assert.equal(stdin.out, "top:\n  k: v\n");
});
