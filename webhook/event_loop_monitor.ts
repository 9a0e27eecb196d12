/**
 * How long the event loop was held: a timer asks to run every `intervalMs` and notes how late
 * it ran. Everything the webhook does (reviews, `/healthz`, TLS handshakes, SIGTERM) waits
 * while one step holds the loop, so the longest delay seen is the longest stall any request
 * met. `/metrics` exports it; the hostile-load benchmark prints it.
 *
 * A late timer has two causes: the process held its own loop (its CPU time grew as much as the
 * delay), or the machine ran something else (its CPU time hardly grew). The monitor also keeps
 * the longest delay the process's own CPU time accounts for (the smaller of the delay and the
 * CPU time used meanwhile, all threads counted, so it errs high): on a busy machine that, not
 * the wall-clock delay, tells whether the webhook held its loop.
 *
 * @module
 */
import process from "node:process";

/** The CPU time the process used so far (user and system, all threads), in milliseconds. */
function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The thresholds stalls are counted over, in milliseconds. */
export const STALL_THRESHOLDS_MS = [10, 50, 100, 500] as const;

/** What the monitor saw since it started. */
export interface EventLoopStalls {
  /** The longest delay of the timer beyond its interval, in milliseconds. */
  readonly maxStallMs: number;
  /** The longest delay that the process's own CPU time accounts for, in milliseconds. */
  readonly maxBusyStallMs: number;
  /** How many delays were at least each of {@linkcode STALL_THRESHOLDS_MS}, in that order. */
  readonly stallsOver: readonly number[];
}

/** A running monitor; disposing of it stops its timer. */
export interface EventLoopMonitor extends Disposable {
  /** What it saw so far. */
  stalls(): EventLoopStalls;
}

/** Starts watching the event loop; the timer does not keep the process alive. */
export function monitorEventLoop(
  intervalMs = 20,
  now: () => number = () => performance.now(),
  cpuMs: () => number = processCpuMs,
): EventLoopMonitor {
  let last = now();
  let lastCpu = cpuMs();
  let maxStallMs = 0;
  let maxBusyStallMs = 0;
  const over = STALL_THRESHOLDS_MS.map(() => 0);
  const timer = setInterval(() => {
    const at = now();
    const cpu = cpuMs();
    const stall = Math.max(0, at - last - intervalMs);
    const busy = Math.min(stall, cpu - lastCpu);
    last = at;
    lastCpu = cpu;
    if (stall > maxStallMs) maxStallMs = stall;
    if (busy > maxBusyStallMs) maxBusyStallMs = busy;
    for (let i = 0; i < STALL_THRESHOLDS_MS.length && stall >= STALL_THRESHOLDS_MS[i]!; i++) {
      over[i]!++;
    }
  }, intervalMs);
  Deno.unrefTimer(timer);
  return {
    stalls: () => ({ maxStallMs, maxBusyStallMs, stallsOver: [...over] }),
    [Symbol.dispose]: () => clearInterval(timer),
  };
}
