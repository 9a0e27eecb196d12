import assert from "node:assert/strict";
import { Glob, globMatch, type StepCounter } from "./glob.ts";

/** The plain reference: dynamic programming over (glob, text) positions, no shortcuts. */
function referenceMatch(glob: string, text: string, questionMark: boolean): boolean {
  let row = new Array<boolean>(text.length + 1).fill(false);
  row[0] = true;
  for (const g of glob) {
    const next = new Array<boolean>(text.length + 1).fill(false);
    if (g === "*") {
      let any = false;
      for (let j = 0; j <= text.length; j++) next[j] = any ||= row[j]!;
    } else {
      for (let j = 1; j <= text.length; j++) {
        next[j] = row[j - 1]! && ((questionMark && g === "?") || g === text[j - 1]);
      }
    }
    row = next;
  }
  return row[text.length]!;
}

Deno.test("globMatch() treats * as any run and everything else literally", () => {
  assert.ok(globMatch("a*c", "abbbc"));
  assert.ok(globMatch("a*", "a/b:c"));
  assert.ok(globMatch("*", ""));
  assert.ok(globMatch("**", "x"));
  assert.ok(!globMatch("a.c", "abc"));
  assert.ok(globMatch("(x)+[y]", "(x)+[y]"));
  assert.ok(!globMatch("a?c", "abc"));
  assert.ok(globMatch("a?c", "abc", { questionMark: true }));
  assert.ok(!globMatch("a?c", "ac", { questionMark: true }));
  assert.ok(globMatch("*ab*ab*", "xabyab"));
  assert.ok(!globMatch("ab*ba", "aba"), "prefix and suffix may not overlap");
  assert.ok(globMatch("a*a", "aa"));
  assert.ok(!globMatch("a*a", "a"));
});

Deno.test("Glob agrees with a plain reference matcher on random globs and texts", () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = (alphabet: string, n: number) =>
    Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
  for (let i = 0; i < 20_000; i++) {
    const questionMark = i % 3 === 0;
    const glob = pick(questionMark ? "ab*?" : "ab*", Math.floor(random() * 9));
    const text = pick("ab", Math.floor(random() * 12));
    assert.equal(
      new Glob(glob, { questionMark }).matches(text),
      referenceMatch(glob, text, questionMark),
      `${JSON.stringify(glob)} vs ${JSON.stringify(text)} (questionMark ${questionMark})`,
    );
  }
});

Deno.test("Glob matches the worst patterns against the longest names in linear steps", () => {
  // The longest name a pattern is matched against: a 255-character repository and a tag of 128.
  const longest = 255 + 1 + 128;
  const texts = [
    "evil.io/" + "a".repeat(longest - 8),
    "a".repeat(longest),
    "ab".repeat(longest / 2),
    "a".repeat(longest - 1) + "b",
  ];
  const globs = [
    "evil.io/*a*a*a*a*a*a*a*a*b",
    "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b",
    `*${"a".repeat(100)}b*`,
    `*${"ab".repeat(50)}c*`,
    `*${"a".repeat(190)}*${"a".repeat(190)}b`,
    "*".repeat(200) + "b",
    Array.from({ length: 128 }, () => "a").join("*") + "*c",
  ];
  let worst = 0;
  for (const glob of globs) {
    const compiled = new Glob(glob);
    for (const text of texts) {
      const counter: StepCounter = { steps: 0 };
      compiled.matches(text, counter);
      worst = Math.max(worst, counter.steps);
      assert.ok(
        counter.steps <= 2 * (text.length + glob.length) + 4,
        `${glob.slice(0, 40)}… vs ${text.slice(0, 20)}…: ${counter.steps} steps`,
      );
    }
  }
  assert.ok(worst > 0);
});

Deno.test("Glob with ? stays within text × glob steps on host labels", () => {
  const label = "a".repeat(63);
  const glob = "*" + "a?".repeat(20) + "b*";
  const counter: StepCounter = { steps: 0 };
  assert.equal(new Glob(glob, { questionMark: true }).matches(label, counter), false);
  assert.ok(counter.steps <= label.length * glob.length, `${counter.steps} steps`);
});

Deno.test("Glob refuses a text shorter than its literal characters without a step", () => {
  const counter: StepCounter = { steps: 0 };
  assert.equal(new Glob("a*b*c*d").matches("abc", counter), false);
  assert.equal(counter.steps, 0);
  assert.equal(new Glob("a*b*c*d").minLength, 4);
  assert.equal(new Glob("abc").literal, true);
  assert.equal(new Glob("a?c").literal, true);
  assert.equal(new Glob("a?c", { questionMark: true }).literal, false);
});
