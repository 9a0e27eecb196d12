/**
 * The one polling loop of the installation steps: look, and until the look finds what it waits
 * for, sleep and look again, up to a deadline. The clock and the sleep are injected, so waits are
 * tested without waiting.
 *
 * @module
 */

/** How a wait polls. */
export interface WaitOptions {
  /** How long to wait, in ms (each wait has its own default). */
  readonly timeoutMs?: number;
  /** How often to look, in ms (each wait has its own default). */
  readonly pollMs?: number;
  /** Sleeps `ms` (injected by tests; default a timer). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** The current time in ms (default `Date.now`). */
  readonly now?: () => number;
}

/**
 * Calls `look` until it returns a value other than undefined, and returns that value. When the
 * deadline has passed after a look that found nothing, throws `timedOut(timeoutMs)`.
 */
export async function pollUntil<T>(
  look: () => Promise<T | undefined>,
  timedOut: (timeoutMs: number) => Error,
  options: WaitOptions,
  defaults: { readonly timeoutMs: number; readonly pollMs: number },
): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  const timeoutMs = options.timeoutMs ?? defaults.timeoutMs;
  const deadline = now() + timeoutMs;
  for (;;) {
    const found = await look();
    if (found !== undefined) return found;
    if (now() >= deadline) throw timedOut(timeoutMs);
    await sleep(options.pollMs ?? defaults.pollMs);
  }
}
