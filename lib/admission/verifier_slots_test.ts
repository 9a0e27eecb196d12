/**
 * The verifier's slots and signals: registry work takes a slot only when no cache answers, every
 * review's signal reaches the work it shares with others, and work no review waits for ends.
 */
import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import type { RepositoryPolicy } from "../policy/mod.ts";
import { generateKeyPair, signImage } from "../signing/mod.ts";
import { lookasideStore } from "../lookaside/mod.ts";
import type { FetchFunction } from "../registry/mod.ts";
import { pullCredentials } from "./credentials.ts";
import { FairSlots } from "./fair_slots.ts";
import { filePolicySource } from "./file_source.ts";
import type { SecretData } from "./source.ts";
import { createImageVerifier, type VerifyTask } from "./verifier.ts";

function keySecret(name: string, namespace: string, armored: string): SecretData {
  return { metadata: { name, namespace, resourceVersion: "1" }, data: { key: btoa(armored) } };
}

function task(
  image: string,
  policy: RepositoryPolicy,
  slots: FairSlots,
  source: ReturnType<typeof filePolicySource>,
): VerifyTask {
  const reference = parseReference(image);
  return {
    reference,
    match: {
      policy,
      pattern: "*",
      source: 'ClusterImagePolicy "p"',
      kind: "ClusterImagePolicy",
      name: "p",
      namespace: undefined,
    },
    namespace: "dev",
    credentials: () => pullCredentials(source, "dev", [], "default"),
    slots: slots.for({ tenant: "dev", host: reference.domain }),
  };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

Deno.test("createImageVerifier(): a shared tag resolution ends when the last review waiting for it leaves", async () => {
  // A registry that never answers: every request waits until its signal aborts.
  const requests: AbortSignal[] = [];
  const silent: FetchFunction = (_input, init) =>
    new Promise((_, reject) => {
      const signal = init?.signal;
      if (signal) {
        requests.push(signal);
        signal.addEventListener("abort", () => reject(signal.reason));
      }
    });
  const { publicKeyArmored } = await generateKeyPair({ name: "signer" });
  const source = filePolicySource({
    policies: [],
    secrets: [keySecret("signer", "toolkit-system", publicKeyArmored)],
    serviceAccounts: [],
    namespaces: [],
  });
  const verifier = createImageVerifier({
    source,
    clusterKeyNamespace: "toolkit-system",
    fetch: silent,
    retry: { maxRetries: 0 },
    requestTimeoutMs: 600_000,
    flightTimeoutMs: 600_000,
    verdictCache: { ttlMs: 60_000, maxEntries: 10 },
    digestCache: { ttlMs: 60_000, maxEntries: 10 },
  });
  const slots = new FairSlots(4);
  const policy: RepositoryPolicy = {
    simple: { requirements: [{ type: "signedBy", keySecret: "signer" }] },
  };
  const first = new AbortController();
  const second = new AbortController();
  const a = verifier.verify(task("silent.invalid/app:1", policy, slots, source), first.signal);
  const b = verifier.verify(task("silent.invalid/app:1", policy, slots, source), second.signal);
  for (let i = 0; i < 100 && requests.length === 0; i++) await tick();
  assert.equal(requests.length, 1, "one request for both reviews");
  assert.equal(slots.running, 2, "each review waiting for registry work holds a slot");

  first.abort(new Error("deadline of a"));
  await assert.rejects(a, /deadline of a/);
  assert.equal(slots.running, 1, "a's slot is back at once");
  assert.equal(requests[0]!.aborted, false, "b still waits: the request goes on");

  second.abort(new Error("deadline of b"));
  await assert.rejects(b, /deadline of b/);
  assert.equal(slots.running, 0);
  await tick();
  assert.ok(requests.every((s) => s.aborted), "nobody waits: the request is aborted");
});

Deno.test("createImageVerifier(): a verdict in the cache waits for no slot", async () => {
  const start = Date.now();
  const pair = await generateKeyPair({ name: "signer", clock: () => new Date(start - 3600_000) });
  const digest = `sha256:${"d".repeat(64)}`;
  const image = `registry.invalid/team/app@${digest}`;
  const reference = parseReference(image);
  const dir = await Deno.makeTempDir({ prefix: "toolkit-slots-" });
  try {
    const storeURL = `file://${dir}/`;
    await lookasideStore({ readBase: new URL(storeURL) }).writeSignature(
      reference,
      digest,
      await signImage({
        privateKey: pair.privateKeyArmored,
        dockerReference: image,
        manifestDigest: digest,
      }),
    );
    const source = filePolicySource({
      policies: [],
      secrets: [keySecret("signer", "toolkit-system", pair.publicKeyArmored)],
      serviceAccounts: [],
      namespaces: [],
    });
    const verifier = createImageVerifier({
      source,
      clusterKeyNamespace: "toolkit-system",
      flightTimeoutMs: 10_000,
      verdictCache: { ttlMs: 60_000, maxEntries: 10 },
      digestCache: { ttlMs: 60_000, maxEntries: 10 },
    });
    const slots = new FairSlots(1);
    const policy: RepositoryPolicy = {
      simple: { storeURL, requirements: [{ type: "signedBy", keySecret: "signer" }] },
    };
    const first = await verifier.verify(task(image, policy, slots, source));
    assert.equal(first.allowed, true, JSON.stringify(first));
    assert.equal(slots.running, 0, "the slot is back when the verification ends");

    // Every slot is held by another namespace, and others wait: the cached verdict does not.
    using _held = await slots.acquire({ tenant: "flood", host: "silent.invalid" });
    const waiting = slots.acquire(
      { tenant: "flood", host: "silent.invalid" },
      AbortSignal.timeout(50),
    );
    const again = await verifier.verify(
      task(image, policy, slots, source),
      AbortSignal.timeout(5000),
    );
    assert.equal(again.allowed && again.cached, true);
    await assert.rejects(waiting);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("createImageVerifier(): renewing a remembered verdict takes only a slot nobody waits for", async (t) => {
  const start = Date.now();
  const pair = await generateKeyPair({ name: "signer", clock: () => new Date(start - 3600_000) });
  const dir = await Deno.makeTempDir({ prefix: "toolkit-renewal-" });
  try {
    const storeURL = `file://${dir}/`;
    const store = lookasideStore({ readBase: new URL(storeURL) });
    const images = ["a", "b"].map((c) => `registry.invalid/team/app@sha256:${c.repeat(64)}`);
    for (const image of images) {
      const reference = parseReference(image);
      await store.writeSignature(
        reference,
        reference.digest!,
        await signImage({
          privateKey: pair.privateKeyArmored,
          dockerReference: image,
          manifestDigest: reference.digest!,
        }),
      );
    }
    const source = filePolicySource({
      policies: [],
      secrets: [keySecret("signer", "toolkit-system", pair.publicKeyArmored)],
      serviceAccounts: [],
      namespaces: [],
    });
    const policy: RepositoryPolicy = {
      simple: { storeURL, requirements: [{ type: "signedBy", keySecret: "signer" }] },
    };
    for (const busy of [false, true]) {
      await t.step(busy ? "every slot taken: skipped" : "a slot free: renewed", async () => {
        let now = start;
        const verifier = createImageVerifier({
          source,
          clusterKeyNamespace: "toolkit-system",
          flightTimeoutMs: 10_000,
          // One verdict: verifying the second image drops the first from the cache, so that a
          // renewal of the first is registry (here: store) work and needs a slot.
          verdictCache: { ttlMs: 60_000, maxEntries: 1 },
          digestCache: { ttlMs: 60_000, maxEntries: 10 },
          now: () => now,
        });
        const slots = new FairSlots(1);
        const remembered = { ...task(images[0]!, policy, slots, source), credentialsKey: "dev" };
        assert.equal((await verifier.verify(remembered)).allowed, true);
        assert.equal(
          (await verifier.verify(task(images[1]!, policy, slots, source))).allowed,
          true,
        );
        const held = busy ? await slots.acquire({ tenant: "flood", host: "silent" }) : undefined;
        now += 600; // the second half of the remembered verdict's second
        assert.ok(verifier.known?.(remembered));
        await tick();
        await tick();
        assert.equal(slots.running, busy ? 1 : 0, "no slot is held by the renewal");
        held?.release();
        now += 600; // past the first second
        assert.equal(verifier.known?.(remembered) !== undefined, !busy);
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
