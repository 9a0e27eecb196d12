import assert from "node:assert/strict";
import { formatData } from "./output.ts";

Deno.test("formatData() writes JSON and YAML that quotes YAML 1.1 booleans", () => {
  assert.equal(formatData({ a: "yes" }, "json"), '{\n  "a": "yes"\n}\n');
  assert.equal(formatData({ a: "yes", b: "on" }, "yaml"), 'a: "yes"\nb: "on"\n');
});
