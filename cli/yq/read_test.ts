import assert from "node:assert/strict";
import type { Node } from "yaml";
import { bufferedIO } from "../io.ts";
import { parseYamlStream } from "../../lib/yaml.ts";
import { run } from "./read.ts";
import { collectionText } from "./output.ts";
import { scalarText } from "./locate.ts";
import { commandContext } from "../context.ts";
import { bindOptions } from "../command.ts";
import { YQ_READ } from "./read_command.ts";

const runRead = bindOptions(YQ_READ, run);

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

async function read(args: Record<string, unknown>, stdin = TEXT) {
  const io = bufferedIO({ stdin });
  await runRead({ file: "-", ...args }, commandContext(io));
  return io.out();
}

Deno.test("scalarText() prints strings as text and other scalars as written", () => {
  const doc = parseYamlStream(TEXT)[0]!;
  const at = (path: string[]) => doc.getIn(path, true) as Node;
  assert.equal(scalarText(at(["a", "b"])), "1.10");
  assert.equal(scalarText(at(["a", "s"])), "text");
  assert.equal(scalarText(at(["a", "n"])), "~", "as yq: null as written");
  assert.equal(scalarText(at(["a", "hex"])), "0x1F");
  assert.equal(scalarText(null), "");
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
  assert.equal(await read({ path: "a.nested[1]" }), "block\n\n", "as yq: the value, a newline");
  assert.equal(await read({ path: "a.missing" }), "");
  assert.equal(await read({ path: "out.ref.z" }), "1\n");
  assert.equal(await read({ path: "a.nested.*" }), "x: 1\ny: 2\n---\nblock\n\n");
  assert.equal(await read({}, "# head\nk: v # c\n"), "# head\nk: v # c\n");
  assert.equal(await read({ doc: "*", path: "k" }, "k: 1\n---\nj: 2\n---\nk: 3\n"), "1\n3\n");
  assert.equal(await read({ doc: "1" }, "k: 1\n---\nj: 2\n"), "j: 2\n");
  assert.equal(await read({}, ""), "", "an empty stream prints nothing");
});

Deno.test("yq r prints paths, lengths, collections and JSON as yq's flags say", async () => {
  const text = "a:\n  b: 1.10 # c\n  l: [x, 'y']\nm:\n  - k: v\n";
  assert.equal(
    await read({ path: "**", printMode: "p" }, text),
    "a.b\na.l.[0]\na.l.[1]\nm.[0].k\n",
  );
  assert.equal(
    await read({ path: "a.*", printMode: "pv" }, text),
    "a.b: 1.10 # c\na.l: [x, 'y']\n",
  );
  assert.equal(await read({ path: "m", printMode: "pv" }, text), "m:\n  - k: v\n");
  assert.equal(await read({ path: "a.*", length: true }, text), "4\n2\n");
  assert.equal(await read({ path: "a.l.*", collect: true }, text), "- x\n- 'y'\n");
  assert.equal(await read({ path: "a", tojson: true }, text), '{"b":1.1,"l":["x","y"]}\n');
  assert.equal(
    await read({ path: "a.l", tojson: true, prettyPrint: true, indent: 4 }, text),
    '[\n    "x",\n    "y"\n]\n',
  );
  assert.equal(
    await read({ path: "a", prettyPrint: true }, text),
    "b: 1.10 # c\nl:\n  - x\n  - y\n",
  );
  assert.equal(await read({ path: "a", stripComments: true }, text), "b: 1.10\nl: [x, 'y']\n");
  assert.equal(await read({ path: "a.b", unwrapScalar: false }, text), "1.10 # c\n");
  assert.equal(await read({ path: "zz", defaultValue: "none" }, text), "none");
  await assert.rejects(() => read({ path: "zz", exitStatus: true }, text), /No matches found/);
});

Deno.test("yq r -C colours keys, strings, numbers and anchors", async () => {
  const out = await read({ path: "", colors: true }, "k: &a 1\ns: 'x'\n");
  assert.equal(
    out,
    "\x1b[36mk\x1b[0m: \x1b[93m&a\x1b[0m \x1b[95m1\x1b[0m\n\x1b[36ms\x1b[0m: \x1b[32m'x'\x1b[0m\n",
  );
});
