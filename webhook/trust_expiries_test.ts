import assert from "node:assert/strict";
import type { TrustExpiry } from "../lib/admission/mod.ts";
import { MAX_TRUST_EXPIRIES, TRUST_EXPIRY_TTL_MS, TrustExpiries } from "./trust_expiries.ts";

const keySecret = (name: string, expiresAt: number | undefined): TrustExpiry => ({
  material: "key-secret",
  kind: "Secret",
  namespace: "toolkit-system",
  name,
  expiresAt,
});

Deno.test("TrustExpiries keeps the latest report of each object", () => {
  const tracker = new TrustExpiries(() => 0);
  tracker.observe(keySecret("a", 1000));
  tracker.observe(keySecret("b", undefined));
  tracker.observe(keySecret("a", 2000));
  tracker.observe({ ...keySecret("a", 5), material: "trust-root", kind: "ConfigMap" });
  assert.deepEqual(tracker.current(), [
    keySecret("b", undefined),
    keySecret("a", 2000),
    { ...keySecret("a", 5), material: "trust-root", kind: "ConfigMap" },
  ]);
});

Deno.test("TrustExpiries drops what was not read for a day and keeps a bounded number", () => {
  let now = 0;
  const tracker = new TrustExpiries(() => now);
  tracker.observe(keySecret("old", 1));
  now = TRUST_EXPIRY_TTL_MS / 2;
  tracker.observe(keySecret("recent", 2));
  now = TRUST_EXPIRY_TTL_MS + 1;
  assert.deepEqual(tracker.current().map((e) => e.name), ["recent"]);
  for (let i = 0; i < MAX_TRUST_EXPIRIES + 10; i++) tracker.observe(keySecret(`s${i}`, i));
  const names = tracker.current().map((e) => e.name);
  assert.equal(names.length, MAX_TRUST_EXPIRIES);
  assert.equal(names.at(-1), `s${MAX_TRUST_EXPIRIES + 9}`);
  assert.ok(!names.includes("recent") && !names.includes("s0"), "the least recently read go");
});
