import assert from "node:assert/strict";
import { SingleFlight, TtlCache } from "./cache.ts";

Deno.test("TtlCache expires entries after their time to live", () => {
  let now = 1000;
  const cache = new TtlCache<string, number>({ ttlMs: 100, maxEntries: 10, now: () => now });
  cache.set("a", 1);
  now += 99;
  assert.equal(cache.get("a"), 1);
  now += 1;
  assert.equal(cache.get("a"), undefined);
  assert.equal(cache.size, 0);
});

Deno.test("TtlCache keeps an entry with its own shorter lifetime only that long", () => {
  let now = 1000;
  const cache = new TtlCache<string, number>({ ttlMs: 100, maxEntries: 10, now: () => now });
  cache.set("short", 1, 10);
  cache.set("long", 2, 1000); // never beyond the cache's own lifetime
  cache.set("gone", 3, 0);
  assert.equal(cache.get("gone"), undefined);
  now += 10;
  assert.equal(cache.get("short"), undefined);
  now += 89;
  assert.equal(cache.get("long"), 2);
  now += 1;
  assert.equal(cache.get("long"), undefined);
});

Deno.test("TtlCache drops the least recently used entry when full", () => {
  let now = 0;
  const cache = new TtlCache<string, number>({ ttlMs: 1000, maxEntries: 2, now: () => now });
  cache.set("a", 1);
  cache.set("b", 2);
  now = 300; // a hit moves an entry once it has not moved for a quarter of the lifetime
  cache.get("a");
  cache.set("c", 3);
  assert.equal(cache.get("b"), undefined);
  assert.equal(cache.get("a"), 1);
  assert.equal(cache.get("c"), 3);
});

Deno.test("TtlCache with a zero size or lifetime keeps nothing", () => {
  const none = new TtlCache<string, number>({ ttlMs: 0, maxEntries: 10 });
  none.set("a", 1);
  assert.equal(none.get("a"), undefined);
});

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
