/** `toolkit yq compare` in-process (yq v3's own output: `tests/cli_yq`). */
import assert from "node:assert/strict";
import { yq } from "../../tests/fakes/yq_commands.ts";

const FILES = { "a.yaml": "a: 1\nb: {c: 2}\n", "b.yaml": "a: 1\nb: {c: 3}\n" };

Deno.test("yq compare prints the differences and exits 1, nothing and 0 when they agree", async () => {
  const differ = await yq(["compare", "a.yaml", "b.yaml"], FILES);
  assert.equal(differ.status, 1);
  assert.equal(differ.out, " a: 1\n-b: {c: 2}\n+b: {c: 3}\n");
  assert.equal(differ.err, "", "a difference is no error");
  const same = await yq(["compare", "a.yaml", "a.yaml"], FILES);
  assert.deepEqual([same.status, same.out], [0, ""]);
  const path = await yq(["compare", "a.yaml", "b.yaml", "a"], FILES);
  assert.deepEqual([path.status, path.out], [0, ""], "only what the path matches is compared");
});
