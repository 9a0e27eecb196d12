/** `toolkit yq validate` in-process (yq v3's own output: `tests/cli_yq`). */
import assert from "node:assert/strict";
import { yq } from "../../tests/fakes/yq_commands.ts";

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
