import assert from "node:assert/strict";
import { parseProperties, parseValues, ValuesFileError } from "./values_file.ts";

Deno.test("parseValues() reads flat YAML and JSON, values as strings", async () => {
  assert.deepEqual(await parseValues("v.yaml", "a: 1\nb: true\nc: text\nd:\n"), {
    a: "1",
    b: "true",
    c: "text",
    d: "",
  });
  assert.deepEqual(await parseValues("v.json", '{"x": "y"}'), { x: "y" });
  assert.deepEqual(await parseValues("v.yaml", ""), {});
});

Deno.test("parseValues() reads .properties files and key=value text", async () => {
  assert.deepEqual(await parseValues("v.properties", "# c\n! c\na=1\nb : two\nc three\n"), {
    a: "1",
    b: "two",
    c: "three",
  });
  assert.deepEqual(await parseValues("values", "a=1\nb=2\n"), { a: "1", b: "2" });
  assert.deepEqual(parseProperties("long=a\\\n  b"), { long: "ab" });
});

Deno.test("parseValues() rejects nested values, lists, bad keys and bad YAML", async () => {
  for (const text of ["a:\n  b: 1\n", "- a\n- b\n", "'bad key': 1\n", "a: [1\n"]) {
    await assert.rejects(parseValues("v.yaml", text), ValuesFileError, text);
  }
});

Deno.test("parseValues() does not quote a value on a line with a YAML error", async () => {
  const secret = `CANARY-S3CR3T-${crypto.randomUUID()}`;
  let error: unknown;
  try {
    await parseValues("v.yaml", `user: a\npassword: ${secret}: x\n`);
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof ValuesFileError);
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    assert.ok(!e.message.includes("CANARY") && !String(e.stack).includes("CANARY"), e.message);
  }
});
