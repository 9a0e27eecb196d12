import assert from "node:assert/strict";
import { checkCliSeams, readCliSeams, stripComments } from "./cli_seams.ts";
import { projectFiles } from "./layering.ts";

const rules = (path: string, text: string) => checkCliSeams([{ path, text }]).map((v) => v.message);

Deno.test("checkCliSeams() refuses a command that reaches the outside world itself", () => {
  const cases: [string, RegExp][] = [
    ["const r = await fetch(url);", /the global fetch/],
    ["const r = await globalThis.fetch(url);", /the global fetch/],
    ["const f = globalThis.fetch;", /the global fetch/],
    ['await new Deno.Command("gpg", { args }).output();', /Deno\.Command/],
    ['Deno.run({ cmd: ["git"] });', /Deno\.run/],
    ['import { spawn } from "node:child_process";', /child_process/],
    ["const at = Date.now();", /Date\.now\(\)/],
    ["const created = new Date();", /new Date\(\)/],
    ["using client = createRegistryClient({ timeoutMs });", /registry client/],
    ['import { createRegistryClient as connect } from "../../lib/registry/mod.ts";', /registry/],
    ["  createRegistryClient as connect,", /registry client/],
    ["const Command = Deno.Command;", /Deno\.Command/],
    ["const f = fetch;", /the global fetch/],
    ["connect({ fetch: fetch, timeoutMs });", /the global fetch/],
    ["const f = options.fetch ?? fetch;", /the global fetch/],
  ];
  for (const [line, says] of cases) {
    const found = rules("cli/dev/sync.ts", `const a = 1;\n${line}\n`);
    assert.equal(found.length, 1, line);
    assert.match(found[0]!, says, line);
    assert.match(found[0]!, /^cli\/dev\/sync\.ts:2 /, line);
  }
});

Deno.test("checkCliSeams() accepts the context's seams, comments, tests and the wiring file", () => {
  const seams = [
    "const r = await ctx.fetch(url);",
    "const r = await networkFetch(ctx, options)(url);",
    'await ctx.processes.output("gpg", { args });',
    "const created = new Date(ctx.clock.now());",
    "const client = await ctx.registry({ timeoutMs });",
    "const client = connect({ fetch: ctx.fetch, timeoutMs });",
    "const { fetch } = ctx;",
    "const f = fetcher ?? fetchAll;",
    "// the global fetch(url) is not used here; nor Date.now()",
    "/** Like `new Date()`, from `ctx.clock`. */",
    'const text = "see https://example.com // not a comment"; const d = new Date(text);',
  ].join("\n");
  assert.deepEqual(rules("cli/dev/sync.ts", seams), []);
  const global = "const r = await fetch(url); const now = Date.now();";
  assert.deepEqual(rules("cli/context.ts", global), []);
  assert.deepEqual(rules("cli/dev/sync_test.ts", global), []);
  assert.deepEqual(rules("lib/kube/client.ts", global), []);
});

Deno.test("stripComments() keeps strings and lines", () => {
  assert.equal(stripComments('a("//x"); // c\n/* b\n */ d'), 'a("//x"); \n    \n    d');
});

Deno.test("the CLI's source keeps its seams", async () => {
  const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  assert.deepEqual(await readCliSeams(root, await projectFiles(root)), []);
});
