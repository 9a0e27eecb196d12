/**
 * How long the event loop was held: a timer asks to run every `intervalMs` and notes how late
 * it ran. Everything the webhook does (reviews, `/healthz`, TLS handshakes, SIGTERM) waits
 * while one step holds the loop, so the longest delay seen is the longest stall any request
 * met. `/metrics` exports it; the hostile-load benchmark prints it.
 *
 * @module
 */

/** The thresholds stalls are counted over, in milliseconds. */
export const STALL_THRESHOLDS_MS = [10, 50, 100, 500] as const;

/** What the monitor saw since it started. */
export interface EventLoopStalls {
  /** The longest delay of the timer beyond its interval, in milliseconds. */
  readonly maxStallMs: number;
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
): EventLoopMonitor {
  let last = now();
  let maxStallMs = 0;
  const over = STALL_THRESHOLDS_MS.map(() => 0);
  const timer = setInterval(() => {
    const at = now();
    const stall = Math.max(0, at - last - intervalMs);
    last = at;
    if (stall > maxStallMs) maxStallMs = stall;
    for (let i = 0; i < STALL_THRESHOLDS_MS.length && stall >= STALL_THRESHOLDS_MS[i]!; i++) {
      over[i]!++;
    }
  }, intervalMs);
  Deno.unrefTimer(timer);
  return {
    stalls: () => ({ maxStallMs, stallsOver: [...over] }),
    [Symbol.dispose]: () => clearInterval(timer),
  };
}
