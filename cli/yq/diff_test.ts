import assert from "node:assert/strict";
import { diffLines, diffText } from "./diff.ts";

Deno.test("diffText() prints removed lines before added ones, common lines with a space", () => {
  assert.equal(diffText("a\nb", "a\nb"), "");
  assert.equal(
    diffText(
      "a: simple # x\nb: [1, 2]\nc:\n  test: 1",
      'a: "simple" # x\nb: [1, 3]\nc:\n  test: 1',
    ),
    '-a: simple # x\n-b: [1, 2]\n+a: "simple" # x\n+b: [1, 3]\n c:\n   test: 1',
  );
  assert.equal(diffText("", "x"), "-\n+x");
  assert.equal(diffText("x\ny", "y"), "-x\n y");
  assert.equal(diffText("y", "x\ny"), "+x\n y");
});

Deno.test("diffLines() finds a shortest edit", () => {
  const a = "abcabba".split("");
  const b = "cbabac".split("");
  const ops = diffLines(a, b);
  assert.equal(ops.filter((o) => o.op !== " ").length, 5);
  assert.deepEqual(ops.filter((o) => o.op !== "+").map((o) => o.line), a);
  assert.deepEqual(ops.filter((o) => o.op !== "-").map((o) => o.line), b);
});

Deno.test("diffLines() stays correct past MAX_EDITS, in bounded memory", () => {
  const a = Array.from({ length: 6000 }, (_, i) => `a${i}`);
  const b = Array.from({ length: 6000 }, (_, i) => `b${i}`);
  const ops = diffLines(["same", ...a, "end"], ["same", ...b, "end"]);
  assert.equal(ops.length, 12002);
  assert.deepEqual(ops[0], { op: " ", line: "same" });
  assert.deepEqual(ops.at(-1), { op: " ", line: "end" });
  assert.deepEqual(ops.filter((o) => o.op !== "+").map((o) => o.line), ["same", ...a, "end"]);
  assert.deepEqual(ops.filter((o) => o.op !== "-").map((o) => o.line), ["same", ...b, "end"]);
});
