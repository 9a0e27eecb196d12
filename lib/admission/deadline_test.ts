import assert from "node:assert/strict";
import { DeadlineScheduler } from "./deadline.ts";
import { DeadlineExceededError } from "./errors.ts";

Deno.test("DeadlineScheduler aborts a deadline when it is due", async () => {
  const scheduler = new DeadlineScheduler({ tickMs: 1 });
  const deadline = scheduler.start(5);
  const reason = await new Promise((resolve) =>
    deadline.signal.addEventListener("abort", () => resolve(deadline.signal.reason))
  );
  assert.ok(reason instanceof DeadlineExceededError);
  assert.equal((reason as DeadlineExceededError).budgetMs, 5);
  assert.equal(scheduler.size, 0);
  scheduler.close();
});

Deno.test("DeadlineScheduler never aborts a cleared deadline", () => {
  let now = 0;
  const scheduler = new DeadlineScheduler({ tickMs: 1_000_000, now: () => now });
  const kept = scheduler.start(10);
  const cleared = scheduler.start(10);
  cleared.clear();
  assert.equal(scheduler.size, 1);
  now = 20;
  kept.clear();
  assert.equal(cleared.signal.aborted, false);
  assert.equal(scheduler.size, 0);
  scheduler.close();
});

Deno.test("DeadlineScheduler keeps the other deadlines when one in the middle is cleared", async () => {
  const scheduler = new DeadlineScheduler({ tickMs: 1 });
  const [a, b, c] = [scheduler.start(3), scheduler.start(3), scheduler.start(3)];
  b!.clear();
  assert.equal(scheduler.size, 2);
  await Promise.all([a, c].map((d) => new Promise((r) => d!.signal.addEventListener("abort", r))));
  assert.equal(b!.signal.aborted, false);
  assert.equal(scheduler.size, 0);
  scheduler.close();
});

Deno.test("DeadlineScheduler.race settles like the promise when it is in time", async () => {
  const scheduler = new DeadlineScheduler({ tickMs: 1 });
  assert.equal(await scheduler.race(Promise.resolve(7), 1000), 7);
  await assert.rejects(scheduler.race(Promise.reject(new TypeError("no")), 1000), TypeError);
  assert.equal(scheduler.size, 0);
  scheduler.close();
});

Deno.test("DeadlineScheduler.race rejects with DeadlineExceededError when the promise is late", async () => {
  const scheduler = new DeadlineScheduler({ tickMs: 1 });
  let settle!: (value: string) => void;
  const late = new Promise<string>((resolve) => (settle = resolve));
  const error = await scheduler.race(late, 5).catch((e) => e);
  assert.ok(error instanceof DeadlineExceededError);
  assert.equal(error.budgetMs, 5);
  assert.equal(scheduler.size, 0);
  settle("too late"); // settling afterwards changes nothing
  scheduler.close();
});
