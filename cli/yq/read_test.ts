import assert from "node:assert/strict";
import type { Node } from "yaml";
import { bufferedIO } from "../io.ts";
import { parseYamlStream } from "../../lib/yaml.ts";
import { collectionText, run, scalarText } from "./read.ts";
import { commandContext } from "../context.ts";

const TEXT = `a:
  b: 1.10   # kept as written
  s: 'text'
  n: ~
  hex: 0x1F
  nested:
    # a comment inside
    - x: 1
      y: 2
    - |
      block
anchor: &k {z: 1}
out:
  ref: *k
`;

async function read(args: { file?: string; path?: string; doc?: string }, stdin = TEXT) {
  const io = bufferedIO({ stdin });
  await run(
    { file: "-", path: undefined, doc: "0", verbose: false, quiet: false, ...args },
    commandContext(io),
  );
  return io.out();
}

Deno.test("scalarText() prints strings as text and other scalars as written", () => {
  const doc = parseYamlStream(TEXT)[0]!;
  const at = (path: string[]) => doc.getIn(path, true) as Node;
  assert.equal(scalarText(at(["a", "b"])), "1.10");
  assert.equal(scalarText(at(["a", "s"])), "text");
  assert.equal(scalarText(at(["a", "n"])), "null");
  assert.equal(scalarText(at(["a", "hex"])), "0x1F");
  assert.equal(scalarText(null), "null");
});

Deno.test("collectionText() prints a block's own lines at the left margin", () => {
  const doc = parseYamlStream(TEXT)[0]!;
  assert.equal(
    collectionText(TEXT, doc, doc.getIn(["a", "nested"], true) as Node),
    "- x: 1\n  y: 2\n- |\n  block\n",
  );
  assert.equal(collectionText(TEXT, doc, doc.getIn(["anchor"], true) as Node), "{z: 1}\n");
  assert.equal(
    collectionText(TEXT, doc, doc.getIn(["out"], true) as Node),
    "ref:\n  z: 1\n",
    "an alias to an anchor outside is written out",
  );
});

Deno.test("yq r prints values, one per line, and collections as documents", async () => {
  assert.equal(await read({ path: "a.b" }), "1.10\n");
  assert.equal(await read({ path: "a.nested[*].x" }), "1\n");
  assert.equal(await read({ path: "a.nested[1]" }), "block\n");
  assert.equal(await read({ path: "a.missing" }), "");
  assert.equal(await read({ path: "out.ref.z" }), "1\n");
  assert.equal(await read({ path: "a.nested.*" }), "x: 1\ny: 2\n---\nblock\n");
  assert.equal(await read({}, "# head\nk: v # c\n"), "k: v # c\n");
  assert.equal(await read({ doc: "*", path: "k" }, "k: 1\n---\nj: 2\n---\nk: 3\n"), "1\n3\n");
  assert.equal(await read({ doc: "1" }, "k: 1\n---\nj: 2\n"), "j: 2\n");
  assert.equal(await read({}, ""), "", "an empty stream prints nothing");
});
