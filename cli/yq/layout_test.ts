import assert from "node:assert/strict";
import { isMap, isSeq, type Pair, type YAMLMap, type YAMLSeq } from "yaml";
import { parseYamlStream } from "../../lib/yaml.ts";
import {
  columnOf,
  flowStart,
  isBlock,
  lineStart,
  pairSlot,
  pastLine,
  rangeOf,
  seqItemDash,
  seqItemSlot,
  startsLine,
} from "./layout.ts";

const TEXT = "a: &x !!map # note\n  b: 1   # one\nl:\n- &i 2\n-   # empty\nf: {k: v}\n";

function root(text = TEXT): YAMLMap {
  const contents = parseYamlStream(text)[0]!.contents;
  assert.ok(isMap(contents));
  return contents;
}

Deno.test("lineStart(), columnOf(), startsLine() and pastLine() read lines", () => {
  const b = TEXT.indexOf("b:");
  assert.equal(lineStart(TEXT, b), b - 2);
  assert.equal(columnOf(TEXT, b), 2);
  assert.ok(startsLine(TEXT, b));
  assert.ok(!startsLine(TEXT, TEXT.indexOf("1")));
  const one = TEXT.indexOf("1") + 1;
  assert.equal(pastLine(TEXT, one), TEXT.indexOf("l:"), "past the comment and the newline");
  assert.equal(pastLine(TEXT, TEXT.indexOf("b:")), TEXT.indexOf("b:"), "not a blank rest");
  assert.equal(pastLine("a: 1", 4), 4, "the end of a text without a newline");
  assert.equal(pastLine("a: 1\r\nb: 2", 4), 6, "a CRLF line");
});

Deno.test("pairSlot() finds a value's indicator, anchor, tag and line comment", () => {
  const a = root().items[0] as Pair;
  const slot = pairSlot(a)!;
  assert.equal(slot.indicatorEnd, 2);
  assert.deepEqual(slot.props.map((t) => t.source), ["&x", "!!map"]);
  assert.equal(slot.comment?.source, "# note");
  const b = (a.value as YAMLMap).items[0] as Pair;
  assert.equal(pairSlot(b)!.comment, undefined, "the comment after a scalar is the scalar's");
});

Deno.test("seqItemSlot() and seqItemDash() find the dash of each item", () => {
  const l = root().get("l", true) as unknown as YAMLSeq;
  assert.ok(isSeq(l) && isBlock(l));
  assert.equal(seqItemDash(l, 0), TEXT.indexOf("- &i"));
  assert.deepEqual(seqItemSlot(l, 0)!.props.map((t) => t.source), ["&i"]);
  assert.equal(seqItemSlot(l, 1)!.comment?.source, "# empty");
  assert.equal(seqItemDash(l, 2), undefined);
});

Deno.test("isBlock(), flowStart() and rangeOf() tell flow collections", () => {
  const f = root().get("f", true) as unknown as YAMLMap;
  assert.ok(!isBlock(f));
  assert.equal(flowStart(f), TEXT.indexOf("{"));
  assert.deepEqual(rangeOf(f).slice(0, 2), [TEXT.indexOf("{"), TEXT.indexOf("}") + 1]);
  assert.equal(flowStart(root()), undefined);
});
