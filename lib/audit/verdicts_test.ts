import assert from "node:assert/strict";
import type { ImageVerdict, ImageVerifier, VerifyTask } from "../admission/mod.ts";
import { parseReference } from "../image/mod.ts";
import type { PolicyMatch, RepositoryPolicy } from "../policy/mod.ts";
import { auditVerifier, MAX_AUDIT_VERDICT_BYTES, rememberedBytes } from "./verdicts.ts";

function match(policy: RepositoryPolicy): PolicyMatch {
  return {
    policy,
    pattern: "*",
    source: 'ClusterImagePolicy "p"',
    kind: "ClusterImagePolicy",
    name: "p",
  };
}

const signed: RepositoryPolicy = {
  simple: { requirements: [{ type: "signedBy", keySecret: "k" }] },
};
const stored: RepositoryPolicy = {
  simple: {
    requirements: [{ type: "signedBy", keySecret: "k" }],
    storeURL: "https://s.example",
    storeSecret: "store",
  },
};

function task(image: string, namespace: string, m: PolicyMatch, pullSecret = ""): VerifyTask {
  return {
    reference: parseReference(image),
    match: m,
    namespace,
    credentialsKey: JSON.stringify([namespace, "default", pullSecret]),
    credentials: () =>
      Promise.resolve({
        id: pullSecret ? `${namespace}/${pullSecret}@1` : "",
        store: { lookup: () => [] },
        secrets: [],
        skipped: [],
      }),
  };
}

class Counting implements ImageVerifier {
  calls = 0;
  async verify(): Promise<ImageVerdict> {
    this.calls++;
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { allowed: false, cause: "policy", reason: "no signature" };
  }
}

Deno.test("auditVerifier() verifies an image once for every namespace that pulls it the same way", async () => {
  const inner = new Counting();
  const verifier = auditVerifier(inner);
  const m = match(signed);
  // Concurrently, from 20 namespaces without pull Secrets: one verification, denials included.
  const verdicts = await Promise.all(
    Array.from({ length: 20 }, (_, i) => verifier.verify(task("r.example/a:1", `ns${i}`, m))),
  );
  assert.equal(inner.calls, 1);
  assert.ok(verdicts.every((v) => v.allowed === false));
  // Known at once from then on, for the same names.
  assert.equal(verifier.known!(task("r.example/a:1", "ns3", m))?.allowed, false);
  // Another image, another pull Secret, a policy that reads a Secret of the workload's
  // namespace: each verified on its own.
  await verifier.verify(task("r.example/b:1", "ns0", m));
  await verifier.verify(task("r.example/a:1", "ns0", m, "regcred"));
  const s = match(stored);
  await verifier.verify(task("r.example/a:1", "ns0", s));
  await verifier.verify(task("r.example/a:1", "ns1", s));
  await verifier.verify(task("r.example/a:1", "ns1", s));
  assert.equal(inner.calls, 5);
  verifier.forget();
  assert.equal(verifier.remembered, 0);
  await verifier.verify(task("r.example/a:1", "ns0", m));
  assert.equal(inner.calls, 6);
});

Deno.test("auditVerifier() lets a workload verify for itself when the one it waited on gave up", async () => {
  let calls = 0;
  const verifier = auditVerifier({
    async verify(_task, signal) {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      signal?.throwIfAborted();
      return { allowed: true };
    },
  });
  const m = match(signed);
  const gone = new AbortController();
  const first = verifier.verify(task("r.example/a:1", "ns0", m), gone.signal);
  const second = verifier.verify(task("r.example/a:1", "ns1", m));
  gone.abort(new Error("client gone"));
  await assert.rejects(first, /client gone/);
  assert.equal((await second).allowed, true);
  assert.equal(calls, 2);
});

Deno.test("auditVerifier() remembers verdicts within a byte bound, counted before they are kept", async () => {
  const inner = new Counting();
  const m = match(signed);
  const first = task("r.example/a:0", "ns0", m);
  const denied = { allowed: false, cause: "policy", reason: "no signature" } as const;
  // Each verdict is remembered twice (by names and by credentials): room for about five images.
  const one = rememberedBytes(`${"x".repeat(60)}`, denied);
  const verifier = auditVerifier(inner, { maxBytes: 10 * one + 200 });
  for (let i = 0; i < 20; i++) await verifier.verify(task(`r.example/a:${i}`, "ns0", m));
  assert.equal(inner.calls, 20);
  assert.ok(verifier.rememberedBytes <= 10 * one + 200, `${verifier.rememberedBytes}`);
  assert.ok(verifier.remembered > 0 && verifier.remembered < 20, `${verifier.remembered}`);
  // What was remembered answers; what was not is verified again, as the verifier alone would.
  await verifier.verify(first);
  assert.equal(inner.calls, 20);
  await verifier.verify(task("r.example/a:19", "ns0", m));
  assert.equal(inner.calls, 21);
  verifier.forget();
  assert.equal(verifier.rememberedBytes, 0);
  // The count bound holds too.
  const few = auditVerifier(new Counting(), { maxVerdicts: 3 });
  for (let i = 0; i < 10; i++) await few.verify(task(`r.example/a:${i}`, "ns0", m));
  assert.equal(few.remembered, 3);
  assert.ok(MAX_AUDIT_VERDICT_BYTES >= 4 * 1024 * 1024);
});
