import assert from "node:assert/strict";
import { FakeKubeApi } from "../../tests/fakes/kube_api.ts";
import { fakeKubeClient } from "../../tests/fakes/kube_transport.ts";
import { LEASES, NAMESPACES } from "../kube/mod.ts";
import { runLeaderElection } from "./lease.ts";
import type { BucketClock } from "./token_bucket.ts";

/** Real waits, shortened: a retry period of 2 s takes 2 ms. */
const fastClock: BucketClock = {
  now: () => Date.now() * 1000,
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, Math.max(1, ms / 1000));
      signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), {
        once: true,
      });
    }),
};

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 3000 && !check(); i++) await new Promise((r) => setTimeout(r, 2));
  assert.ok(check(), "never happened");
}

Deno.test("one candidate leads at a time; the standby takes over when the leader releases", async () => {
  const api = new FakeKubeApi();
  api.seed(NAMESPACES, { metadata: { name: "toolkit-system" } });
  const client = fakeKubeClient((r) => api.transport().open(r));
  const leading = new Set<string>();
  const terms: string[] = [];
  const candidate = (identity: string, stop: AbortSignal) =>
    runLeaderElection(
      { client, namespace: "toolkit-system", name: "reports", identity, clock: fastClock },
      async (signal) => {
        leading.add(identity);
        terms.push(identity);
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        leading.delete(identity);
      },
      stop,
    );
  const stopA = new AbortController();
  const stopB = new AbortController();
  const a = candidate("a", stopA.signal);
  await until(() => leading.has("a"));
  const b = candidate("b", stopB.signal);
  // b stands by while a renews.
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 2));
    assert.deepEqual([...leading], ["a"]);
  }
  stopA.abort();
  await a;
  const released = api.get(LEASES, "toolkit-system", "reports") as {
    spec?: { holderIdentity?: string };
  };
  assert.notEqual(released.spec?.holderIdentity, "a");
  await until(() => leading.has("b"));
  assert.deepEqual(terms, ["a", "b"]);
  const held = api.get(LEASES, "toolkit-system", "reports") as unknown as {
    spec: { holderIdentity: string; leaseTransitions: number };
  };
  assert.equal(held.spec.holderIdentity, "b");
  stopB.abort();
  await b;
});

Deno.test("a holder that vanished without releasing is replaced once its Lease expires", async () => {
  const api = new FakeKubeApi();
  api.seed(NAMESPACES, { metadata: { name: "toolkit-system" } });
  api.seed(LEASES, {
    metadata: { name: "reports", namespace: "toolkit-system" },
    spec: {
      holderIdentity: "gone",
      leaseDurationSeconds: 15,
      renewTime: "2026-01-01T00:00:00.000000Z",
    },
  });
  const client = fakeKubeClient((r) => api.transport().open(r));
  const stop = new AbortController();
  let led = false;
  const run = runLeaderElection(
    { client, namespace: "toolkit-system", name: "reports", identity: "b", clock: fastClock },
    async (signal) => {
      led = true;
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    },
    stop.signal,
  );
  await until(() => led);
  const lease = api.get(LEASES, "toolkit-system", "reports") as unknown as {
    spec: { holderIdentity: string; leaseTransitions: number };
  };
  assert.equal(lease.spec.holderIdentity, "b");
  assert.equal(lease.spec.leaseTransitions, 1);
  stop.abort();
  await run;
});

Deno.test("a leader whose Lease another took stops leading at once", async () => {
  const api = new FakeKubeApi();
  api.seed(NAMESPACES, { metadata: { name: "toolkit-system" } });
  const client = fakeKubeClient((r) => api.transport().open(r));
  const stop = new AbortController();
  let leading = false;
  let ended = false;
  const run = runLeaderElection(
    { client, namespace: "toolkit-system", name: "reports", identity: "a", clock: fastClock },
    async (signal) => {
      leading = true;
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      ended = true;
    },
    stop.signal,
  );
  await until(() => leading);
  // Another writer takes the Lease (as a standby that judged it expired would).
  const lease = api.get(LEASES, "toolkit-system", "reports")!;
  await client.replace(LEASES, {
    ...lease,
    spec: { ...(lease.spec as object), holderIdentity: "b", renewTime: new Date().toISOString() },
  });
  await until(() => ended);
  stop.abort();
  await run;
  // It did not release what it no longer holds.
  const after = api.get(LEASES, "toolkit-system", "reports") as unknown as {
    spec: { holderIdentity: string };
  };
  assert.equal(after.spec.holderIdentity, "b");
});

Deno.test("a leader whose work fails releases the Lease and campaigns again", async () => {
  const api = new FakeKubeApi();
  api.seed(NAMESPACES, { metadata: { name: "toolkit-system" } });
  const client = fakeKubeClient((r) => api.transport().open(r));
  const stop = new AbortController();
  let terms = 0;
  const warnings: string[] = [];
  const run = runLeaderElection(
    {
      client,
      namespace: "toolkit-system",
      name: "reports",
      identity: "a",
      clock: fastClock,
      onEvent: (level, message) => level === "warn" && warnings.push(message),
    },
    async (signal) => {
      terms++;
      if (terms === 1) throw new Error("the watches could not start");
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    },
    stop.signal,
  );
  await until(() => terms === 2);
  assert.ok(warnings.some((w) => w.includes("the watches could not start")), warnings.join());
  stop.abort();
  await run;
});
