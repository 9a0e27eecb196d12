/**
 * A clock for tests (`ctx.clock`): time stands still until something sleeps, and a sleep moves it
 * on at once, so a wait of minutes takes no time and its timeout can be tested.
 *
 * @module
 */
import type { Clock } from "../../cli/command.ts";

/** A {@linkcode Clock} whose sleeps return at once, moving its time on; `slept` lists them. */
export interface FakeClock extends Clock {
  /** Every sleep, in ms, in order. */
  readonly slept: number[];
}

/** A fake clock starting at `start` (ms since the epoch). */
export function fakeClock(start = Date.UTC(2026, 0, 1)): FakeClock {
  let time = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => time,
    sleep: (ms) => {
      slept.push(ms);
      time += ms;
      return Promise.resolve();
    },
  };
}
