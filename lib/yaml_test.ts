import assert from "node:assert/strict";
import type { Node } from "yaml";
import { describeError, InputSyntaxError } from "./errors.ts";
import { parseYaml, parseYamlDocument, parseYamlDocuments, parseYamlStream } from "./yaml.ts";

const CANARY = `CANARY-S3CR3T-${crypto.randomUUID()}`;

function thrownBy(fn: () => unknown): InputSyntaxError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof InputSyntaxError, String(error));
    return error;
  }
  throw new Error("nothing was thrown");
}

/** Texts that do not parse, each with the canary on the offending line. */
const BROKEN = [
  `user:\n  password: ${CANARY}: x\n`,
  `token: "${CANARY}\n`,
  `a: 1\na: ${CANARY}\n`,
  `key: [${CANARY}\n`,
  `token: *${CANARY}\n`,
  `- ${CANARY}\n\t- x\n`,
];
/** A text that parses with a warning that quotes it (an unknown tag). */
const WARNED = `token: !${CANARY} x\n`;

Deno.test("parseYaml() parses a document into plain values", () => {
  assert.deepEqual(parseYaml("a: [1, {b: c}]\n"), { a: [1, { b: "c" }] });
  assert.equal(parseYaml(""), null);
  // An unknown tag is only a warning (which the yaml package's own parse() would print).
  assert.deepEqual(parseYaml(WARNED), { token: "x" });
});

Deno.test("parseYaml() fails with line and column, never the text", () => {
  for (const text of BROKEN) {
    const error = thrownBy(() => parseYaml(text));
    assert.ok(!describeError(error).includes(CANARY), describeError(error));
    assert.ok(!String(error.stack).includes(CANARY));
  }
  const error = thrownBy(() => parseYaml(BROKEN[0]!));
  assert.equal(error.line, 2);
  assert.equal(error.code, "BLOCK_AS_IMPLICIT_KEY");
  assert.match(thrownBy(() => parseYaml(BROKEN[2]!)).message, /map keys must be unique/);
});

Deno.test("parseYamlDocuments() says which document fails, never the text", () => {
  assert.deepEqual(parseYamlDocuments("a: 1\n---\n---\nb: 2\n"), [{ a: 1 }, null, { b: 2 }]);
  for (const text of BROKEN) {
    const error = thrownBy(() => parseYamlDocuments(`a: 1\n---\n${text}`));
    assert.equal(error.document, 2);
    assert.ok(!describeError(error).includes(CANARY), describeError(error));
  }
});

Deno.test("parseYamlDocument() keeps the document for edits and fails without the text", () => {
  assert.equal(parseYamlDocument("a: 1\n").get("a"), 1);
  const error = thrownBy(() => parseYamlDocument(BROKEN[1]!));
  assert.ok(!describeError(error).includes(CANARY));
});

Deno.test("parseYamlStream() keeps each document for edits, and says which one fails", () => {
  const docs = parseYamlStream("# c\na: 1\n---\nb: [2]\n");
  assert.equal(docs.length, 2);
  assert.equal((docs[1]!.get("b", true) as Node).srcToken?.type, "flow-collection");
  assert.deepEqual(docs[0]!.contents?.range, [4, 9, 9]);
  assert.deepEqual(parseYamlStream(""), []);
  for (const text of BROKEN) {
    const error = thrownBy(() => parseYamlStream(`a: 1\n---\n${text}`));
    assert.equal(error.document, 2);
    assert.ok(!describeError(error).includes(CANARY), describeError(error));
  }
});
