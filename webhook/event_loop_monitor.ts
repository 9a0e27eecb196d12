/**
 * How long the event loop was held: a timer asks to run every `intervalMs` and notes how late
 * it ran. Everything the webhook does (reviews, `/healthz`, TLS handshakes, SIGTERM) waits
 * while one step holds the loop, so the longest delay seen is the longest stall any request
 * met. `/metrics` exports it; the hostile-load benchmark prints it.
 *
 * @module
 */

/** What the monitor saw since it started. */
export interface EventLoopStalls {
  /** The longest delay of the timer beyond its interval, in milliseconds. */
  readonly maxStallMs: number;
  /** Delays of 10 ms or more. */
  readonly stallsOver10Ms: number;
  /** Delays of 100 ms or more. */
  readonly stallsOver100Ms: number;
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
  let stallsOver10Ms = 0;
  let stallsOver100Ms = 0;
  const timer = setInterval(() => {
    const at = now();
    const stall = Math.max(0, at - last - intervalMs);
    last = at;
    if (stall > maxStallMs) maxStallMs = stall;
    if (stall >= 10) stallsOver10Ms++;
    if (stall >= 100) stallsOver100Ms++;
  }, intervalMs);
  Deno.unrefTimer(timer);
  return {
    stalls: () => ({ maxStallMs, stallsOver10Ms, stallsOver100Ms }),
    [Symbol.dispose]: () => clearInterval(timer),
  };
}
