/** `toolkit yq prefix` in-process (yq v3's own output: `tests/cli_yq`). */
import assert from "node:assert/strict";
import { yq } from "../../tests/fakes/yq_commands.ts";

Deno.test("yq prefix puts a file's document under a path, or standard input's", async () => {
  const a = await yq(["prefix", "a.yaml", "top.x"], { "a.yaml": "a: 1\nb: {c: 2}\n" });
  assert.equal(a.status, 0, a.err);
  assert.equal(a.out, "top:\n  x:\n    a: 1\n    b: {c: 2}\n");
  const stdin = await yq(["prefix", "-", "top"], {}, "k: v\n");
  assert.equal(stdin.out, "top:\n  k: v\n");
});
