import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import type { PolicyMatch } from "../policy/mod.ts";
import { MAX_CONTEXT_LENGTH, VERDICT_MEMO_LIFE_MS, VerdictMemo } from "./verdict_memo.ts";
import type { ImageVerdict } from "./verifier.ts";

const match = (): PolicyMatch => ({
  policy: { simple: { requirements: [{ type: "signedBy", keySecret: "k" }] } },
  pattern: "*",
  source: 'ClusterImagePolicy "p"',
  kind: "ClusterImagePolicy",
  name: "p",
  namespace: undefined,
});

const ADMITTED: ImageVerdict = {
  allowed: true,
  digest: `sha256:${"a".repeat(64)}`,
  signers: ["F1"],
  cached: true,
};

function world() {
  const clock = { now: 1_000, validity: 50_000, generation: 0 };
  const memo = new VerdictMemo({
    maxEntries: 3,
    now: () => clock.now,
    validityNow: () => clock.validity,
    generation: () => clock.generation,
  });
  return { clock, memo };
}

Deno.test("VerdictMemo finds a verdict by the same objects and credentials only", () => {
  const { memo } = world();
  const ref = parseReference("r.example/app:1");
  const m = match();
  const entry = { verdict: ADMITTED, validUntil: undefined, lifeMs: 60_000 };
  memo.set(ref, m, "ns/sa", entry, memo.generation());
  assert.equal(memo.get(ref, m, "ns/sa")?.verdict, ADMITTED);
  assert.equal(memo.get(ref, m, "ns/other"), undefined);
  assert.equal(memo.get(parseReference("r.example/app:1"), m, "ns/sa"), undefined);
  assert.equal(memo.get(ref, match(), "ns/sa"), undefined);
});

Deno.test("VerdictMemo forgets at a new generation and never keeps work of an old one", () => {
  const { clock, memo } = world();
  const ref = parseReference("r.example/app:1");
  const m = match();
  const entry = { verdict: ADMITTED, validUntil: undefined, lifeMs: 60_000 };
  const started = memo.generation();
  memo.set(ref, m, "c", entry, started);
  clock.generation++;
  assert.equal(memo.get(ref, m, "c"), undefined);
  clock.generation--;
  assert.equal(memo.get(ref, m, "c"), undefined, "forgotten, not hidden");
  // A verification that started before a change is not remembered after it.
  const before = memo.generation();
  clock.generation += 2;
  memo.set(ref, m, "c", entry, before);
  assert.equal(memo.get(ref, m, "c"), undefined);
  memo.set(ref, m, "c", entry, memo.generation());
  assert.equal(memo.get(ref, m, "c")?.verdict, ADMITTED);
});

Deno.test("VerdictMemo keeps an entry a second at most, less when the caches would, and not past validUntil", () => {
  const { clock, memo } = world();
  const ref = parseReference("r.example/app:1");
  const m = match();
  memo.set(ref, m, "a", { verdict: ADMITTED, validUntil: undefined, lifeMs: 60_000 }, 0);
  memo.set(ref, m, "b", { verdict: ADMITTED, validUntil: undefined, lifeMs: 200 }, 0);
  memo.set(ref, m, "c", { verdict: ADMITTED, validUntil: 50_500, lifeMs: 60_000 }, 0);
  clock.now += 200;
  assert.equal(memo.get(ref, m, "b"), undefined);
  assert.equal(memo.get(ref, m, "a")?.verdict, ADMITTED);
  clock.validity += 500;
  assert.equal(memo.get(ref, m, "c"), undefined, "a signature or key that expired");
  clock.now += VERDICT_MEMO_LIFE_MS - 200;
  assert.equal(memo.get(ref, m, "a"), undefined);
});

Deno.test("VerdictMemo keeps admitted verdicts only, within its bounds", () => {
  const { memo } = world();
  const m = match();
  const ref = parseReference("r.example/app:1");
  const denied: ImageVerdict = { allowed: false, reason: "no", cause: "policy" };
  memo.set(ref, m, "a", { verdict: denied, validUntil: undefined, lifeMs: 60_000 }, 0);
  assert.equal(memo.get(ref, m, "a"), undefined);
  memo.set(ref, m, "a", { verdict: ADMITTED, validUntil: undefined, lifeMs: 0 }, 0);
  assert.equal(memo.get(ref, m, "a"), undefined, "a cache that is off keeps nothing here either");
  const long = "x".repeat(MAX_CONTEXT_LENGTH + 1);
  memo.set(ref, m, long, { verdict: ADMITTED, validUntil: undefined, lifeMs: 60_000 }, 0);
  assert.equal(memo.get(ref, m, long), undefined);
  // Three entries at most: the fourth starts afresh.
  for (const context of ["1", "2", "3", "4"]) {
    memo.set(ref, m, context, { verdict: ADMITTED, validUntil: undefined, lifeMs: 60_000 }, 0);
  }
  assert.deepEqual(
    ["1", "2", "3", "4"].map((c) => memo.get(ref, m, c) !== undefined),
    [false, false, false, true],
  );
});
