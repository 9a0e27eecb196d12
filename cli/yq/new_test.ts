import assert from "node:assert/strict";
import { bufferedIO } from "../io.ts";
import { run } from "./new.ts";
import { commandContext } from "../context.ts";

async function created(path: string, value: string, tag?: "!!str"): Promise<string> {
  const io = bufferedIO();
  await run({ path, value, tag, verbose: false, quiet: false }, commandContext(io));
  return io.out();
}

Deno.test("yq new prints a document holding the value at the path, as typed", async () => {
  assert.equal(await created("a.b[0].c", "3.0"), "a:\n  b:\n    - c: 3.0\n");
  assert.equal(await created("version", "1.10", "!!str"), 'version: "1.10"\n');
  assert.equal(await created('"a.b"[name==x].v', "on"), "a.b:\n  - name: x\n    v: on\n");
});
