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
