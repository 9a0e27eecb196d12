import assert from "node:assert/strict";
import { applyEdits } from "./edits.ts";

Deno.test("applyEdits() replaces and inserts, keeping every other character", () => {
  const text = "a: 1\nb: 2\n";
  assert.equal(applyEdits(text, []), text);
  assert.equal(applyEdits(text, [{ start: 3, end: 4, text: "10" }]), "a: 10\nb: 2\n");
  assert.equal(
    applyEdits(text, [{ start: 10, end: 10, text: "c: 3\n" }, { start: 0, end: 5, text: "" }]),
    "b: 2\nc: 3\n",
  );
});

Deno.test("applyEdits() orders insertions at one offset: deeper first, then as given", () => {
  const text = "a:\n  x: 1\n";
  const edits = [
    { start: 10, end: 10, text: "b: 2\n" },
    { start: 10, end: 10, text: "  y: 2\n", depth: 1 },
    { start: 10, end: 10, text: "c: 3\n" },
  ];
  assert.equal(applyEdits(text, edits), "a:\n  x: 1\n  y: 2\nb: 2\nc: 3\n");
});

Deno.test("applyEdits() puts an insertion before a replacement that starts there", () => {
  assert.equal(
    applyEdits("a: 1\nb: 2\n", [{ start: 5, end: 10, text: "" }, {
      start: 5,
      end: 5,
      text: "c: 3\n",
    }]),
    "a: 1\nc: 3\n",
  );
});

Deno.test("applyEdits() drops an edit inside a replaced range, and refuses overlaps", () => {
  const text = "a:\n  x: 1\n  y: 2\nb: 3\n";
  assert.equal(
    applyEdits(text, [{ start: 0, end: 17, text: "" }, { start: 5, end: 10, text: "" }]),
    "b: 3\n",
  );
  assert.throws(
    () => applyEdits(text, [{ start: 0, end: 8, text: "" }, { start: 5, end: 10, text: "" }]),
    /overlapping edits/,
  );
});

Deno.test("applyEdits() writes the file's CRLF line ends in what it inserts", () => {
  assert.equal(
    applyEdits("a: 1\r\n", [{ start: 6, end: 6, text: "b:\n  c: 2\n" }]),
    "a: 1\r\nb:\r\n  c: 2\r\n",
  );
});
