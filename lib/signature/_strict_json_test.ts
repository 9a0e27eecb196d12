import assert from "node:assert/strict";
import { parseStrictJson, StrictJsonError } from "./_strict_json.ts";

Deno.test("parseStrictJson() reads what JSON.parse reads", () => {
  const samples = [
    '{"a":1,"b":[true,false,null],"c":{"d":"e"}}',
    ' \t\n{ "x" : -1.5e3 , "y" : [ ] , "z" : { } }\r\n',
    '"caf\\u00e9 \\"q\\" \\\\ \\/ \\b\\f\\n\\r\\t"',
    "[0, -0, 12, 1e2, 1E-2, 3.25]",
    '"snowman ☃ and 😀"',
    "null",
  ];
  for (const text of samples) {
    assert.equal(JSON.stringify(parseStrictJson(text)), JSON.stringify(JSON.parse(text)), text);
  }
});

Deno.test("parseStrictJson() returns objects without a prototype", () => {
  const value = parseStrictJson('{"__proto__":{"polluted":true},"constructor":1}');
  assert.equal(Object.getPrototypeOf(value), null);
  assert.deepEqual(Object.keys(value as object), ["__proto__", "constructor"]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("parseStrictJson() rejects duplicated keys at any depth", () => {
  assert.throws(() => parseStrictJson('{"a":1,"a":2}'), /Duplicate key "a"/);
  assert.throws(() => parseStrictJson('{"o":{"k":1,"k":1}}'), /Duplicate key "k"/);
  // The same key written with an escape is the same key.
  assert.throws(() => parseStrictJson('{"a":1,"\\u0061":2}'), /Duplicate key "a"/);
});

Deno.test("parseStrictJson() rejects malformed JSON", () => {
  const bad = [
    "",
    "{",
    '{"a":1,}',
    "[1,]",
    '{"a" 1}',
    "{a:1}",
    "'x'",
    '"unterminated',
    '"bad \\x escape"',
    '"bad \\u12 escape"',
    '"raw \n newline"',
    "01",
    "1.",
    ".5",
    "+1",
    "NaN",
    "Infinity",
    "1e999",
    "tru",
    "nul",
    '{"a":1} x',
    "[1] [2]",
  ];
  for (const text of bad) {
    assert.throws(() => parseStrictJson(text), StrictJsonError, JSON.stringify(text));
  }
});

Deno.test("parseStrictJson() rejects nesting deeper than 64 levels", () => {
  assert.doesNotThrow(() => parseStrictJson("[".repeat(64) + "]".repeat(64)));
  assert.throws(() => parseStrictJson("[".repeat(100_000)), /nested too deeply/);
  assert.throws(() => parseStrictJson('{"a":'.repeat(100) + "1" + "}".repeat(100)), /nested/);
});
