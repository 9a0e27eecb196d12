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
