import assert from "node:assert/strict";
import { monitorEventLoop } from "./event_loop_monitor.ts";

Deno.test("monitorEventLoop() notes a step that holds the loop", async () => {
  using monitor = monitorEventLoop(5);
  await new Promise((r) => setTimeout(r, 20));
  const until = performance.now() + 60;
  while (performance.now() < until) {
    // Hold the loop for 60 ms.
  }
  await new Promise((r) => setTimeout(r, 30));
  const stalls = monitor.stalls();
  assert.ok(stalls.maxStallMs >= 40, `${stalls.maxStallMs} ms`);
  assert.ok(stalls.stallsOver[0]! >= 1, "over 10 ms");
  assert.ok(stalls.stallsOver[1]! >= 1, "over 50 ms");
});
