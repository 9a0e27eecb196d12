import assert from "node:assert/strict";
import { createTokenCache, type TokenKey } from "./token_cache.ts";

const key: TokenKey = {
  realm: "https://auth.example/token",
  service: "registry",
  scopes: ["repository:a/b:pull"],
  identity: "",
};

Deno.test("createTokenCache() returns a token until it expires on the injected clock", () => {
  let now = 1_000_000;
  const cache = createTokenCache(() => now);
  cache.set(key, "t1", now, 60);
  now += 59_999;
  assert.equal(cache.get(key), "t1");
  now += 1;
  assert.equal(cache.get(key), undefined);
  assert.equal(cache.size, 0);
});

Deno.test("createTokenCache() keys tokens by realm, service, scopes and identity", () => {
  const cache = createTokenCache(() => 0);
  cache.set(key, "anonymous", 0, 300);
  cache.set({ ...key, identity: "secret a\u0000alice" }, "alice", 0, 300);
  assert.equal(cache.get(key), "anonymous");
  assert.equal(cache.get({ ...key, identity: "secret a\u0000alice" }), "alice");
  assert.equal(cache.get({ ...key, scopes: ["repository:a/b:pull,push"] }), undefined);
  assert.equal(cache.get({ ...key, service: "other" }), undefined);
  cache.delete(key);
  assert.equal(cache.get(key), undefined);
});

Deno.test("createTokenCache() is bounded by count: expired tokens go first, then the oldest", () => {
  let now = 0;
  const cache = createTokenCache(() => now, { maxEntries: 3 });
  const repo = (n: number): TokenKey => ({ ...key, scopes: [`repository:r${n}:pull`] });
  cache.set(repo(0), "short", now, 1);
  cache.set(repo(1), "t1", now, 300);
  cache.set(repo(2), "t2", now, 300);
  now = 2000;
  cache.set(repo(3), "t3", now, 300); // the expired one makes room
  assert.equal(cache.size, 3);
  assert.equal(cache.get(repo(1)), "t1");
  for (let n = 4; n < 1000; n++) cache.set(repo(n), `t${n}`, now, 300);
  assert.equal(cache.size, 3);
  assert.equal(cache.get(repo(999)), "t999");
  assert.deepEqual(cache.stats().maxEntries, 3);
});

Deno.test("createTokenCache() is bounded by bytes", () => {
  const cache = createTokenCache(() => 0, { maxBytes: 4096 });
  const big = "x".repeat(1000);
  for (let n = 0; n < 100; n++) {
    cache.set({ ...key, scopes: [`repository:r${n}:pull`] }, big, 0, 300);
  }
  assert.ok(cache.stats().bytes <= 4096);
  assert.ok(cache.size <= 4);
});
