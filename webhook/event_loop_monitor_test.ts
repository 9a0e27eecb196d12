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

Deno.test("monitorEventLoop() tells a stall the process caused from one the machine caused", async () => {
  let cpu = 0;
  let wall = 0;
  const ticks: (() => void)[] = [];
  using monitor = monitorEventLoop(10, () => wall, () => cpu);
  // Simulated clocks: 100 ms late with 100 ms of CPU, then 300 ms late with 5 ms of CPU.
  const step = (lateMs: number, cpuMs: number) => {
    wall += 10 + lateMs;
    cpu += cpuMs;
  };
  ticks.push(() => step(100, 100), () => step(300, 5));
  for (const tick of ticks) {
    tick();
    await new Promise((r) => setTimeout(r, 15));
  }
  const stalls = monitor.stalls();
  assert.ok(stalls.maxStallMs >= 300, `${stalls.maxStallMs}`);
  assert.ok(
    stalls.maxBusyStallMs >= 100 && stalls.maxBusyStallMs < 300,
    `${stalls.maxBusyStallMs}`,
  );
});
