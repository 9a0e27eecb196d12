import assert from "node:assert/strict";
import {
  CACHE_BYTES,
  MEASURED_BYTES,
  memoryBudgetTotal,
  POOL_BYTES,
  REPORTS_BYTES,
  WEBHOOK_MEMORY_LIMIT,
  WEBHOOK_MEMORY_LIMIT_WITH_REPORTS,
  webhookMemoryLimit,
  webhookMemoryLimitQuantity,
} from "./memory_budget.ts";

const MiB = 2 ** 20;
const sum = (v: Record<string, number>) => Object.values(v).reduce((a, b) => a + b, 0);

for (const policyReports of [false, true]) {
  const name = policyReports
    ? "with the PolicyReport controller"
    : "without the PolicyReport controller";
  Deno.test(`memory budget ${name}: every bound adds up under its configuration's limit`, () => {
    const total = memoryBudgetTotal({ policyReports });
    const limit = webhookMemoryLimit({ policyReports });
    assert.ok(
      total <= limit,
      `the webhook's memory ${name} adds up to ${total / MiB} MiB, more than ${
        limit / MiB
      } MiB: lower a bound before raising another`,
    );
    assert.equal(
      total,
      sum(CACHE_BYTES) + sum(POOL_BYTES) + sum(MEASURED_BYTES) +
        (policyReports ? sum(REPORTS_BYTES) : 0),
    );
  });
}

Deno.test("memory budget: the limits are the chart's and enable's, 288Mi and 352Mi", () => {
  assert.equal(WEBHOOK_MEMORY_LIMIT, 288 * MiB);
  assert.equal(WEBHOOK_MEMORY_LIMIT_WITH_REPORTS, 352 * MiB);
  assert.equal(webhookMemoryLimitQuantity(false), "288Mi");
  assert.equal(webhookMemoryLimitQuantity(true), "352Mi");
  assert.equal(memoryBudgetTotal(), memoryBudgetTotal({ policyReports: false }));
  // --reports-max-copy-bytes above its default raises the limit by as much: the sum still fits.
  for (const copies of [48 * MiB, 64 * MiB, 64 * MiB + 1]) {
    const limit = parseInt(webhookMemoryLimitQuantity(true, copies)) * MiB;
    const total = memoryBudgetTotal({ policyReports: true }) - REPORTS_BYTES.workloadCopies +
      copies;
    assert.ok(total <= limit, `${total / MiB} MiB > ${limit / MiB} MiB`);
  }
  assert.equal(webhookMemoryLimitQuantity(true, 16 * MiB), "352Mi");
});

Deno.test("memory budget: a report bound raised past the limit with reports fails the sum", () => {
  // What the first test guards: the room left with the reports is less than doubling the
  // copies' bound, so raising it (or the verdict memo) past the limit is caught.
  const room = WEBHOOK_MEMORY_LIMIT_WITH_REPORTS - memoryBudgetTotal({ policyReports: true });
  assert.ok(room >= 0 && room < REPORTS_BYTES.workloadCopies, `${room / MiB} MiB left`);
  assert.ok(memoryBudgetTotal({ policyReports: true }) > WEBHOOK_MEMORY_LIMIT);
});

Deno.test("memory budget: the registry read pool holds every verification slot's read budget", () => {
  // 64 slots (--max-verifications) × 1 MiB each: the slots, which are fair, decide who waits.
  assert.ok(POOL_BYTES.registryReads >= 64 * 1024 * 1024);
});
