import assert from "node:assert/strict";
import { celString } from "./cel_string.ts";

Deno.test("celString quotes plain values as they are", () => {
  assert.equal(celString("refs/heads/main"), "'refs/heads/main'");
  assert.equal(celString("group/sub/repo"), "'group/sub/repo'");
  assert.equal(celString(""), "''");
  assert.equal(celString('say "hi" ü 🚀'), `'say "hi" ü 🚀'`);
});

Deno.test("celString escapes quotes, backslashes and control characters", () => {
  assert.equal(celString("it's"), "'it\\'s'");
  assert.equal(celString("a\\b"), "'a\\\\b'");
  // A backslash before a quote must not leave the quote unescaped.
  assert.equal(celString("x\\' || true || '"), "'x\\\\\\' || true || \\''");
  assert.equal(celString("a\nb\rc\td"), "'a\\nb\\rc\\td'");
  assert.equal(celString("\u0000\u001b\u007f\u0085"), "'\\u0000\\u001b\\u007f\\u0085'");
});
