import assert from "node:assert/strict";
import { BudgetExceededError, formatBytes, MemoryPool, readBudget } from "./read_budget.ts";

Deno.test("readBudget() counts every charge and refuses the one that passes the limit", () => {
  const budget = readBudget(10);
  budget.charge(4);
  budget.charge(6);
  assert.equal(budget.used, 10);
  assert.throws(() => budget.charge(1), (e) => {
    assert.ok(e instanceof BudgetExceededError);
    assert.equal(e.limit, 10);
    assert.match(e.message, /limit of 10 bytes read for one image/);
    return true;
  });
  assert.throws(() => budget.charge(0 + 1), BudgetExceededError, "stays spent");
});

Deno.test("formatBytes() says MiB and KiB where they are whole", () => {
  assert.equal(formatBytes(1024 * 1024), "1 MiB");
  assert.equal(formatBytes(256 * 1024), "256 KiB");
  assert.equal(formatBytes(1000), "1000 bytes");
});

Deno.test("MemoryPool never reserves more than its capacity, and grants in order", async () => {
  const pool = new MemoryPool(3);
  const a = await pool.reserve(1);
  const b = await pool.reserve(2);
  const order: string[] = [];
  const c = pool.reserve(2).then((r) => (order.push("c"), r));
  const d = pool.reserve(1).then((r) => (order.push("d"), r));
  await Promise.resolve();
  assert.deepEqual(pool.stats(), { capacity: 3, reserved: 3, peakReserved: 3, waiting: 2 });
  a[Symbol.dispose]();
  await Promise.resolve();
  assert.deepEqual(order, [], "c needs 2 and waits; d waits behind it");
  b[Symbol.dispose]();
  const [cr, dr] = await Promise.all([c, d]);
  assert.deepEqual(order, ["c", "d"]);
  assert.equal(pool.stats().reserved, 3);
  cr[Symbol.dispose]();
  dr[Symbol.dispose]();
  dr[Symbol.dispose]();
  assert.equal(pool.stats().reserved, 0, "a second dispose gives nothing back twice");
});

Deno.test("MemoryPool gives up a wait when the signal aborts, and lets the next one in", async () => {
  const pool = new MemoryPool(2);
  const held = await pool.reserve(2);
  const controller = new AbortController();
  const waiting = pool.reserve(2, controller.signal);
  const behind = pool.reserve(1);
  controller.abort(new Error("deadline"));
  await assert.rejects(waiting, /deadline/);
  held[Symbol.dispose]();
  using got = await behind;
  assert.equal(got.limit, 1);
  assert.equal(pool.stats().waiting, 0);
});

Deno.test("a pooled budget is a read budget of its reservation", async () => {
  const pool = new MemoryPool(100);
  using budget = await pool.reserve(500);
  assert.equal(budget.limit, 100, "never more than the pool");
  budget.charge(100);
  assert.throws(() => budget.charge(1), BudgetExceededError);
});
