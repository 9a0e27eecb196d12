import assert from "node:assert/strict";
import { parseDocument, Scalar } from "yaml";
import { existingScalar, type Leaf, leafFor, plainKind, quoted } from "./scalar.ts";
import { UsageError } from "../../lib/errors.ts";

function existing(source: string) {
  const node = parseDocument(`k: ${source}`).get("k", true);
  assert.ok(node instanceof Scalar);
  return existingScalar(node);
}

const text = (leaf: Leaf) => ("text" in leaf ? leaf.text : `node:${leaf.node.type}`);

Deno.test("plainKind() says what a plain scalar reads as, or that it is not one", () => {
  assert.equal(plainKind("1.10"), "float");
  assert.equal(plainKind("3"), "int");
  assert.equal(plainKind("0x1F"), "int");
  assert.equal(plainKind("true"), "bool");
  assert.equal(plainKind("~"), "null");
  assert.equal(plainKind("abc def"), "str");
  assert.equal(plainKind("yes"), "str");
  assert.equal(plainKind("yes", "1.1"), "bool");
  assert.equal(plainKind("010", "1.1"), "int");
  for (
    const notPlain of [
      "",
      " x",
      "x ",
      "a: b",
      "- x",
      "#c",
      "a #c",
      "&a x",
      "*a",
      "!!str x",
      "[1]",
      "'x'",
      "--- x",
      "x\ny",
    ]
  ) {
    assert.equal(plainKind(notPlain), undefined, notPlain);
  }
  assert.equal(plainKind("a,b"), "str");
  assert.equal(plainKind("a,b", "1.2", true), undefined);
  assert.equal(plainKind("a}", "1.2", true), undefined);
});

Deno.test("leafFor() writes a new value as it was typed", () => {
  assert.equal(text(leafFor("1.10")), "1.10");
  assert.equal(text(leafFor("3.0")), "3.0");
  assert.equal(text(leafFor("010")), "010");
  assert.equal(text(leafFor("true")), "true");
  assert.equal(text(leafFor("hello world")), "hello world");
  assert.equal(text(leafFor("")), '""');
  assert.equal(text(leafFor("a: b")), '"a: b"');
  assert.equal(text(leafFor("#x", { quote: "'" })), "'#x'");
  assert.equal(text(leafFor("a,b", { inFlow: true })), '"a,b"');
  assert.equal(text(leafFor("line 1\nline 2")), "node:BLOCK_LITERAL");
  assert.equal(text(leafFor("line 1\nline 2", { inFlow: true })), "node:QUOTE_DOUBLE");
});

Deno.test("leafFor() keeps a string a string, in the style it had", () => {
  assert.equal(text(leafFor("1.10", { existing: existing('"1.9"') })), '"1.10"');
  assert.equal(text(leafFor("1.10", { existing: existing("'1.9'") })), "'1.10'");
  assert.equal(text(leafFor("abc", { existing: existing("'x'") })), "'abc'");
  assert.equal(text(leafFor("it's", { existing: existing("'x'") })), "'it''s'");
  assert.equal(text(leafFor("1.10", { existing: existing("latest") })), '"1.10"');
  assert.equal(text(leafFor("1.10", { existing: existing("latest"), quote: "'" })), "'1.10'");
  assert.equal(text(leafFor("yes", { existing: existing("no way") })), '"yes"');
  assert.equal(text(leafFor("v2", { existing: existing("latest") })), "v2");
  assert.equal(text(leafFor("2", { existing: existing("!!str 1") })), "2");
  assert.equal(
    text(leafFor("two\nlines", { existing: existing("|\n  x\n") })),
    "node:BLOCK_LITERAL",
  );
  assert.equal(text(leafFor("two\nlines", { existing: existing("'x'") })), "node:QUOTE_SINGLE");
});

Deno.test("leafFor() writes a number, boolean or null's replacement as typed", () => {
  assert.equal(text(leafFor("1.10", { existing: existing("1.0") })), "1.10");
  assert.equal(text(leafFor("5", { existing: existing("3") })), "5");
  assert.equal(text(leafFor("abc", { existing: existing("3") })), "abc");
  assert.equal(text(leafFor("false", { existing: existing("true") })), "false");
  assert.equal(text(leafFor("x", { existing: existing("~") })), "x");
  assert.equal(text(leafFor("bar", { existing: existing("!Ref foo") })), "bar");
  assert.throws(
    () => leafFor("abc", { existing: existing("!!int 3") }),
    /tagged !!int and "abc" is not an integer; give --tag/,
  );
  assert.throws(
    () => leafFor("a\nb", { existing: existing("!!int 3") }),
    /tagged !!int and "a\nb" is not an integer/,
  );
  assert.equal(text(leafFor("a\nb", { existing: existing("3") })), "node:BLOCK_LITERAL");
});

Deno.test("leafFor() forces the type --tag names", () => {
  assert.equal(text(leafFor("1.10", { tag: "!!str" })), '"1.10"');
  assert.equal(text(leafFor("true", { tag: "!!str" })), '"true"');
  assert.equal(text(leafFor("on", { tag: "!!str" })), '"on"');
  assert.equal(text(leafFor("abc", { tag: "!!str" })), "abc");
  assert.equal(text(leafFor("3", { tag: "!!str", existing: existing("'x'") })), "'3'");
  assert.equal(text(leafFor("3", { tag: "!!int", existing: existing("'x'") })), "3");
  assert.equal(text(leafFor("1.10", { tag: "!!float" })), "1.10");
  assert.deepEqual(leafFor("1", { tag: "!!float" }), { text: "1", tag: "!!float" });
  assert.equal(text(leafFor("false", { tag: "!!bool" })), "false");
  assert.equal(text(leafFor("", { tag: "!!null" })), "null");
  assert.equal(text(leafFor("~", { tag: "!!null" })), "~");
  for (
    const [value, tag, message] of [
      ["abc", "!!int", /"abc" is not an integer \(--tag !!int\)/],
      ["1.5", "!!int", /"1.5" is not an integer/],
      ["yes", "!!bool", /"yes" is not a boolean \(true or false\)/],
      ["x", "!!null", /"x" is not null/],
      ["a\nb", "!!int", /A value of several lines cannot be an integer/],
    ] as const
  ) {
    assert.throws(
      () => leafFor(value, { tag }),
      (e) => e instanceof UsageError && message.test(e.message),
    );
  }
});

Deno.test("quoted() quotes in the asked style, double when single cannot hold the text", () => {
  assert.equal(quoted("a'b", "'"), "'a''b'");
  assert.equal(quoted('a"b', '"'), '"a\\"b"');
  assert.equal(quoted("tab\there", "'"), "'tab\there'");
  assert.equal(quoted("bell\u0007", "'"), '"bell\\a"');
  assert.equal(quoted("x".repeat(200), '"'), `"${"x".repeat(200)}"`);
});

Deno.test("leafFor() keeps a JSON file JSON: its literals as typed, anything else a string", () => {
  assert.equal(text(leafFor("1.10", { json: true, inFlow: true })), "1.10");
  assert.equal(text(leafFor("true", { json: true, inFlow: true })), "true");
  assert.equal(text(leafFor("yes", { json: true, inFlow: true })), '"yes"');
  assert.equal(text(leafFor("010", { json: true, inFlow: true })), '"010"');
  assert.equal(text(leafFor("abc", { json: true, inFlow: true })), '"abc"');
  assert.equal(text(leafFor("3", { json: true, inFlow: true, tag: "!!str" })), '"3"');
  assert.throws(() => leafFor("x", { json: true, inFlow: true, tag: "!!int" }), /not an integer/);
});
