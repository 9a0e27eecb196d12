import assert from "node:assert/strict";
import { UsageError } from "../errors.ts";
import { parseExemptLabel, secretText } from "./source.ts";

Deno.test("parseExemptLabel() reads KEY=VALUE and refuses anything else", () => {
  assert.deepEqual(parseExemptLabel("toolkit.dev/image-security=exempt"), {
    key: "toolkit.dev/image-security",
    value: "exempt",
  });
  assert.deepEqual(parseExemptLabel("skip="), { key: "skip", value: "" });
  assert.equal(parseExemptLabel(""), undefined);
  for (const bad of ["nokey", "=v", "a b=c", "k=v v", "UPPER.example.com/x=y"]) {
    assert.throws(() => parseExemptLabel(bad), UsageError, bad);
  }
});

Deno.test("secretText() decodes a data entry", () => {
  assert.equal(secretText({ data: { key: "aGVsbG8=" } }, "key"), "hello");
  assert.equal(secretText({ data: {} }, "key"), undefined);
  assert.equal(secretText({ data: { key: "%%%" } }, "key"), undefined);
});
