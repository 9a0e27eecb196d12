import assert from "node:assert/strict";
import {
  CACHE_BYTES,
  MEASURED_BYTES,
  memoryBudgetTotal,
  POOL_BYTES,
  WEBHOOK_MEMORY_LIMIT,
} from "./memory_budget.ts";

Deno.test("memory budget: caches, pools, connections and the runtime add up under the chart's limit", () => {
  const total = memoryBudgetTotal();
  assert.ok(
    total <= WEBHOOK_MEMORY_LIMIT,
    `the webhook's memory adds up to ${total / 2 ** 20} MiB, more than ${
      WEBHOOK_MEMORY_LIMIT / 2 ** 20
    } MiB: lower a bound before raising another`,
  );
  const sum = (v: Record<string, number>) => Object.values(v).reduce((a, b) => a + b, 0);
  assert.equal(total, sum(CACHE_BYTES) + sum(POOL_BYTES) + sum(MEASURED_BYTES));
});

Deno.test("memory budget: the registry read pool holds every verification slot's read budget", () => {
  // 64 slots (--max-verifications) × 1 MiB each: the slots, which are fair, decide who waits.
  assert.ok(POOL_BYTES.registryReads >= 64 * 1024 * 1024);
});
