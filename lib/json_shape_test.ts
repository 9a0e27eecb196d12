import assert from "node:assert/strict";
import {
  checkJsonShape,
  jsonLimitsForLength,
  JsonShapeError,
  JsonShapeScanner,
  parseJsonWithin,
} from "./json_shape.ts";

const WIDE = { maxValues: 1_000_000, maxDepth: 1000 };
const encoder = new TextEncoder();

/** The JsonShapeError `run` throws (fails when it throws nothing or another error). */
function refusal(run: () => unknown): JsonShapeError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof JsonShapeError, `expected a JsonShapeError, got ${error}`);
    return error;
  }
  assert.fail("expected a JsonShapeError");
}

function shape(text: string) {
  const scanner = new JsonShapeScanner(WIDE, "the text");
  scanner.feed(text);
  return { values: scanner.values, deepest: scanner.deepest };
}

Deno.test("json_shape: counts every value the parse would allocate, keys included", () => {
  assert.deepEqual(shape(`{}`), { values: 1, deepest: 1 });
  assert.deepEqual(shape(`[]`), { values: 1, deepest: 1 });
  assert.deepEqual(shape(`"a"`), { values: 1, deepest: 0 });
  assert.deepEqual(shape(`-1.5e+10`), { values: 1, deepest: 0 });
  assert.deepEqual(shape(`[true, false, null, 0, -2.5E-3]`), { values: 6, deepest: 1 });
  // object, 2 keys, a string, an array, 2 numbers
  assert.deepEqual(shape(`{"a": "b", "c": [1, 2]}`), { values: 7, deepest: 2 });
  assert.deepEqual(shape(`[[],[],[]]`), { values: 4, deepest: 2 });
});

Deno.test("json_shape: brackets, quotes and escapes inside strings are content", () => {
  assert.deepEqual(shape(`["[[[{{{", "\\"]]]", "\\\\", "a\\\\\\"b"]`), { values: 5, deepest: 1 });
  assert.deepEqual(shape(`{"k\\"[": "}"}`), { values: 3, deepest: 1 });
  assert.deepEqual(shape(`["é[", "日本{"]`), { values: 3, deepest: 1 });
});

Deno.test("json_shape: the same counts fed byte by byte, as text or as bytes", () => {
  const text = `{"a\\"": [1, 22, {"b": "c\\\\"}], "d": null}`;
  const whole = shape(text);
  for (const form of ["text", "bytes"] as const) {
    const scanner = new JsonShapeScanner(WIDE, "the text");
    const bytes = encoder.encode(text);
    for (let i = 0; i < bytes.length; i++) {
      scanner.feed(form === "bytes" ? bytes.subarray(i, i + 1) : text.slice(i, i + 1));
    }
    assert.deepEqual({ values: scanner.values, deepest: scanner.deepest }, whole);
  }
});

Deno.test("json_shape: a text over its bounds is refused, naming the bound", () => {
  const limits = { maxValues: 10, maxDepth: 3 };
  const many = refusal(() => checkJsonShape("[],".repeat(11), limits, "the AdmissionReview"));
  assert.deepEqual(many.bound, "values");
  assert.deepEqual(many.message, "the AdmissionReview holds more than 10 JSON values");
  const deep = refusal(() => checkJsonShape(encoder.encode("[[[[1]]]]"), limits, "the manifest"));
  assert.deepEqual(deep.bound, "depth");
  assert.deepEqual(deep.message, "the manifest is nested more than 3 levels deep");
  checkJsonShape("[[[1,2,3,4,5,6]]]", limits, "ok");
});

Deno.test("json_shape: refused mid-stream, before the rest is read", () => {
  const scanner = new JsonShapeScanner({ maxValues: 100, maxDepth: 64 }, "the body");
  scanner.feed("[" + "[],".repeat(50));
  refusal(() => scanner.feed("[],".repeat(50)));
});

Deno.test("json_shape: parseJsonWithin parses what passes, the parse reports bad JSON", () => {
  assert.deepEqual(parseJsonWithin(`{"a": [1, "x"]}`, WIDE, "t"), { a: [1, "x"] });
  assert.deepEqual(parseJsonWithin(encoder.encode(`["é"]`), WIDE, "t"), ["é"]);
  assert.throws(() => parseJsonWithin(`{"a": }`, WIDE, "t"), SyntaxError);
  refusal(() => parseJsonWithin("[".repeat(2000), WIDE, "t"));
});

Deno.test("json_shape: eight MiB of empty arrays are refused without being parsed", () => {
  const text = "[" + "[],".repeat(Math.floor((8 * 1024 * 1024) / 3)) + "[]]";
  const error = refusal(() =>
    parseJsonWithin(text, { maxValues: 200_000, maxDepth: 64 }, "the review")
  );
  assert.deepEqual(error.bound, "values");
});

Deno.test("json_shape: jsonLimitsForLength allows a value per 4 bytes, and the depth given", () => {
  assert.deepEqual(jsonLimitsForLength(4000), { maxValues: 1064, maxDepth: 64 });
  assert.deepEqual(jsonLimitsForLength(0, 8), { maxValues: 64, maxDepth: 8 });
  const dense = `[${"0,".repeat(2000)}0]`;
  assert.throws(
    () => parseJsonWithin(dense, jsonLimitsForLength(dense.length), "the text"),
    JsonShapeError,
  );
  const object = JSON.stringify({ metadata: { name: "a", labels: { app: "b" } }, data: "x" });
  assert.deepEqual(
    parseJsonWithin(object, jsonLimitsForLength(object.length), "it"),
    JSON.parse(object),
  );
});
