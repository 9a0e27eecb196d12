/** `toolkit yq validate` in-process (yq v3's own output: `tests/cli_yq`). */
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

Deno.test("yq validate is silent on YAML, and names the line of what is not, or the path that matches nothing", async () => {
  const files = { "a.yaml": "a: 1\n", "bad.yaml": "a: [1\n" };
  const good = await yq(["validate", "a.yaml"], files);
  assert.deepEqual([good.status, good.out, good.err], [0, "", ""]);
  const bad = await yq(["validate", "bad.yaml"], files);
  assert.equal(bad.status, 1);
  assert.match(
    bad.err,
    /Cannot read "bad\.yaml": invalid YAML in document 1 at line 2, column 1/,
  );
  const path = await yq(["validate", "a.yaml", "zz"], files);
  assert.equal(path.status, 1);
  assert.match(path.err, /path "zz" matches nothing in "a\.yaml"/);
});
