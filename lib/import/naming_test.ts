import assert from "node:assert/strict";
import { MAX_OBJECT_NAME_LENGTH, objectName, shortHash } from "./naming.ts";

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

Deno.test("objectName() joins clean parts as they are", () => {
  assert.equal(objectName("image-policy", "keyed"), "image-policy-keyed");
  assert.equal(objectName("policy", "", "key"), "policy-key");
});

Deno.test("objectName() cleans other characters and keeps distinct sources distinct", () => {
  const a = objectName("My.Policy", "rule_1");
  const b = objectName("my-policy", "rule-1");
  assert.match(a, DNS_LABEL);
  assert.equal(b, "my-policy-rule-1");
  assert.notEqual(a, b);
  assert.equal(objectName("My.Policy", "rule_1"), a, "deterministic");
});

Deno.test("objectName() shortens long names with a hash suffix", () => {
  const long = "x".repeat(100);
  const name = objectName(long, "rule");
  assert.ok(name.length <= MAX_OBJECT_NAME_LENGTH);
  assert.match(name, DNS_LABEL);
  assert.ok(name.endsWith(shortHash(`${long}-rule`)));
  assert.notEqual(objectName(long, "rule2"), name);
  assert.match(objectName("..."), DNS_LABEL);
});
