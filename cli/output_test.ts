import assert from "node:assert/strict";
import { formatData, outputFormat } from "./output.ts";
import { UsageError } from "../lib/errors.ts";

Deno.test("formatData() writes JSON and YAML that quotes YAML 1.1 booleans", () => {
  assert.equal(formatData({ a: "yes" }, "json"), '{\n  "a": "yes"\n}\n');
  assert.equal(formatData({ a: "yes", b: "on" }, "yaml"), 'a: "yes"\nb: "on"\n');
});

Deno.test("outputFormat() rejects a format the command does not print", () => {
  assert.equal(outputFormat({ output: "json" }, ["text", "json"], "text"), "json");
  assert.equal(outputFormat({}, ["text", "json"], "text"), "text");
  assert.throws(() => outputFormat({ output: "xml" }, ["text", "json"], "text"), UsageError);
});
