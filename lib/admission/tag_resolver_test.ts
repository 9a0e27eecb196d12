import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { MemoryPool } from "../read_budget.ts";
import type { PullCredentials } from "./credentials.ts";
import { TagResolver } from "./tag_resolver.ts";
import type { VerifyCall } from "./verify_call.ts";

const DIGEST = `sha256:${"d".repeat(64)}`;

function world() {
  const asked: string[] = [];
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => release = resolve);
  const resolver = new TagResolver({
    clientFor: (credentials) => ({
      resolveDigest: async (ref) => {
        asked.push(`${credentials.id} ${ref.domain}/${ref.path}:${ref.tag}`);
        await gate;
        return DIGEST;
      },
    }),
    digestCache: { ttlMs: 60_000, maxEntries: 10 },
    flightTimeoutMs: 10_000,
    memory: { pool: new MemoryPool(1024), imageReadBytes: 16 },
    now: () => 0,
  });
  let slots = 0;
  const call = (): VerifyCall => ({
    signal: undefined,
    slot: () => {
      slots++;
      return Promise.resolve();
    },
  });
  return { resolver, asked, release, call, slots: () => slots };
}

const credentials = (id: string) => ({ id }) as PullCredentials;

Deno.test("TagResolver shares one resolution, then answers from its cache without a promise or a slot", async () => {
  const { resolver, asked, release, call, slots } = world();
  const ref = parseReference("r.example/team/app:1");
  const first = resolver.resolveTag(ref, credentials("c"), call());
  const second = resolver.resolveTag(ref, credentials("c"), call());
  assert.ok(first instanceof Promise && second instanceof Promise);
  release();
  assert.deepEqual(await Promise.all([first, second]), [DIGEST, DIGEST]);
  assert.deepEqual(asked, ["c r.example/team/app:1"]);
  assert.equal(slots(), 2);
  assert.equal(resolver.resolveTag(ref, credentials("c"), call()), DIGEST);
  assert.equal(slots(), 2);
  // Other credentials resolve for themselves; no tag is `latest`.
  const other = resolver.resolveTag(parseReference("r.example/team/app"), credentials("d"), call());
  assert.equal(await other, DIGEST);
  assert.deepEqual(asked, ["c r.example/team/app:1", "d r.example/team/app:latest"]);
  assert.equal(resolver.stats().name, "digest");
});

Deno.test("TagResolver.digestOf() takes a reference's own digest as it is", () => {
  const { resolver, asked, call } = world();
  const pinned = parseReference(`r.example/team/app:1@${DIGEST}`);
  assert.equal(resolver.digestOf(pinned, credentials("c"), call()), DIGEST);
  assert.deepEqual(asked, []);
});
