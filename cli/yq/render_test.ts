import assert from "node:assert/strict";
import { Scalar, YAMLMap, YAMLSeq } from "yaml";
import { parseYamlStream } from "../../lib/yaml.ts";
import {
  copyNode,
  detectStyle,
  hasFlowPadding,
  RawTexts,
  renderAfterDash,
  renderAfterKey,
  renderBlock,
  renderFlow,
  shiftLines,
  type Style,
} from "./render.ts";

const STYLE: Style = { indent: 2, indentSeq: true, quote: '"', flowPadding: false, json: false };

function style(text: string): Style {
  return detectStyle(text, parseYamlStream(text)[0]!);
}

Deno.test("detectStyle() reads the indentation, sequence style and usual quote of a file", () => {
  assert.deepEqual(style("a:\n    b: 1\nl:\n- x\nf: { x: 1 }\n"), {
    indent: 4,
    indentSeq: false,
    quote: '"',
    flowPadding: true,
    json: false,
  });
  assert.deepEqual(style("a:\n  b: 'x'\n  l:\n    - 'y'\n"), {
    indent: 2,
    indentSeq: true,
    quote: "'",
    flowPadding: false,
    json: false,
  });
  assert.deepEqual(style("a: 1\n"), STYLE);
});

Deno.test("RawTexts puts exact texts into rendered YAML", () => {
  const raw = new RawTexts();
  const map = new YAMLMap();
  map.set("version", raw.scalar("1.10"));
  map.set("octal", raw.scalar("010"));
  assert.equal(renderBlock(map, { style: STYLE, raw }), "version: 1.10\noctal: 010\n");
});

Deno.test("renderAfterKey() and renderAfterDash() write what follows a : or a -", () => {
  const raw = new RawTexts();
  const options = { style: STYLE, raw };
  const map = new YAMLMap();
  map.set("x", 1);
  map.set("l", new YAMLSeq());
  (map.get("l") as YAMLSeq).items.push(raw.scalar("a"));
  assert.equal(renderAfterKey(map, 2, options), "\n    x: 1\n    l:\n      - a\n");
  assert.equal(renderAfterKey(raw.scalar("v"), 2, options), " v\n");
  const block = new Scalar("one\ntwo");
  block.type = "BLOCK_LITERAL";
  assert.equal(renderAfterKey(block, 2, options), " |-\n    one\n    two\n");
  assert.equal(renderAfterDash(map, 2, options), " x: 1\n    l:\n      - a\n");
  assert.equal(renderAfterDash(map, 2, options, false), "\n    x: 1\n    l:\n      - a\n");
  assert.equal(
    renderAfterKey(map, 0, { style: { ...STYLE, indentSeq: false }, raw }),
    "\n  x: 1\n  l:\n  - a\n",
  );
});

Deno.test("renderFlow() writes one line, and hasFlowPadding() reads the file's spacing", () => {
  const raw = new RawTexts();
  const map = new YAMLMap();
  map.set("a", raw.scalar("1.10"));
  const block = new Scalar("x\ny");
  block.type = "BLOCK_LITERAL";
  map.set("b", block);
  assert.equal(renderFlow(map, { style: STYLE, raw }, false), '{a: 1.10, b: "x\\ny"}');
  const doc = parseYamlStream("a: { x: 1 }\nb: {x: 1}\nc: {}\n")[0]!;
  assert.ok(hasFlowPadding("a: { x: 1 }\nb: {x: 1}\nc: {}\n", doc.get("a", true) as YAMLMap));
  assert.ok(!hasFlowPadding("a: { x: 1 }\nb: {x: 1}\nc: {}\n", doc.get("b", true) as YAMLMap));
});

Deno.test("shiftLines() moves every line after the first, blank lines kept", () => {
  assert.equal(shiftLines("a\nb\n\nc\n", 2), "a\n  b\n\n  c\n");
  assert.equal(shiftLines("a\n", 0), "a\n");
});

Deno.test("copyNode() keeps the text of numbers, and the comments, of another document", () => {
  const from = parseYamlStream("# c\nv: 1.10 # why\nn: 010\nt: !!float 1\ns: 'x'\n")[0]!;
  const raw = new RawTexts();
  const copy = copyNode(from.contents as YAMLMap, from, raw);
  assert.equal(
    renderBlock(copy, { style: STYLE, raw }),
    "# c\nv: 1.10 # why\nn: 010\nt: !!float 1\ns: 'x'\n",
  );
  const linked = parseYamlStream("a: &x {k: 1}\nb: [*x]\n")[0]!;
  const plain = copyNode(linked.get("b", true) as YAMLSeq, linked, raw);
  assert.equal(renderBlock(plain, { style: STYLE, raw }), "- k: 1\n", "aliases resolved");
});
