import assert from "node:assert/strict";
import { createKeyProtectClient, KEY_MEDIA_TYPE, type KeyProtectClient } from "./key_protect.ts";
import { describeKey, fetchKeyMaterial, resolveKey } from "./resolve.ts";
import {
  AmbiguousKeyError,
  KeyNotActiveError,
  KeyNotFoundError,
  VaultError,
} from "./vault_error.ts";
import {
  type KeyProtectServer,
  startKeyProtectServer,
} from "../../tests/fakes/key_protect_server.ts";

const INSTANCE = "6b2f3a9e-4c1d-4e8f-9a7b-1c2d3e4f5a6b";
const TOKEN = "static-test-token-1234";
const encoder = new TextEncoder();

/** A stand-in whose clock the test moves, and a client of it. */
async function vault(options: { keyRings?: string[] } = {}) {
  let now = Date.UTC(2026, 0, 1);
  const kp = await startKeyProtectServer({
    instanceId: INSTANCE,
    tokens: [TOKEN],
    now: () => now,
    ...options,
  });
  const client = (keyRing?: string) =>
    createKeyProtectClient({
      baseUrl: kp.url,
      instanceId: INSTANCE,
      token: () => Promise.resolve(TOKEN),
      ...(keyRing ? { keyRing } : {}),
    });
  return {
    kp,
    client,
    tick: (ms = 1000) => void (now += ms),
    [Symbol.asyncDispose]: () => kp.stop(),
  };
}

/** Creates a key through the raw API (root keys, expiry: what toolkit never sends). */
async function rawKey(
  kp: KeyProtectServer,
  resource: Record<string, unknown>,
): Promise<string> {
  const response = await fetch(`${kp.url}/api/v2/keys`, {
    method: "POST",
    headers: { "authorization": `Bearer ${TOKEN}`, "bluemix-instance": INSTANCE },
    body: encoder.encode(JSON.stringify({
      metadata: { collectionType: KEY_MEDIA_TYPE, collectionTotal: 1 },
      resources: [{ type: KEY_MEDIA_TYPE, ...resource }],
    })),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()).resources[0].id;
}

async function disable(kp: KeyProtectServer, id: string): Promise<void> {
  const response = await fetch(`${kp.url}/api/v2/keys/${id}/actions/disable`, {
    method: "POST",
    headers: { "authorization": `Bearer ${TOKEN}`, "bluemix-instance": INSTANCE },
  });
  assert.equal(response.status, 204, await response.text());
}

function standard(client: KeyProtectClient, name: string, material: string, aliases?: string[]) {
  return client.createKey({
    name,
    payload: encoder.encode(material),
    extractable: true,
    ...(aliases ? { aliases } : {}),
  });
}

Deno.test("resolveKey() finds a key by id, alias or name, reading only metadata", async () => {
  await using v = await vault();
  const client = v.client();
  const key = await standard(client, "signing", "the material", ["prod-signer"]);
  const refs: [string, string][] = [[key.id, "id"], ["prod-signer", "alias"], ["signing", "name"]];
  for (const [ref, via] of refs) {
    const resolved = await resolveKey(client, ref);
    assert.equal(resolved.key.id, key.id, ref);
    assert.equal(resolved.via, via);
    assert.deepEqual(resolved.notes, []);
    assert.equal(resolved.key.payload, undefined);
  }
  const reads = v.kp.requests.filter((r) =>
    r.method === "GET" && r.path.startsWith("/api/v2/keys/")
  );
  assert.ok(reads.every((r) => r.path.endsWith("/metadata")), "no material while resolving");
  assert.deepEqual(
    await fetchKeyMaterial(client, (await resolveKey(client, "signing")).key),
    encoder.encode("the material"),
  );
});

Deno.test("a suspended, deactivated or deleted newer key does not hide the active one", async () => {
  await using v = await vault();
  const client = v.client();
  const active = await standard(client, "signing", "the active one");
  v.tick();
  const root = await rawKey(v.kp, { name: "signing", extractable: false });
  await disable(v.kp, root);
  v.tick();
  await rawKey(v.kp, {
    name: "signing",
    extractable: true,
    payload: btoa("expiring"),
    expirationDate: new Date(Date.UTC(2026, 0, 1, 0, 0, 5)).toISOString(),
  });
  v.tick();
  const deleted = await standard(client, "signing", "deleted");
  await client.deleteKey(deleted.id);
  v.tick(60_000); // the expiring key is now deactivated

  const states = v.kp.keys().map((k) => k.state);
  assert.deepEqual(states, [1, 2, 3, 5]);
  const resolved = await resolveKey(client, "signing");
  assert.equal(resolved.key.id, active.id);
  assert.equal(resolved.via, "name");
  assert.deepEqual(await fetchKeyMaterial(client, resolved.key), encoder.encode("the active one"));
});

Deno.test("resolveKey() refuses an ambiguous name and lists the candidates", async () => {
  await using v = await vault();
  const client = v.client();
  const first = await standard(client, "signing", "one", ["signing-a"]);
  v.tick();
  const second = await standard(client, "signing", "two");
  const error = await resolveKey(client, "signing").then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof AmbiguousKeyError);
  assert.deepEqual(error.candidates.map((c) => c.id), [first.id, second.id]);
  assert.equal(
    error.message,
    `Cannot fetch key "signing": 2 active keys have this name; fetch one by id or alias:\n` +
      `  ${first.id} (name "signing", aliases signing-a; active, created 2026-01-01T00:00:00.000Z)\n` +
      `  ${second.id} (name "signing"; active, created 2026-01-01T00:00:01.000Z)`,
  );
  assert.equal((await resolveKey(client, "signing-a")).key.id, first.id);
  assert.equal((await resolveKey(client, second.id)).key.id, second.id);
});

