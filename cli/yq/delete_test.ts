import assert from "node:assert/strict";
import { bufferedIO } from "../io.ts";
import { run } from "./delete.ts";
import { commandContext } from "../context.ts";
import { bindOptions } from "../command.ts";
import { YQ_DELETE } from "./delete_command.ts";

const runDelete = bindOptions(YQ_DELETE, run);

async function remove(stdin: string, path: string, more: { doc?: string; verbose?: boolean } = {}) {
  const io = bufferedIO({ stdin });
  await runDelete({ file: "-", path, ...more }, commandContext(io));
  return { out: io.out(), err: io.err() };
}

Deno.test("yq d deletes the matches of the chosen documents and keeps the rest", async () => {
  const text = "# c\na: 1\nb: 2 # two\n---\na: 3\n";
  assert.equal((await remove(text, "a")).out, "# c\nb: 2 # two\n---\na: 3\n");
  assert.equal((await remove(text, "a", { doc: "*" })).out, "# c\nb: 2 # two\n---\n{}\n");
  assert.equal((await remove(text, "zz")).out, text);
  assert.match((await remove(text, "zz")).err, /path "zz" matches nothing .*; nothing was deleted/);
  assert.equal((await remove(text, "b", { verbose: true })).err, "deleted: b\n");
  assert.equal((await remove("", "a")).out, "");
});
