import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { KnownVerdicts, MAX_MEMO_RENEWALS, servedFromMemory } from "./known_verdicts.ts";
import { VerdictMemo } from "./verdict_memo.ts";
import type { ImageVerdict, VerifyTask } from "./verification.ts";
import { fakeMatch } from "../../tests/fakes/requirement_kinds.ts";

const DIGEST = `sha256:${"d".repeat(64)}`;

function world(options: { memo?: boolean } = {}) {
  let time = 0;
  let generation = 1;
  const renewed: string[] = [];
  let hits = 0;
  const known = new KnownVerdicts({
    memo: options.memo === false ? undefined : new VerdictMemo<ImageVerdict>({
      maxEntries: 16,
      now: () => time,
      validityNow: () => time,
      generation: () => generation,
    }),
    now: () => time,
    verdictCache: { ttlMs: 60_000, maxEntries: 10 },
    digestCache: { ttlMs: 60_000, maxEntries: 10 },
    flightTimeoutMs: 1000,
    renew: (task) => {
      renewed.push(task.credentialsKey ?? "");
      return Promise.resolve();
    },
    onHit: () => hits++,
  });
  const match = fakeMatch();
  const reference = parseReference(`r.example/team/app@${DIGEST}`);
  const task = (credentialsKey?: string): VerifyTask => ({
    reference,
    match,
    namespace: "dev",
    credentials: () => Promise.reject(new Error("not read")),
    ...(credentialsKey === undefined ? {} : { credentialsKey }),
  });
  return {
    known,
    task,
    renewed,
    hits: () => hits,
    tick: (ms: number) => time += ms,
    bump: () => generation++,
  };
}

const admitted: ImageVerdict = { allowed: true, digest: DIGEST, signers: ["F1"] };

Deno.test("KnownVerdicts answers a remembered verdict synchronously, under the source's generation", () => {
  const w = world();
  const task = w.task("ctx");
  assert.equal(w.known.known(task), undefined);
  w.known.remember(task, admitted, undefined, w.known.generation());
  assert.deepEqual(w.known.known(task), servedFromMemory(DIGEST, ["F1"]));
  assert.equal(w.hits(), 1);
  // Other credentials, a task without a credentials key, and a new generation know nothing.
  assert.equal(w.known.known(w.task("other")), undefined);
  assert.equal(w.known.known(w.task()), undefined);
  w.bump();
  assert.equal(w.known.known(task), undefined);
});

Deno.test("KnownVerdicts remembers neither denials nor verdicts of an older generation", () => {
  const w = world();
  const task = w.task("ctx");
  w.known.remember(task, { allowed: false, reason: "no", cause: "policy" }, undefined, 1);
  assert.equal(w.known.known(task), undefined);
  const before = w.known.generation();
  w.bump();
  w.known.remember(task, admitted, undefined, before);
  assert.equal(w.known.known(task), undefined);
  // Without a memo nothing is remembered.
  const none = world({ memo: false });
  none.known.remember(none.task("ctx"), admitted, undefined, none.known.generation());
  assert.equal(none.known.known(none.task("ctx")), undefined);
});

Deno.test("KnownVerdicts renews a verdict past half its life once, after the answer", async () => {
  const w = world();
  const task = w.task("ctx");
  w.known.remember(task, admitted, undefined, w.known.generation());
  assert.ok(w.known.known(task));
  w.tick(600);
  assert.ok(w.known.known(task));
  assert.ok(w.known.known(task));
  assert.deepEqual(w.renewed, [], "nothing runs before the answer has gone");
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(w.renewed, ["ctx"]);
  assert.ok(MAX_MEMO_RENEWALS > 0);
});
