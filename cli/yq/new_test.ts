import assert from "node:assert/strict";
import { bufferedIO } from "../io.ts";
import { run } from "./new.ts";
import { commandContext } from "../context.ts";
import { bindOptions } from "../command.ts";
import { YQ_NEW } from "./new_command.ts";

const runNew = bindOptions(YQ_NEW, run);

async function created(path: string, value: string, tag?: "!!str"): Promise<string> {
  const io = bufferedIO();
  await runNew({ path, value, tag }, commandContext(io));
  return io.out();
}

Deno.test("yq new prints a document holding the value at the path, as typed", async () => {
  assert.equal(await created("a.b[0].c", "3.0"), "a:\n  b:\n    - c: 3.0\n");
  assert.equal(await created("version", "1.10", "!!str"), 'version: "1.10"\n');
  assert.equal(await created('"a.b"[name==x].v', "on"), "a.b:\n  - name: x\n    v: on\n");
});

Deno.test("yq new refuses a path that makes nothing, naming where it stops", async () => {
  const cases: [string, string][] = [
    ["a.*.b", '"a.*"'],
    ["a.**", '"a.**"'],
    ["a[name==x*].v", '"a[name==x*]"'],
    ["a[3]", '"a[3]"'],
  ];
  for (const [path, where] of cases) {
    await assert.rejects(
      () => created(path, "1"),
      (e: Error) => e.message.includes(`(at ${where})`),
    );
  }
});
