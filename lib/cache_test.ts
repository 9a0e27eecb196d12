import assert from "node:assert/strict";
import { TtlCache } from "./cache.ts";

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

Deno.test("TtlCache is bounded by bytes: the least recently used entries go first", () => {
  const cache = new TtlCache<string, string>({
    ttlMs: 1000,
    maxEntries: 100,
    maxBytes: 10,
    sizeOf: (k, v) => k.length + v.length,
    now: () => 0,
  });
  cache.set("a", "1234"); // 5 bytes
  cache.set("b", "1234"); // 10
  cache.set("c", "12"); // 13: "a" goes
  assert.equal(cache.get("a"), undefined);
  assert.equal(cache.get("b"), "1234");
  assert.equal(cache.bytes, 8);
  assert.deepEqual(cache.stats(), {
    name: "",
    entries: 2,
    bytes: 8,
    maxEntries: 100,
    maxBytes: 10,
  });
});

Deno.test("TtlCache does not store an entry larger than its byte bound", () => {
  const cache = new TtlCache<string, number>({ ttlMs: 1000, maxEntries: 10, maxBytes: 4 });
  cache.set("short", 1);
  assert.equal(cache.get("short"), undefined);
  assert.equal(cache.size, 0);
  assert.equal(cache.bytes, 0);
});

Deno.test("TtlCache drops expired entries before live ones when full", () => {
  let now = 0;
  const cache = new TtlCache<string, number>({ ttlMs: 1000, maxEntries: 2, now: () => now });
  cache.set("live", 1);
  cache.set("short", 2, 10); // its own, shorter lifetime
  now = 500;
  cache.get("live"); // not moved: expiry, not recency, decides
  cache.set("new", 3);
  assert.equal(cache.get("live"), 1);
  assert.equal(cache.get("new"), 3);
  assert.equal(cache.size, 2);
});

Deno.test("TtlCache keeps its byte count right when entries are replaced and removed", () => {
  const cache = new TtlCache<string, number>({ name: "t", ttlMs: 1000, maxEntries: 10 });
  cache.set("ab", 1);
  cache.set("ab", 2);
  cache.set("cde", 3);
  assert.equal(cache.bytes, 5);
  cache.delete("ab");
  assert.equal(cache.bytes, 3);
  cache.clear();
  assert.equal(cache.stats().bytes, 0);
  assert.equal(cache.stats().name, "t");
});

Deno.test("TtlCache keeps an entry with its own shorter lifetime only that long", () => {
  let now = 1000;
  const cache = new TtlCache<string, number>({ ttlMs: 100, maxEntries: 10, now: () => now });
  cache.set("short", 1, 10);
  cache.set("long", 2, 1000); // never beyond the cache's own lifetime
  cache.set("gone", 3);
  cache.set("gone", 3, 0); // a lifetime of 0 removes what was there
  assert.equal(cache.get("gone"), undefined);
  now += 10;
  assert.equal(cache.get("short"), undefined);
  now += 89;
  assert.equal(cache.get("long"), 2);
  now += 1;
  assert.equal(cache.get("long"), undefined);
});

Deno.test("values() lists the live values, least recently stored first, and drops the expired", () => {
  let now = 0;
  const cache = new TtlCache<string, number>({ ttlMs: 100, maxEntries: 10, now: () => now });
  cache.set("a", 1);
  now = 50;
  cache.set("b", 2);
  cache.set("c", 3);
  cache.set("b", 4);
  assert.deepEqual(cache.values(), [1, 3, 4]);
  now = 100;
  assert.deepEqual(cache.values(), [3, 4]);
  assert.equal(cache.size, 2);
});
