import assert from "node:assert/strict";
import { checkLayering, findCycles, type Import, projectFiles, readImports } from "./layering.ts";

const imp = (from: string, to: string, kind: Import["kind"] = "static"): Import => ({
  from,
  to,
  kind,
});

function rules(imports: Import[]): string[] {
  return checkLayering(imports).map((v) => `${v.rule}: ${v.message}`);
}

Deno.test("findCycles() finds each cycle once, through type-only and dynamic imports too", () => {
  const paths = (imports: Import[]) => findCycles(imports).map((c) => c.path);
  assert.deepEqual(paths([imp("a.ts", "b.ts"), imp("b.ts", "c.ts")]), []);
  assert.deepEqual(
    paths([imp("a.ts", "b.ts"), imp("b.ts", "a.ts", "type"), imp("c.ts", "a.ts")]),
    [["a.ts", "b.ts", "a.ts"]],
  );
  assert.deepEqual(paths([imp("x.ts", "x.ts", "dynamic")]), [["x.ts", "x.ts"]]);
  assert.deepEqual(paths([imp("a.ts", "b.ts"), imp("b.ts", "c.ts"), imp("c.ts", "a.ts")]), [
    ["a.ts", "b.ts", "c.ts", "a.ts"],
  ]);
  // A star of cycles through one module is one set of modules; the message says how many.
  const star = [imp("hub.ts", "a.ts", "dynamic"), imp("a.ts", "hub.ts", "type")];
  star.push(imp("hub.ts", "b.ts", "dynamic"), imp("b.ts", "hub.ts", "type"));
  assert.deepEqual(findCycles(star).map((c) => c.modules), [["a.ts", "b.ts", "hub.ts"]]);
  assert.match(checkLayering(star)[0]!.message, /^import cycle: .* \(3 modules in all\)$/);
  // A long chain does not overflow the stack.
  const chain = Array.from({ length: 20_000 }, (_, i) => imp(`m${i}.ts`, `m${i + 1}.ts`));
  assert.deepEqual(
    findCycles([...chain, imp("m20000.ts", "m0.ts")]).map((c) => c.path.length),
    [20_002],
  );
});

Deno.test("checkLayering() accepts the layering as it should be", () => {
  assert.deepEqual(
    rules([
      imp("mod.ts", "lib/mod.ts"),
      imp("lib/mod.ts", "lib/kube/mod.ts"),
      imp("lib/kube/client.ts", "lib/kube/errors.ts"),
      imp("lib/install/apply.ts", "lib/kube/mod.ts"),
      imp("lib/install/apply.ts", "lib/errors.ts"),
      imp("cli/app.ts", "cli/commands.ts"),
      imp("cli/commands.ts", "cli/dev/sync_command.ts"),
      imp("cli/commands.ts", "cli/dev/sync.ts", "dynamic"),
      imp("cli/dev/sync.ts", "cli/dev/sync_command.ts", "type"),
      imp("cli/dev/sync.ts", "cli/dev/common.ts"),
      imp("cli/dev/sync.ts", "lib/kube/mod.ts"),
      imp("webhook/main.ts", "lib/admission/mod.ts"),
      // Tests may reach inside and use test machinery.
      imp("lib/kube/client_test.ts", "tests/fakes/kube_transport.ts"),
      imp("cli/dev/sync_test.ts", "cli/dev/sync.ts"),
      imp("tests/admission/_fuzz_harness.ts", "lib/admission/evaluate.ts"),
      imp("tests/admission/_fuzz_harness.ts", "webhook/handler.ts"),
    ]),
    [],
  );
});

Deno.test("checkLayering() names what lib/ imports from above it", () => {
  assert.deepEqual(rules([imp("lib/admission/x.ts", "webhook/handler.ts")]), [
    "lib-upward: lib/admission/x.ts imports webhook/handler.ts: lib/ is below webhook/",
  ]);
  assert.deepEqual(rules([imp("lib/errors.ts", "cli/io.ts", "type")]), [
    "lib-upward: lib/errors.ts imports (type) cli/io.ts: lib/ is below cli/",
  ]);
});

Deno.test("checkLayering() refuses test machinery in production code", () => {
  assert.deepEqual(rules([imp("lib/registry/x.ts", "tests/fakes/loopback_server.ts")]), [
    "test-machinery: lib/registry/x.ts imports tests/fakes/loopback_server.ts: production code imports test machinery",
  ]);
  assert.equal(rules([imp("cli/app.ts", "cli/app_test.ts", "dynamic")]).length, 1);
  assert.equal(rules([imp("tools/compile.ts", "tests/env/mod.ts")]).length, 1);
  assert.equal(rules([imp("mod.ts", "lib/signature/verify_bench.ts")]).length, 1);
  // A bench inside a lib/ folder is both test machinery and behind the folder's mod.ts.
  assert.equal(rules([imp("cli/app.ts", "lib/signature/verify_bench.ts")]).length, 2);
});