Deno.test("resolveKey() says why keys it found cannot be fetched", async () => {
  await using v = await vault();
  const client = v.client();
  const root = await rawKey(v.kp, { name: "signing", extractable: false, aliases: ["rooted"] });
  const suspended = await rawKey(v.kp, { name: "signing", extractable: false });
  await disable(v.kp, suspended);
  const deleted = await standard(client, "gone", "x", ["gone-alias"]);
  await client.deleteKey(deleted.id);

  const byName = await resolveKey(client, "signing").then(() => undefined, (e: unknown) => e);
  assert.ok(byName instanceof KeyNotActiveError);
  assert.deepEqual(byName.candidates.map((c) => c.id), [root, suspended]);
  assert.match(byName.message, /no active standard key has this alias or name/);
  assert.match(byName.message, /root key\b.*: it is a root key, whose material never leaves/);
  assert.match(byName.message, /suspended root key.*: it is suspended/);

  await assert.rejects(resolveKey(client, "rooted"), KeyNotActiveError);
  await assert.rejects(resolveKey(client, deleted.id), {
    name: "KeyNotActiveError",
    message: new RegExp(`^Cannot fetch key "${deleted.id}": it is destroyed: ${deleted.id} `),
  });
  await assert.rejects(resolveKey(client, "gone-alias"), {
    name: "KeyNotActiveError",
    message: /it is destroyed/,
  });
});

Deno.test("an alias that leads to an inactive key falls back to an active key of that name", async () => {
  await using v = await vault();
  const client = v.client();
  const old = await standard(client, "signing", "old", ["signing"]);
  await client.deleteKey(old.id);
  const current = await standard(client, "signing", "current");
  const resolved = await resolveKey(client, "signing");
  assert.equal(resolved.key.id, current.id);
  assert.equal(resolved.via, "name");
  assert.equal(resolved.notes.length, 1);
  assert.match(resolved.notes[0]!, new RegExp(`alias "signing" belongs to key ${old.id}`));
});

Deno.test("resolveKey() reports what is not there, naming the instance or key ring", async () => {
  await using v = await vault({ keyRings: ["team-a"] });
  for (const [ref, what] of [["nope", "alias or name"], ["my key", "name"]] as const) {
    const error = await resolveKey(v.client(), ref).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof KeyNotFoundError);
    assert.equal(error.status, 404);
    assert.equal(error.code, "KEY_NOT_FOUND_ERR", "Key Protect's code, as IBM's tools say it");
    assert.equal(
      error.message,
      `Cannot fetch key "${ref}": no key has this ${what} in instance ${INSTANCE} (KEY_NOT_FOUND_ERR, 404)`,
    );
  }
  const id = "6f0c8e0e-0000-4000-8000-000000000000";
  await assert.rejects(resolveKey(v.client("team-a"), id), {
    name: "KeyNotFoundError",
    message:
      `Cannot fetch key "${id}": no key has this id in key ring "team-a" of instance ${INSTANCE} (KEY_NOT_FOUND_ERR, 404)`,
  });
  await assert.rejects(resolveKey(v.client("no-ring"), id), (error: unknown) => {
    assert.ok(error instanceof VaultError && !(error instanceof KeyNotFoundError));
    assert.equal(error.code, "KEY_RING_NOT_FOUND_ERR");
    return true;
  });
});

Deno.test("fetchKeyMaterial() refuses a key that is no longer fetchable", async () => {
  await using v = await vault();
  const client = v.client();
  const key = await standard(client, "signing", "x");
  const resolved = await resolveKey(client, key.id);
  await client.deleteKey(key.id); // between resolving and fetching
  await assert.rejects(fetchKeyMaterial(client, resolved.key), KeyNotActiveError);
  const root = await rawKey(v.kp, { name: "root", extractable: false });
  await assert.rejects(fetchKeyMaterial(client, root), { message: /it is a root key/ });
  assert.equal(
    describeKey({ id: "i", name: "n", state: 3, extractable: true, creationDate: "" }),
    'i (name "n"; deactivated)',
  );
});
