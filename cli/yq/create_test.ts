import assert from "node:assert/strict";
import { parseYamlStream } from "../../lib/yaml.ts";
import { createMissing } from "./create.ts";
import { applyEdits } from "./edits.ts";
import { DocumentEditor } from "./editor.ts";
import { locate, PathTargetError } from "./locate.ts";
import { parsePath } from "./path.ts";
import { detectStyle } from "./render.ts";

function create(text: string, path: string, value: string): string {
  const doc = parseYamlStream(text)[0]!;
  const editor = new DocumentEditor(text, doc, detectStyle(text, doc));
  const { found, missing } = locate(doc, parsePath(path), "write");
  assert.equal(found.length, 0);
  for (const m of missing) createMissing(editor, m, { text: value });
  const result = applyEdits(text, editor.edits);
  parseYamlStream(result);
  return result;
}

Deno.test("createMissing() creates the keys a path lacks (igc did nothing)", () => {
  assert.equal(create("a: 1 # one\n", "x.y.z", "1.10"), "a: 1 # one\nx:\n  y:\n    z: 1.10\n");
  assert.equal(create("a:\n  b: 1\n", "a.c.d", "v"), "a:\n  b: 1\n  c:\n    d: v\n");
  assert.equal(create("a: ~\n", "a.b", "v"), "a:\n  b: v\n");
  assert.equal(create("a: {}\n", "a.b.c", "v"), "a:\n  b:\n    c: v\n");
  assert.equal(create("a: {x: 1}\n", "a.b.c", "v, w"), 'a: {x: 1, b: {c: "v, w"}}\n');
});

Deno.test("createMissing() creates sequence items: [0] and [+] of a new one, [n] at the end", () => {
  assert.equal(create("a: 1\n", "l[0].name", "x"), "a: 1\nl:\n  - name: x\n");
  assert.equal(create("l:\n- a\n", "l[+]", "b"), "l:\n- a\n- b\n");
  assert.equal(create("l:\n- a\n", "l[1]", "b"), "l:\n- a\n- b\n");
  assert.equal(create("l: [a]\n", "l[+]", "b"), "l: [a, b]\n");
  assert.throws(
    () => create("a: 1\n", "l[2]", "x"),
    (e: unknown) =>
      e instanceof PathTargetError &&
      e.message ===
        'Cannot follow path "l[2]": "l" does not exist yet, so its first item is [0] (or [+]), not [2]',
  );
});

Deno.test("createMissing() adds an item for a [name==x] that matches none, holding name x", () => {
  const text = "deps:\n  - name: image\n    version: 0.1.0\n";
  assert.equal(
    create(text, "deps[name==chart].version", "1.0"),
    "deps:\n  - name: image\n    version: 0.1.0\n  - name: chart\n    version: 1.0\n",
  );
  assert.equal(
    create(text, 'deps[?(@.name == "1.10")].version', "2"),
    'deps:\n  - name: image\n    version: 0.1.0\n  - name: "1.10"\n    version: 2\n',
  );
  assert.equal(
    create("a: 1\n", "deps[meta.name==x].v", "1"),
    "a: 1\ndeps:\n  - meta:\n      name: x\n    v: 1\n",
  );
  assert.throws(() => create(text, "deps[name==chart]", "1"), /a new one needs a key to write/);
  assert.throws(() => create(text, "deps[name==chart].name", "1"), /both matched by "name"/);
});

Deno.test("createMissing() creates nothing for a * (there is nothing it stands for)", () => {
  assert.equal(create("a: 1\n", "l[*].x", "1"), "a: 1\n");
  assert.equal(create("a: 1\n", "m.*", "1"), "a: 1\n");
});
