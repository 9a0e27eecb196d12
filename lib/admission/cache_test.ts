import assert from "node:assert/strict";
import { SingleFlight } from "./cache.ts";

Deno.test("SingleFlight shares one call per key", async () => {
  const flight = new SingleFlight<string, number>();
  let calls = 0;
  let release!: (n: number) => void;
  const fn = () => {
    calls++;
    return new Promise<number>((r) => (release = r));
  };
  const a = flight.run("k", fn);
  const b = flight.run("k", fn);
  release(7);
  assert.deepEqual(await Promise.all([a, b]), [7, 7]);
  assert.equal(calls, 1);
  assert.equal(flight.size, 0);
});
