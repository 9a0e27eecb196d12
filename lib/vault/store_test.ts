import assert from "node:assert/strict";
import { createKeyProtectClient, KEY_MEDIA_TYPE } from "./key_protect.ts";
import { fetchKeyMaterial, resolveKey } from "./resolve.ts";
import { storeKey, type StoreKeyRequest, storeRequestProblems } from "./store.ts";
import { KeyInUseError, VaultError } from "./vault_error.ts";
import { startKeyProtectServer } from "../../tests/fakes/key_protect_server.ts";
import { fakeClock } from "../../tests/fakes/clock.ts";

const INSTANCE = "6b2f3a9e-4c1d-4e8f-9a7b-1c2d3e4f5a6b";
const TOKEN = "static-test-token-1234";
const encoder = new TextEncoder();

/** A stand-in and a client sharing one fake clock (retries and alias waits take no time). */
async function vault(options: { aliasReleaseMs?: number } = {}) {
  const clock = fakeClock();
  const kp = await startKeyProtectServer({
    instanceId: INSTANCE,
    tokens: [TOKEN],
    now: clock.now,
    ...options,
  });
  const client = createKeyProtectClient({
    baseUrl: kp.url,
    instanceId: INSTANCE,
    token: () => Promise.resolve(TOKEN),
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
  });
  const progress: string[] = [];
  return {
    kp,
    client,
    clock,
    progress,
    options: { now: clock.now, sleep: clock.sleep, progress: (m: string) => progress.push(m) },
    [Symbol.asyncDispose]: () => kp.stop(),
  };
}

function request(material: string, extra: Partial<StoreKeyRequest> = {}): StoreKeyRequest {
  return { name: "signing", payload: encoder.encode(material), aliases: ["signing"], ...extra };
}

Deno.test("storeKey() stores a standard key with its aliases, found again by each", async () => {
  await using v = await vault();
  const stored = await storeKey(
    v.client,
    request("v1", { aliases: ["signing", "prod-signer"], description: "signs images" }),
    v.options,
  );
  assert.deepEqual(stored.aliases, ["signing", "prod-signer"]);
  assert.deepEqual(stored.replaced, []);
  const [key] = v.kp.keys();
  assert.equal(key?.id, stored.id);
  assert.deepEqual(key?.aliases, ["signing", "prod-signer"]);
  assert.equal(key?.description, "signs images");
  for (const ref of [stored.id, "signing", "prod-signer"]) {
    const { key: found } = await resolveKey(v.client, ref);
    assert.deepEqual(await fetchKeyMaterial(v.client, found), encoder.encode("v1"));
  }
});

Deno.test("storeKey() refuses a name or alias another key holds, and stores nothing", async () => {
  await using v = await vault();
  // An old key stored without aliases (as toolkit did before), and one holding "prod".
  const legacy = await v.client.createKey({
    name: "signing",
    payload: encoder.encode("legacy"),
    extractable: true,
  });
  const other = await storeKey(v.client, request("o", { name: "other", aliases: ["prod"] }));

  const error = await storeKey(v.client, request("v2", { aliases: ["signing", "prod"] }))
    .then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof KeyInUseError);
  assert.deepEqual(error.candidates.map((c) => c.id), [legacy.id, other.id]);
  assert.match(error.message, /^Cannot store key "signing": other keys hold its name or aliases:/);
  assert.match(error.message, new RegExp(`${legacy.id} \\(name "signing".*\\): has the name`));
  assert.match(error.message, new RegExp(`${other.id} \\(name "other".*\\): holds the alias prod`));
  assert.equal(v.kp.keys().length, 2);

  // An alias kept by a deleted key is still taken (Key Protect keeps it).
  await v.client.deleteKey(other.id);
  await assert.rejects(
    storeKey(v.client, request("v2", { name: "new", aliases: ["prod"] })),
    { name: "KeyInUseError", message: /destroyed.*holds the alias prod/ },
  );
});

Deno.test("storeKey() with replace: delete rotates the key and moves the aliases", async () => {
  await using v = await vault();
  const old = await storeKey(v.client, request("v1", { aliases: ["signing", "prod"] }));
  const stored = await storeKey(
    v.client,
    request("v2", { aliases: ["signing", "prod", "v2"], replace: "delete" }),
    v.options,
  );
  assert.notEqual(stored.id, old.id);
  assert.deepEqual(stored.aliases, ["v2", "signing", "prod"]);
  assert.equal(stored.replaced.length, 1);
  assert.equal(stored.replaced[0]!.key.id, old.id);
  assert.equal(stored.replaced[0]!.action, "deleted");
  assert.deepEqual(stored.replaced[0]!.aliasesMoved, ["signing", "prod"]);
  const [oldKey, newKey] = v.kp.keys();
  assert.equal(oldKey?.state, 5);
  assert.deepEqual(oldKey?.aliases, []);
  assert.deepEqual(newKey?.aliases, ["v2", "signing", "prod"]);
  for (const ref of ["signing", "prod"]) {
    const { key } = await resolveKey(v.client, ref);
    assert.equal(key.id, stored.id);
    assert.deepEqual(await fetchKeyMaterial(v.client, key), encoder.encode("v2"));
  }
  assert.deepEqual(v.progress, [
    `Stored the new key as ${stored.id}`,
    `Deleted the old key ${old.id}`,
  ]);
});

