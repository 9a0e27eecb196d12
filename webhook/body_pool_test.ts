import assert from "node:assert/strict";
import { bodyCost, BodyPool, bodyShapeLimits } from "./body_pool.ts";

Deno.test("BodyPool reserves while there is room, refuses at once past it, and counts", () => {
  const pool = new BodyPool(1000);
  const a = pool.tryReserve(600);
  assert.ok(a);
  assert.equal(pool.tryReserve(500), undefined);
  const b = pool.tryReserve(400);
  assert.ok(b);
  assert.equal(pool.free, 0);
  assert.deepEqual(pool.stats(), {
    capacity: 1000,
    reserved: 1000,
    peakReserved: 1000,
    refused: 1,
  });
  a.release();
  a.release(); // once only
  assert.equal(pool.stats().reserved, 400);
  assert.equal(a.bytes, 0);
  assert.equal(a.grow(1), false, "a released reservation does not grow");
  assert.ok(b.grow(300));
  assert.equal(b.bytes, 700);
  assert.equal(b.grow(301), false);
  assert.equal(b.bytes, 700, "nothing taken when refused");
  b.release();
  assert.deepEqual(pool.stats(), { capacity: 1000, reserved: 0, peakReserved: 1000, refused: 2 });
  assert.throws(() => new BodyPool(0), RangeError);
});

Deno.test("bodyShapeLimits and bodyCost: a parsed body costs at most 20 times its bytes", () => {
  const limits = bodyShapeLimits(4 * 1024 * 1024);
  assert.equal(limits.maxDepth, 64);
  assert.equal(limits.maxValues, 1024 * 1024 + 64);
  const bytes = 3 * 1024 * 1024;
  const most = bodyCost(bytes, bodyShapeLimits(bytes).maxValues - 64);
  assert.equal(most, 20 * bytes);
});
