/**
 * Request bodies against the real webhook process at its release runtime flags and defaults
 * (issue #33, "Budgets that add up"): bodies held open on 128 connections, bodies of `[],[],…`
 * one and four at once, and bodies nested millions of levels deep. The webhook's peak resident
 * memory stays under the chart's limit, every request is answered (413, 503) or closed, and a
 * normal review is admitted afterwards. Figures are printed, not asserted
 * (`deno task bench` measures them); nothing here depends on the machine's speed.
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { CHART_MEMORY_LIMIT } from "./_attack.ts";
import {
  type BodyAttackResult,
  runDeepJson,
  runHeldBodies,
  runWideJson,
} from "./_attack_bodies.ts";

// deno-lint-ignore no-console
const report = (result: BodyAttackResult) => console.log(JSON.stringify(result.figures));

/**
 * The webhook's peak memory under the chart's limit, every one of `requests` answered with one of
 * `allowed` (or its connection closed: a client that keeps sending a body refused unread is cut
 * off, and may then miss the answer), and a normal review admitted afterwards.
 */
function assertBounded(
  result: BodyAttackResult,
  requests: number,
  allowed: readonly string[],
): void {
  report(result);
  const { figures, answers } = result;
  assert.equal(Object.values(answers).reduce((a, b) => a + b, 0), requests);
  assert.ok(
    figures.peakRssMiB * 1024 * 1024 < CHART_MEMORY_LIMIT,
    `peak RSS ${figures.peakRssMiB} MiB`,
  );
  for (const [status, count] of Object.entries(answers)) {
    assert.ok(allowed.includes(status), `${count} requests got ${status}`);
  }
  assert.ok(result.admittedAfter, "a normal review is admitted after the attack");
}

Deno.test({
  name: "128 connections holding bodies cannot take the webhook past its memory: 413 or 503",
  ignore: e2eSkipReason(["openssl"]) !== undefined,
  fn: async () => {
    const result = await runHeldBodies();
    // Over the cap: 413 at the head. Under it: the pool holds a few bodies (each answered 408
    // or closed when the client goes) and refuses the rest with 503, unread.
    assertBounded(result, 256, ["413", "503", "held", "closed"]);
    // At most what the pool holds is read: 2 bodies of 3 MiB (12 MiB and their values each).
    assert.ok((result.answers["held"] ?? 0) <= 2, JSON.stringify(result.answers));
  },
});

Deno.test({
  name: "bodies of [],[],… are refused before they are parsed, one or four at once",
  ignore: e2eSkipReason(["openssl"]) !== undefined,
  fn: async () => {
    const result = await runWideJson();
    // Past their shape: 413 (or cut off); within it, parsed (400: not a review) or 503 when the
    // pool holds another already.
    assertBounded(result, 15, ["413", "400", "503", "closed"]);
  },
});

Deno.test({
  name: "bodies nested millions of levels deep are refused before they are parsed",
  ignore: e2eSkipReason(["openssl"]) !== undefined,
  fn: async () => {
    const result = await runDeepJson();
    assertBounded(result, 2, ["413", "closed"]);
  },
});
