import assert from "node:assert/strict";
import { FlightAbandonedError, SharedFlights } from "./shared_flight.ts";

/** Work that runs until it is told or its signal aborts; records how it ended. */
function hanging() {
  const ended: Error[] = [];
  let starts = 0;
  let finish!: (value: string) => void;
  const start = (signal: AbortSignal) => {
    starts++;
    return new Promise<string>((resolve, reject) => {
      finish = resolve;
      signal.addEventListener("abort", () => {
        ended.push(signal.reason);
        reject(signal.reason);
      });
    });
  };
  return { start, ended, starts: () => starts, finish: (v: string) => finish(v) };
}

Deno.test("SharedFlights shares one flight per key between its callers", async () => {
  const flights = new SharedFlights<string, string>();
  const work = hanging();
  const a = flights.join("k", work.start, new AbortController().signal);
  const b = flights.join("k", work.start);
  assert.equal(work.starts(), 1);
  assert.equal(flights.members("k"), 2);
  work.finish("done");
  assert.deepEqual(await Promise.all([a, b]), ["done", "done"]);
  assert.equal(flights.size, 0);
  assert.equal(work.ended.length, 0);
});

Deno.test("SharedFlights: a caller that leaves stops waiting; the last one aborts the flight", async () => {
  const flights = new SharedFlights<string, string>();
  const work = hanging();
  const first = new AbortController();
  const second = new AbortController();
  const a = flights.join("k", work.start, first.signal);
  const b = flights.join("k", work.start, second.signal);
  first.abort(new Error("deadline a"));
  await assert.rejects(a, /deadline a/);
  assert.equal(work.ended.length, 0, "b still waits: the flight goes on");
  assert.equal(flights.members("k"), 1);
  second.abort(new Error("deadline b"));
  await assert.rejects(b, /deadline b/);
  assert.equal(work.ended.length, 1);
  assert.ok(work.ended[0] instanceof FlightAbandonedError);
  assert.equal(flights.size, 0);
  // The key is free: the next caller starts a new flight.
  const c = flights.join("k", work.start);
  assert.equal(work.starts(), 2);
  work.finish("again");
  assert.equal(await c, "again");
});

Deno.test("SharedFlights: an aborted signal joins nothing; a failure reaches every caller", async () => {
  const flights = new SharedFlights<string, string>();
  const aborted = new AbortController();
  aborted.abort(new Error("gone"));
  let started = false;
  await assert.rejects(
    flights.join("k", () => {
      started = true;
      return Promise.resolve("x");
    }, aborted.signal),
    /gone/,
  );
  assert.equal(started, false);
  const failing = () => Promise.reject(new Error("registry"));
  const calls = [flights.join("f", failing), flights.join("f", failing, AbortSignal.timeout(1e4))];
  for (const call of calls) await assert.rejects(call, /registry/);
  assert.equal(flights.size, 0);
});
