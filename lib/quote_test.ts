import assert from "node:assert/strict";
import { QUOTE_LIMIT, quoteInput, utf8Length } from "./quote.ts";

Deno.test("quoteInput keeps short input whole", () => {
  assert.equal(quoteInput("nginx:1.27"), "nginx:1.27");
  assert.equal(quoteInput("x".repeat(QUOTE_LIMIT)), "x".repeat(QUOTE_LIMIT));
});

Deno.test("quoteInput keeps a bounded prefix of long input and says how long it was", () => {
  const huge = "A".repeat(2_900_000);
  const quoted = quoteInput(huge);
  assert.equal(quoted, `${"A".repeat(QUOTE_LIMIT)}…(2900000 bytes)`);
  assert.equal(quoteInput("abcdef", 3), "abc…(6 bytes)");
});

Deno.test("quoteInput never cuts a surrogate pair in half", () => {
  const quoted = quoteInput("ab😀cd", 3);
  assert.equal(quoted, "ab…(8 bytes)");
});

Deno.test("utf8Length counts UTF-8 bytes", () => {
  assert.equal(utf8Length("a"), 1);
  assert.equal(utf8Length("é"), 2);
  assert.equal(utf8Length("€"), 3);
  assert.equal(utf8Length("😀"), 4);
  assert.equal(utf8Length("a😀é"), new TextEncoder().encode("a😀é").length);
});
