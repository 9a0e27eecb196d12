import assert from "node:assert/strict";
import { createJsonLog } from "./log.ts";

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
