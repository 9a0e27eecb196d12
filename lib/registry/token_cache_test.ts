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
