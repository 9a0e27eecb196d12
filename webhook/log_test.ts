import assert from "node:assert/strict";
import { createJsonLog, LOG_ARRAY_LIMIT, LOG_STRING_LIMIT } from "./log.ts";

Deno.test("createJsonLog() writes one JSON object a line, in batches", () => {
  const writes: string[] = [];
  const log = createJsonLog((b) => writes.push(new TextDecoder().decode(b)), {
    now: () => new Date(0),
  });
  log.write({ msg: "a", uid: "1" });
  log.write({ msg: "b", level: "warn" });
  assert.equal(writes.length, 0);
  log.flush();
  assert.equal(writes.length, 1);
  const lines = writes[0]!.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines, [
    { time: "1970-01-01T00:00:00.000Z", level: "info", msg: "a", uid: "1" },
    { time: "1970-01-01T00:00:00.000Z", level: "warn", msg: "b" },
  ]);
});

Deno.test("createJsonLog() flushes a large batch at once", () => {
  const writes: Uint8Array[] = [];
  const log = createJsonLog((b) => writes.push(b), { maxBatchBytes: 10 });
  log.write({ msg: "long enough to flush" });
  assert.equal(writes.length, 1);
});

Deno.test("createJsonLog() keeps a bounded prefix of long strings and the first items of long arrays", () => {
  const writes: string[] = [];
  const log = createJsonLog((b) => writes.push(new TextDecoder().decode(b)));
  const huge = "A".repeat(2_900_000);
  log.write({ msg: "review", name: huge, reasons: Array(1000).fill(`bad image "${huge}"`) });
  log.flush();
  const line = writes.join("");
  assert.ok(line.length < 2 * LOG_ARRAY_LIMIT * LOG_STRING_LIMIT, `${line.length} characters`);
  const record = JSON.parse(line);
  assert.equal(record.name, `${"A".repeat(LOG_STRING_LIMIT)}…(2900000 bytes)`);
  assert.equal(record.reasons.length, LOG_ARRAY_LIMIT + 1);
  assert.equal(record.reasons.at(-1), `…(${1000 - LOG_ARRAY_LIMIT} more)`);
});
