import assert from "node:assert/strict";
import { TurnScheduler } from "./turns.ts";

Deno.test("TurnScheduler resumes one waiter a turn, in order, with timers between them", async () => {
  const turns = new TurnScheduler();
  const order: string[] = [];
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 0);
  await Promise.all(
    Array.from({ length: 5 }, async (_, i) => {
      await turns.next();
      order.push(`w${i}@${ticks}`);
    }),
  );
  clearInterval(ticker);
  assert.deepEqual(order.map((o) => o.split("@")[0]), ["w0", "w1", "w2", "w3", "w4"]);
  const at = order.map((o) => Number(o.split("@")[1]));
  // Another timer ran between resumptions: they did not all run in one timers phase.
  assert.ok(at[4]! > at[0]!, `ticks at ${at.join(",")}`);
  assert.equal(turns.waiting, 0);
});

Deno.test("TurnScheduler shares one slice: once it is spent, all work waits for a later turn", () => {
  let now = 0;
  const turns = new TurnScheduler({ maxSteps: 100, maxMs: 2, idleMs: 5, now: () => now });
  assert.equal(turns.due(), false, "a fresh slice after idle");
  turns.counter.steps = 50;
  now = 1;
  assert.equal(turns.due(), false);
  turns.counter.steps = 101;
  assert.equal(turns.due(), true, "steps spent");
  turns.counter.steps = 0;
  now = 3.5;
  assert.equal(turns.due(), true, "time spent, whoever checks");
  now = 20;
  assert.equal(turns.due(), false, "after an idle pause a new slice starts");
});