Deno.test("storeKey() with replace: keep leaves the old key active without its aliases", async () => {
  await using v = await vault();
  const old = await storeKey(v.client, request("v1"));
  const stored = await storeKey(v.client, request("v2", { replace: "keep" }), v.options);
  assert.equal(stored.replaced[0]!.action, "kept");
  const [oldKey] = v.kp.keys();
  assert.equal(oldKey?.state, 1);
  assert.deepEqual(oldKey?.aliases, []);
  assert.equal((await resolveKey(v.client, "signing")).key.id, stored.id, "the alias decides");
  assert.equal((await resolveKey(v.client, old.id)).key.id, old.id);
});

Deno.test("storeKey() waits for Key Protect to release a moved alias", async () => {
  await using v = await vault({ aliasReleaseMs: 120_000 });
  await storeKey(v.client, request("v1"));
  const stored = await storeKey(v.client, request("v2", { replace: "delete" }), v.options);
  assert.deepEqual(stored.aliases, ["signing"]);
  assert.deepEqual(v.clock.slept, [5000, 10000, 20000, 30000, 30000, 30000]);
  assert.deepEqual(v.progress.slice(-2), [
    'Waiting for Key Protect to release the alias "signing" (it can take up to five minutes)...',
    'Gave the new key the alias "signing"',
  ]);
  assert.equal((await resolveKey(v.client, "signing")).key.id, stored.id);
});

Deno.test("a rotation that cannot finish says what was done and what is left", async () => {
  await using v = await vault({ aliasReleaseMs: 3_600_000 });
  const old = await storeKey(v.client, request("v1"));
  const error = await storeKey(v.client, request("v2", { replace: "delete" }), {
    ...v.options,
    aliasReleaseTimeoutMs: 60_000,
  }).then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof VaultError);
  assert.equal(error.status, 409);
  const created = v.kp.keys()[1]!.id;
  assert.match(
    error.message,
    new RegExp(
      `^Stored key "signing" as ${created}, but replacing the old key did not finish: giving ` +
        `the new key the alias "signing": Key Protect had not released the alias after 35 s: `,
    ),
  );
  assert.match(
    error.message,
    new RegExp(
      `Done: stored the new key as ${created}; took the alias "signing" from key ${old.id}; deleted the old key ${old.id}\\.`,
    ),
  );
  assert.match(
    error.message,
    new RegExp(`Left to do: ibmcloud kp key alias-create ${created} -a signing -i ${INSTANCE}\\.$`),
  );
  // The name still leads to the new key meanwhile.
  assert.equal((await resolveKey(v.client, "signing")).key.id, created);
});

Deno.test("storeKey() never takes the alias of a root key", async () => {
  await using v = await vault();
  const response = await fetch(`${v.kp.url}/api/v2/keys`, {
    method: "POST",
    headers: { "authorization": `Bearer ${TOKEN}`, "bluemix-instance": INSTANCE },
    body: encoder.encode(JSON.stringify({
      metadata: { collectionType: KEY_MEDIA_TYPE, collectionTotal: 1 },
      resources: [{ type: KEY_MEDIA_TYPE, name: "cos-root", aliases: ["signing"] }],
    })),
  });
  assert.equal(response.status, 201);
  await response.body?.cancel();
  await assert.rejects(storeKey(v.client, request("v1", { replace: "delete" })), {
    name: "KeyInUseError",
    message: /belongs to a root key, and toolkit never takes the aliases of root keys/,
  });
  assert.equal(v.kp.keys().length, 1);
});

Deno.test("storeKey() finds the key an earlier attempt made when its answer was lost", async () => {
  await using v = await vault();
  v.kp.failNext({ status: 503, afterHandling: true, method: "POST", path: "/api/v2/keys" });
  const stored = await storeKey(v.client, request("v1"), v.options);
  assert.equal(v.kp.keys().length, 1, "no second key");
  assert.equal(stored.id, v.kp.keys()[0]!.id);
  const creates = v.kp.requests.filter((r) => r.method === "POST" && r.path === "/api/v2/keys");
  assert.deepEqual(creates.map((r) => r.status), [503, 409]);
});

Deno.test("storeRequestProblems() checks names, sizes and aliases before the vault is asked", () => {
  const ok = request("x");
  assert.deepEqual(storeRequestProblems(ok), []);
  assert.deepEqual(
    storeRequestProblems({
      name: "s",
      payload: new Uint8Array(7501),
      aliases: ["a", "keys", "6f0c8e0e-0000-4000-8000-000000000000", "ok-1", "ok-1", "x2", "x3"],
    }),
    [
      "a key name is 2 to 90 characters",
      "the key is 7501 bytes; Key Protect keeps at most 7500 bytes in a standard key",
      "a key has at most 5 aliases",
      `alias "a": an alias is 2 to 90 letters, digits, '-' or '_'`,
      `alias "keys": "keys" is a word Key Protect reserves`,
      `alias "6f0c8e0e-0000-4000-8000-000000000000": an alias cannot be a UUID (that is a key id)`,
      `alias "ok-1" is given twice`,
    ],
  );
  assert.deepEqual(storeRequestProblems({ ...ok, aliases: [], payload: new Uint8Array() }), [
    "the key is empty",
    "a key needs at least one alias",
  ]);
});
