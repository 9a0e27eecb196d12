import assert from "node:assert/strict";
import {
  compileLinearRegExp,
  MAX_INPUT_LENGTH,
  MAX_PATTERN_LENGTH,
  RegExpSyntaxError,
  STEPS_PER_TURN,
} from "./linear_regexp.ts";

/** Patterns whose answers must equal JavaScript's for the same (RE2-compatible) syntax. */
const CASES: readonly [string, readonly string[]][] = [
  ["abc", ["abc", "xabcx", "ab", ""]],
  ["^abc$", ["abc", "abcd", "xabc"]],
  ["a.c", ["abc", "a\nc", "ac"]],
  ["^a*$", ["", "aaa", "aab"]],
  ["^(ab)+$", ["ab", "abab", "aba", ""]],
  ["^a?b$", ["b", "ab", "aab"]],
  ["^a{2}$", ["a", "aa", "aaa"]],
  ["^a{2,}$", ["a", "aa", "aaaaa"]],
  ["^a{1,3}$", ["", "a", "aaa", "aaaa"]],
  ["^(?:foo|bar)baz$", ["foobaz", "barbaz", "bazbaz"]],
  ["^[a-z0-9]+$", ["abc123", "ABC", "a_b"]],
  ["^[^/]+$", ["abc", "a/b"]],
  ["^\\d+\\.\\d+$", ["1.2", "1x2", "12.345"]],
  ["^\\w+@\\w+\\.com$", ["me@example.com", "me@@example.com"]],
  ["\\s", ["a b", "ab"]],
  ["^[\\w.-]+$", ["a.b-c_d", "a/b"]],
  ["^https://github\\.com/org/repo/\\.github/workflows/[^/]+\\.ya?ml@refs/tags/v.*$", [
    "https://github.com/org/repo/.github/workflows/release.yml@refs/tags/v1.2.3",
    "https://github.com/org/repo/.github/workflows/release.yaml@refs/heads/main",
    "https://github.com/org/repo2/.github/workflows/release.yml@refs/tags/v1",
    "https://github.com/org/repo/.github/workflows/x/release.yml@refs/tags/v1",
  ]],
  ["(a|b)*c", ["abababc", "ababab", "c"]],
  ["^(a*)*$", ["aaaa", "aaab"]],
  ["^(?P<x>a)(?<y>b)$", ["ab", "ba"]],
  ["a+?", ["a", "b"]],
  ["^[a-]$", ["-", "a", "b"]],
  ["\\Aabc", ["abc", "xabc"]],
  ["é+", ["café", "cafe"]],
  ["^\\(x\\)$", ["(x)", "x"]],
];

Deno.test("compileLinearRegExp() answers as JavaScript does for the shared syntax", () => {
  for (const [pattern, texts] of CASES) {
    const compiled = compileLinearRegExp(pattern);
    const reference = new RegExp(pattern.replaceAll("(?P<", "(?<").replace("\\A", "^"), "u");
    for (const text of texts) {
      assert.equal(
        compiled.test(text),
        reference.test(text),
        `${pattern} on ${JSON.stringify(text)}`,
      );
    }
  }
});

Deno.test("compileLinearRegExp() reads a literal { and a leading ] in a class as Go does", () => {
  const brace = compileLinearRegExp("x{");
  assert.ok(brace.test("x{"));
  assert.ok(!brace.test("x"));
  const bracket = compileLinearRegExp("^[]a]$");
  assert.ok(bracket.test("]"));
  assert.ok(bracket.test("a"));
  assert.ok(!bracket.test("b"));
});

Deno.test("compileLinearRegExp() matches \\z at the end only", () => {
  const re = compileLinearRegExp("ab\\z");
  assert.ok(re.test("xab"));
  assert.ok(!re.test("abx"));
});

Deno.test("compileLinearRegExp() refuses what it would read differently from Go", () => {
  for (
    const pattern of [
      "(?i)abc",
      "a\\bb",
      "(a)\\1",
      "(?=a)",
      "(?!a)",
      "[[:alpha:]]",
      "\\p{L}",
      "a**",
      "*a",
      "a{1001}",
      "a{3,2}",
      "(ab",
      "ab)",
      "[ab",
      "[z-a]",
      "\\",
      "\\q",
    ]
  ) {
    assert.throws(() => compileLinearRegExp(pattern), RegExpSyntaxError, pattern);
  }
});

Deno.test("compileLinearRegExp() refuses patterns that are too large", () => {
  assert.throws(
    () => compileLinearRegExp("a".repeat(MAX_PATTERN_LENGTH + 1)),
    /longer than/,
  );
  assert.throws(() => compileLinearRegExp("(?:a{1000}){1000}"), /states/);
  assert.throws(() => compileLinearRegExp("(?:(?:(?:)(?:)){1000}){1000}"), /too large/);
});

Deno.test("compileLinearRegExp() does not match a text over the length bound", () => {
  const re = compileLinearRegExp("a");
  assert.ok(re.test("a".repeat(MAX_INPUT_LENGTH)));
  assert.ok(!re.test("a".repeat(MAX_INPUT_LENGTH + 1)));
});

Deno.test("compileLinearRegExp() takes linear time on patterns that make a backtracking engine explode", () => {
  // (a+)+$ against "aaaa…b" takes a backtracking engine 2^n steps; here it is n × states.
  const text = `${"a".repeat(MAX_INPUT_LENGTH - 1)}b`;
  for (const pattern of ["^(a+)+$", "^(a|a)*$", "^(a|aa)+$", "(.*a){20}$", "^(\\w+\\s?)*$"]) {
    // Bounded by construction: the test finishes (a backtracking engine would not).
    assert.equal(compileLinearRegExp(pattern).test(text), new RegExp(pattern).test("aab"));
  }
});

Deno.test("testAsync() answers as test() does and lets the event loop run during long work", async () => {
  const re = compileLinearRegExp("^(?:a|a?){500}x");
  const text = "a".repeat(MAX_INPUT_LENGTH);
  let pauses = 0;
  const answer = await re.testAsync(text, () => {
    pauses++;
    return Promise.resolve();
  });
  assert.equal(answer, re.test(text));
  // At most STEPS_PER_TURN steps between pauses, and a test takes at most states × length.
  assert.ok(pauses >= 1, `${pauses} pauses`);
  assert.ok(pauses <= Math.ceil((re.states * 2 * (text.length + 1)) / STEPS_PER_TURN));
  assert.equal(await compileLinearRegExp("b").testAsync("ab"), true);
});
