import assert from "node:assert/strict";
import { globsIntersect, patternsOverlap } from "./overlap.ts";

Deno.test("globsIntersect() decides whether two star globs share a match", () => {
  const cases: [string, string, boolean][] = [
    ["abc", "abc", true],
    ["abc", "abd", false],
    ["a*", "*b", true],
    ["a*c", "ab*", true],
    ["a*c", "*d", false],
    ["*", "", true],
    ["x", "", false],
    ["team/*", "team/app", true],
    ["team/*", "other/*", false],
    ["*/app", "team/*", true],
  ];
  for (const [a, b, want] of cases) {
    assert.equal(globsIntersect(a, b), want, `${a} ∩ ${b}`);
    assert.equal(globsIntersect(b, a), want, `${b} ∩ ${a}`);
  }
});

Deno.test("patternsOverlap() compares normalised patterns", () => {
  assert.equal(patternsOverlap("nginx", "docker.io/library/*"), true);
  assert.equal(patternsOverlap("index.docker.io/library/*", "docker.io/library/nginx"), true);
  assert.equal(patternsOverlap("ghcr.io/a/*", "ghcr.io/b/*"), false);
  assert.equal(patternsOverlap("*.example.com/*", "reg.example.com/app"), true);
  assert.equal(patternsOverlap("*", "ghcr.io/x"), true);
});