Deno.test("checkLayering() keeps lib/ folders behind their mod.ts", () => {
  assert.deepEqual(rules([imp("lib/tekton/copy.ts", "lib/kube/apply.ts")]), [
    "mod-boundary: lib/tekton/copy.ts imports lib/kube/apply.ts: use lib/kube/mod.ts",
  ]);
  assert.deepEqual(rules([imp("cli/dev/sync.ts", "lib/kube/resources.ts", "type")]), [
    "mod-boundary: cli/dev/sync.ts imports (type) lib/kube/resources.ts: use lib/kube/mod.ts",
  ]);
  assert.equal(rules([imp("webhook/main.ts", "lib/admission/evaluate.ts")]).length, 1);
});

Deno.test("checkLayering() keeps the command list a list", () => {
  const list = [
    imp("cli/app.ts", "cli/commands.ts"),
    imp("cli/commands.ts", "cli/dev/console.ts", "dynamic"),
    imp("cli/commands.ts", "cli/dev/pipeline.ts", "dynamic"),
  ];
  assert.deepEqual(rules([...list, imp("cli/dev/pipeline.ts", "cli/dev/console.ts")]), [
    "command-list: cli/dev/pipeline.ts imports cli/dev/console.ts, a command's implementation: move what they share to a shared module or lib/",
  ]);
  assert.deepEqual(rules([...list, imp("cli/dev/sync.ts", "cli/commands.ts", "type")]), [
    "command-list: cli/dev/sync.ts imports (type) cli/commands.ts: only cli/app.ts reads the command list",
  ]);
});

Deno.test("readImports() reads static, type-only and dynamic imports with deno info", async () => {
  const root = await Deno.makeTempDir({ prefix: "layering_test_" });
  try {
    await Deno.writeTextFile(`${root}/deno.json`, "{}\n");
    await Deno.mkdir(`${root}/lib/kube`, { recursive: true });
    await Deno.mkdir(`${root}/cli`, { recursive: true });
    await Deno.writeTextFile(`${root}/lib/kube/mod.ts`, 'export * from "./client.ts";\n');
    await Deno.writeTextFile(
      `${root}/lib/kube/client.ts`,
      'import type { X } from "./types.ts";\nexport const c = 1 as unknown as X;\n',
    );
    await Deno.writeTextFile(`${root}/lib/kube/types.ts`, "export type X = number;\n");
    await Deno.writeTextFile(
      `${root}/cli/app.ts`,
      'import { c } from "../lib/kube/mod.ts";\nexport const load = () => import("./run.ts");\nexport { c };\n',
    );
    await Deno.writeTextFile(`${root}/cli/run.ts`, 'import "../lib/kube/client.ts";\n');
    const files = await projectFiles(root);
    assert.deepEqual(files, [
      "cli/app.ts",
      "cli/run.ts",
      "lib/kube/client.ts",
      "lib/kube/mod.ts",
      "lib/kube/types.ts",
    ]);
    const imports = await readImports(root, files);
    const key = (i: Import) => `${i.from} ${i.kind} ${i.to}`;
    assert.deepEqual(imports.map(key).sort(), [
      "cli/app.ts dynamic cli/run.ts",
      "cli/app.ts static lib/kube/mod.ts",
      "cli/run.ts static lib/kube/client.ts",
      "lib/kube/client.ts type lib/kube/types.ts",
      "lib/kube/mod.ts static lib/kube/client.ts",
    ]);
    assert.deepEqual(rules(imports), [
      "mod-boundary: cli/run.ts imports lib/kube/client.ts: use lib/kube/mod.ts",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("checkLayering() keeps signing code out of the webhook's import graph", () => {
  assert.deepEqual(
    rules([
      imp("webhook/main.ts", "webhook/handler.ts"),
      imp("webhook/handler.ts", "lib/mod.ts"),
      imp("webhook/main.ts", "lib/admission/mod.ts"),
      imp("lib/admission/mod.ts", "lib/admission/verifier.ts"),
      imp("lib/admission/verifier.ts", "lib/vault/mod.ts", "type"),
      imp("lib/vault/mod.ts", "lib/vault/key_protect.ts"),
      // The CLI signs: it may.
      imp("cli/image_security/sign.ts", "lib/signing/mod.ts"),
    ]),
    [
      "webhook-signing: webhook/main.ts reaches lib/mod.ts, signing code: webhook/main.ts -> webhook/handler.ts -> lib/mod.ts (import a narrower module)",
      "webhook-signing: webhook/main.ts reaches lib/vault/mod.ts, signing code: webhook/main.ts -> lib/admission/mod.ts -> lib/admission/verifier.ts -> lib/vault/mod.ts (import a narrower module)",
    ],
  );
  // A dynamic import is in the process too.
  assert.deepEqual(
    rules([imp("webhook/main.ts", "lib/tekton/mod.ts", "dynamic")]).map((r) => r.split(":")[0]),
    ["webhook-signing"],
  );
});
