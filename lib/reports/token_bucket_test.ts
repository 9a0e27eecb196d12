import assert from "node:assert/strict";
import { type BucketClock, rateLimitedFetch, TokenBucket } from "./token_bucket.ts";

/** A clock whose sleeps move time on at once, recording them. */
function steppingClock(): BucketClock & { slept: number[]; time: () => number } {
  let time = 0;
  const slept: number[] = [];
  return {
    slept,
    time: () => time,
    now: () => time,
    sleep: (ms, signal) => {
      signal?.throwIfAborted();
      slept.push(ms);
      time += ms;
      return Promise.resolve();
    },
  };
}

Deno.test("a token bucket lets a burst through, then one token per 1/rate seconds", async () => {
  const clock = steppingClock();
  const bucket = new TokenBucket({ ratePerSecond: 5, burst: 3, clock });
  for (let i = 0; i < 3; i++) await bucket.take();
  assert.deepEqual(clock.slept, []);
  for (let i = 0; i < 4; i++) await bucket.take();
  // At 5/s after a burst of 3: each further take waits 200 ms of the clock.
  assert.deepEqual(clock.slept, [200, 200, 200, 200]);
  assert.equal(bucket.waited, 4);
});

Deno.test("a token bucket refills with the clock, up to its burst", async () => {
  let time = 0;
  const slept: number[] = [];
  const clock: BucketClock = {
    now: () => time,
    sleep: (ms) => (slept.push(ms), time += ms, Promise.resolve()),
  };
  const bucket = new TokenBucket({ ratePerSecond: 2, burst: 2, clock });
  await bucket.take();
  await bucket.take();
  time += 60_000; // a long pause fills the bucket to its burst, no more
  await bucket.take();
  await bucket.take();
  assert.deepEqual(slept, []);
  await bucket.take();
  assert.deepEqual(slept, [500]);
});

Deno.test("waiters reserve tokens in order: N waiting takes wait 1/rate, 2/rate, …", async () => {
  const time = 0;
  const waits: number[] = [];
  const clock: BucketClock = {
    now: () => time,
    sleep: (ms) => (waits.push(ms), Promise.resolve()),
  };
  const bucket = new TokenBucket({ ratePerSecond: 10, burst: 1, clock });
  await Promise.all([bucket.take(), bucket.take(), bucket.take(), bucket.take()]);
  assert.deepEqual(waits, [100, 200, 300]);
});

Deno.test("an aborted wait gives its token back and rejects with the reason", async () => {
  const clock: BucketClock = {
    now: () => 0,
    sleep: (_ms, signal) => Promise.reject(signal?.reason ?? new Error("no signal")),
  };
  const bucket = new TokenBucket({ ratePerSecond: 1, burst: 1, clock });
  await bucket.take();
  const abort = new AbortController();
  abort.abort(new Error("stopped"));
  await assert.rejects(bucket.take(abort.signal), /stopped/);
  // The token the refused take reserved is back: the next take still waits for one token only.
  const waits: number[] = [];
  const counting = new TokenBucket({
    ratePerSecond: 1,
    burst: 1,
    clock: { now: () => 0, sleep: (ms) => (waits.push(ms), Promise.resolve()) },
  });
  await counting.take();
  const cut = new AbortController();
  cut.abort(new Error("cut"));
  await assert.rejects(counting.take(cut.signal), /cut/);
  await counting.take();
  assert.deepEqual(waits, [1000]);
});

Deno.test("rateLimitedFetch takes a token for each request and counts the requests", async () => {
  const clock = steppingClock();
  const bucket = new TokenBucket({ ratePerSecond: 1, burst: 2, clock });
  let sent = 0;
  let counted = 0;
  const fetch = rateLimitedFetch(
    () => (sent++, Promise.resolve(new Response("ok"))),
    bucket,
    () => counted++,
  );
  for (let i = 0; i < 4; i++) assert.equal(await (await fetch("http://x/")).text(), "ok");
  assert.equal(sent, 4);
  assert.equal(counted, 4);
  assert.deepEqual(clock.slept, [1000, 1000]);
});

Deno.test("a rate of 0 is refused", () => {
  assert.throws(
    () => new TokenBucket({ ratePerSecond: 0, clock: steppingClock() }),
    RangeError,
  );
});
