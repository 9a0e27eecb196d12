import assert from "node:assert/strict";
import { generateKey } from "openpgp";
import { createKeyProtectClient, isKeyId, KEY_MEDIA_TYPE } from "./key_protect.ts";
import { VaultError } from "./vault_error.ts";
import type { FetchFunction } from "../fetch.ts";
import { startKeyProtectServer } from "../../tests/fakes/key_protect_server.ts";
import { fakeClock } from "../../tests/fakes/clock.ts";
import { assertNoCanary, canary, rejection } from "../../tests/fakes/secret_canary.ts";

const INSTANCE = "6b2f3a9e-4c1d-4e8f-9a7b-1c2d3e4f5a6b";
const OTHER_INSTANCE = "00000000-1111-4222-8333-444444444444";
const TOKEN = "static-test-token-1234";
const CORRELATION_ID = "0c0ffee0-1111-4222-8333-444444444444";
const encoder = new TextEncoder();

function staticToken(value = TOKEN): () => Promise<string> {
  return () => Promise.resolve(value);
}

/** A fetch that records every request before passing it on. */
function recordingFetch(seen: Request[]): FetchFunction {
  return (input, init) => {
    const request = new Request(input, init);
    seen.push(request.clone());
    return fetch(request);
  };
}

/** Client options against the stand-in, with fake time (retries take none). */
function standIn(url: string, extra: Record<string, unknown> = {}) {
  const clock = fakeClock();
  return {
    baseUrl: url,
    instanceId: INSTANCE,
    token: staticToken(),
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    newCorrelationId: () => CORRELATION_ID,
    ...extra,
  };
}

Deno.test("createKey() and getKey() round-trip a real armoured OpenPGP private key", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const client = createKeyProtectClient(standIn(kp.url));
  const { privateKey } = await generateKey({
    userIDs: [{ name: "Vault Test", email: "vault@example.com" }],
    format: "armored",
  });
  const payload = encoder.encode(privateKey);

  const created = await client.createKey({
    name: "signing",
    description: "image signing key",
    aliases: ["signing", "prod-signing"],
    payload,
    extractable: true,
  });
  assert.ok(isKeyId(created.id), created.id);
  assert.equal(created.name, "signing");
  assert.equal(created.description, "image signing key");
  assert.equal(created.type, KEY_MEDIA_TYPE);
  assert.equal(created.extractable, true);
  assert.equal(created.state, 1);
  assert.equal(created.imported, true);
  assert.deepEqual(created.aliases, ["signing", "prod-signing"]);
  assert.equal(created.payload, undefined, "return=minimal: the material is not sent back");
  assert.ok(!Number.isNaN(Date.parse(created.creationDate)));

  for (const ref of [created.id, "signing", "prod-signing"]) {
    const fetched = await client.getKey(ref);
    assert.equal(fetched.id, created.id);
    assert.deepEqual(fetched.payload, payload);
    const metadata = await client.getKeyMetadata(ref);
    assert.equal(metadata.id, created.id);
    assert.equal(metadata.payload, undefined);
  }
  assert.match(privateKey, /^-----BEGIN PGP PRIVATE KEY BLOCK-----/);
});

Deno.test("createKey() sends the documented headers and collection body", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const seen: Request[] = [];
  const client = createKeyProtectClient(
    standIn(`${kp.url}/api/v2/`, { fetch: recordingFetch(seen), keyRing: "default" }),
  );
  await client.createKey({
    name: "signing",
    payload: new Uint8Array([1, 2, 255]),
    aliases: [],
    extractable: true,
  });

  assert.equal(seen.length, 1);
  const request = seen[0]!;
  assert.equal(request.method, "POST");
  assert.equal(request.url, `${kp.url}/api/v2/keys`);
  assert.equal(request.headers.get("authorization"), `Bearer ${TOKEN}`);
  assert.equal(request.headers.get("bluemix-instance"), INSTANCE);
  assert.equal(request.headers.get("content-type"), "application/vnd.ibm.kms.key+json");
  assert.equal(request.headers.get("prefer"), "return=minimal");
  assert.equal(request.headers.get("correlation-id"), CORRELATION_ID);
  assert.equal(request.headers.get("x-kms-key-ring"), "default");
  assert.deepEqual(await request.json(), {
    metadata: { collectionType: "application/vnd.ibm.kms.key+json", collectionTotal: 1 },
    resources: [{
      type: "application/vnd.ibm.kms.key+json",
      name: "signing",
      extractable: true,
      payload: "AQL/",
    }],
  });
});

Deno.test("a correlation id per request: a new one each call, the same on each retry", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const client = createKeyProtectClient(standIn(kp.url, { newCorrelationId: undefined }));
  kp.failNext({ status: 503 });
  await client.listKeys();
  await client.listKeys();
  const ids = kp.requests.map((r) => r.correlationId);
  assert.equal(ids.length, 3);
  assert.equal(ids[0], ids[1], "the retry carries the id of its request");
  assert.notEqual(ids[1], ids[2]);
  assert.ok(ids.every((id) => isKeyId(id ?? "")), "v4 UUIDs, as the SDK sends");
});

Deno.test("getKey() reports a missing key with the vault's own text and the correlation id", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const client = createKeyProtectClient(standIn(kp.url));
  await assert.rejects(client.getKey("signing"), (error: unknown) => {
    assert.ok(error instanceof VaultError);
    assert.equal(error.status, 404);
    assert.equal(error.code, "KEY_NOT_FOUND_ERR");
    assert.equal(error.correlationId, CORRELATION_ID);
    assert.equal(error.attempts, 1);
    assert.equal(
      error.message,
      `Cannot fetch key "signing": 404 Not Found: Key could not be retrieved: Please see ` +
        `'reasons' for more details (KEY_NOT_FOUND_ERR) [KEY_NOT_FOUND_ERR: Key does not exist]` +
        ` [correlation-id: ${CORRELATION_ID}]`,
    );
    return true;
  });
});

Deno.test("getKey() fails with 401 for a token the vault does not know and hides the token", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const client = createKeyProtectClient(
    standIn(kp.url, { token: staticToken("not-a-valid-token") }),
  );
  await assert.rejects(client.getKey("signing"), (error: unknown) => {
    assert.ok(error instanceof VaultError);
    assert.equal(error.status, 401);
    assert.match(
      error.message,
      /^Cannot fetch key "signing": 401 Unauthorized: The user does not have access/,
    );
    assert.ok(!error.message.includes("not-a-valid-token"));
    return true;
  });
});

Deno.test("listKeys() fails with 401 for another instance and 400 without an instance", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const other = createKeyProtectClient(standIn(kp.url, { instanceId: OTHER_INSTANCE }));
  await assert.rejects(other.listKeys(), { name: "VaultError", status: 401 });
  const none = createKeyProtectClient(standIn(kp.url, { instanceId: "" }));
  await assert.rejects(none.listKeys(), (error: unknown) => {
    assert.ok(error instanceof VaultError);
    assert.equal(error.status, 400);
    assert.match(error.message, /bluemix-instance/);
    return true;
  });
});

Deno.test("createKey() keeps the vault's reasons when it rejects the body", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const client = createKeyProtectClient(standIn(kp.url));
  await assert.rejects(
    client.createKey({ name: "x", payload: new Uint8Array([1]), extractable: true }),
    (error: unknown) => {
      assert.ok(error instanceof VaultError);
      assert.equal(error.status, 400);
      assert.equal(error.code, "INVALID_FIELD_ERR");
      assert.equal(
        error.reasons[0]?.message,
        "The field 'name' must be: a string of 2 to 90 characters",
      );
      assert.match(
        error.message,
        /^Cannot store key "x": 400 Bad Request: Key could not be created/,
      );
      return true;
    },
  );
  await client.createKey({
    name: "first",
    payload: new Uint8Array([1]),
    aliases: ["taken"],
    extractable: true,
  });
  await assert.rejects(
    client.createKey({
      name: "second",
      payload: new Uint8Array([2]),
      aliases: ["taken"],
      extractable: true,
    }),
    { status: 409, code: "KEY_ALIAS_NOT_UNIQUE_ERR" },
  );
});

Deno.test("the stand-in takes a create with the content types IBM's clients send, and no other", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const headers = { "authorization": `Bearer ${TOKEN}`, "bluemix-instance": INSTANCE };
  const body = (name: string) =>
    JSON.stringify({
      metadata: { collectionType: KEY_MEDIA_TYPE, collectionTotal: 1 },
      resources: [{ type: KEY_MEDIA_TYPE, name, extractable: true, payload: "AQID" }],
    });
  // The Go SDK sends none (a string body would get text/plain: send bytes).
  for (
    const [name, contentType] of [
      ["none", undefined],
      ["json", "application/json"],
      ["vendor", `${KEY_MEDIA_TYPE}; charset=utf-8`],
    ] as const
  ) {
    const response = await fetch(`${kp.url}/api/v2/keys`, {
      method: "POST",
      headers: { ...headers, ...(contentType ? { "content-type": contentType } : {}) },
      body: encoder.encode(body(`key-${name}`)),
    });
    assert.equal(response.status, 201, name);
    const created = await response.json();
    assert.equal(created.resources[0].name, `key-${name}`);
    assert.equal(created.resources[0].payload, undefined, "no material without the preference");
  }
  const form = await fetch(`${kp.url}/api/v2/keys`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
    body: body("key-form"),
  });
  assert.equal(form.status, 415);
  await form.body?.cancel();

  const malformed = await fetch(`${kp.url}/api/v2/keys`, {
    method: "POST",
    headers: { ...headers, "content-type": KEY_MEDIA_TYPE },
    body: "{not json",
  });
  assert.equal(malformed.status, 400);
  assert.equal((await malformed.json()).resources[0].reasons[0].code, "BAD_BODY_ERR");

  const tooBig = await fetch(`${kp.url}/api/v2/keys`, {
    method: "POST",
    headers,
    body: encoder.encode(JSON.stringify({
      metadata: { collectionType: KEY_MEDIA_TYPE, collectionTotal: 1 },
      resources: [{
        type: KEY_MEDIA_TYPE,
        name: "big",
        extractable: true,
        payload: btoa("x".repeat(7501)),
      }],
    })),
  });
  assert.equal(tooBig.status, 400);
  await tooBig.body?.cancel();
});

Deno.test("listKeys() reads every page and passes the state and extractable filters", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const client = createKeyProtectClient(standIn(kp.url, { pageSize: 2 }));
  assert.deepEqual(await client.listKeys(), []);

  const ids: string[] = [];
  for (const name of ["a-key", "signing", "b-key", "signing", "c-key"]) {
    ids.push(
      (await client.createKey({ name, payload: encoder.encode(name), extractable: true })).id,
    );
  }
  const listed = await client.listKeys();
  assert.deepEqual(listed.map((k) => k.id), ids);
  assert.ok(listed.every((k) => k.payload === undefined));
  const searches = kp.requests
    .filter((r) => r.method === "GET" && r.path === "/api/v2/keys")
    .map((r) => new URLSearchParams(r.search));
  assert.deepEqual(searches.slice(-3).map((s) => s.get("offset")), ["0", "2", "4"]);

  await client.deleteKey(ids[1]!);
  const active = await client.listKeys({ states: [1], extractable: true });
  assert.deepEqual(active.map((k) => k.id), [ids[0], ids[2], ids[3], ids[4]]);
  const last = new URLSearchParams(kp.requests.at(-1)!.search);
  assert.equal(last.get("state"), "1");
  assert.equal(last.get("extractable"), "true");
  assert.deepEqual((await client.listKeys({ states: [5] })).map((k) => k.id), [ids[1]]);
  assert.deepEqual(await client.listKeys({ extractable: false }), []);
});

Deno.test("deleteKey(), createAlias() and deleteAlias() change the key as the vault says", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const client = createKeyProtectClient(standIn(kp.url));
  const { id } = await client.createKey({
    name: "signing",
    payload: encoder.encode("material"),
    aliases: ["signing"],
    extractable: true,
  });
  await client.createAlias(id, "prod");
  assert.deepEqual((await client.getKeyMetadata("prod")).aliases, ["signing", "prod"]);
  await client.deleteAlias("signing", "signing");
  await assert.rejects(client.getKeyMetadata("signing"), { status: 404 });

  await client.deleteKey("prod");
  const destroyed = await client.getKeyMetadata(id);
  assert.equal(destroyed.state, 5);
  assert.equal((await client.getKey(id)).payload, undefined, "no material of a deleted key");
  await assert.rejects(client.deleteKey(id), { status: 410, code: "KEY_DELETED_ERR" });
});

Deno.test("a key ring scopes the client, and an unknown one is the vault's error", async () => {
  await using kp = await startKeyProtectServer({
    instanceId: INSTANCE,
    tokens: [TOKEN],
    keyRings: ["team-a"],
  });
  const ringed = createKeyProtectClient(standIn(kp.url, { keyRing: "team-a" }));
  const plain = createKeyProtectClient(standIn(kp.url));
  const inRing = await ringed.createKey({
    name: "ringed",
    payload: encoder.encode("a"),
    extractable: true,
  });
  assert.equal(inRing.keyRingID, "team-a");
  const outside = await plain.createKey({
    name: "plain",
    payload: encoder.encode("b"),
    extractable: true,
  });
  assert.equal(outside.keyRingID, "default");
  assert.deepEqual((await ringed.listKeys()).map((k) => k.name), ["ringed"]);
  assert.deepEqual((await plain.listKeys()).map((k) => k.name), ["ringed", "plain"]);
  await assert.rejects(ringed.getKey(outside.id), { status: 404, code: "KEY_NOT_FOUND_ERR" });
  assert.ok(kp.requests.filter((r) => r.keyRing).every((r) => r.keyRing === "team-a"));

  const unknown = createKeyProtectClient(standIn(kp.url, { keyRing: "nope" }));
  await assert.rejects(unknown.listKeys(), (error: unknown) => {
    assert.ok(error instanceof VaultError);
    assert.equal(error.status, 404);
    assert.equal(error.code, "KEY_RING_NOT_FOUND_ERR");
    assert.match(error.message, /KEY_RING_NOT_FOUND_ERR/);
    return true;
  });
});

Deno.test("a vault that does not answer in time gives a clear error", async () => {
  const hanging: FetchFunction = (_input, init) =>
    new Promise((_resolve, reject) => {
      init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
    });
  const client = createKeyProtectClient({
    ...standIn("https://kms.example.com"),
    fetch: hanging,
    timeoutMs: 50,
    retry: { maxRetries: 0 },
  });
  await assert.rejects(client.getKey("signing"), (error: unknown) => {
    assert.ok(error instanceof VaultError);
    assert.equal(error.status, undefined);
    assert.equal(
      error.message,
      'Cannot fetch key "signing": no answer from https://kms.example.com within 50 ms ' +
        `[correlation-id: ${CORRELATION_ID}]`,
    );
    return true;
  });
});

Deno.test("a vault that cannot be reached gives a clear error after the retries", async () => {
  const kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  await kp.stop();
  const client = createKeyProtectClient(standIn(kp.url));
  await assert.rejects(client.listKeys(), (error: unknown) => {
    assert.ok(error instanceof VaultError);
    assert.equal(error.attempts, 5);
    assert.match(
      error.message,
      new RegExp(`^Cannot list the keys .*: cannot reach ${kp.url}: .*\\(after 5 attempts in `),
    );
    assert.match(error.message, new RegExp(`\\[correlation-id: ${CORRELATION_ID}\\]$`));
    return true;
  });
});

Deno.test("an error answer that is not Key Protect's keeps the status and a snippet", async () => {
  const proxy: FetchFunction = () =>
    Promise.resolve(new Response("<html><body>upstream down</body></html>", { status: 502 }));
  const client = createKeyProtectClient({ ...standIn("https://kms.example.com"), fetch: proxy });
  await assert.rejects(client.getKey("k1"), {
    name: "VaultError",
    status: 502,
    message: 'Cannot fetch key "k1": 502 Bad Gateway: <html><body>upstream down</body></html>' +
      ` (after 5 attempts in 11.3 s) [correlation-id: ${CORRELATION_ID}]`,
  });
});

Deno.test("an error text that echoes the token is redacted", async () => {
  const echo: FetchFunction = (_input, init) => {
    const auth = new Headers(init?.headers).get("authorization") ?? "";
    return Promise.resolve(Response.json({
      metadata: { collectionType: "application/vnd.ibm.kms.error+json", collectionTotal: 1 },
      resources: [{ errorMsg: `Unauthorized: bad header ${auth}` }],
    }, { status: 401 }));
  };
  const client = createKeyProtectClient({
    ...standIn("https://kms.example.com"),
    token: staticToken("very-secret-token"),
    fetch: echo,
  });
  await assert.rejects(client.getKey("k1"), (error: unknown) => {
    assert.ok(error instanceof VaultError);
    assert.ok(!error.message.includes("very-secret-token"), error.message);
    assert.match(error.message, /Bearer \*\*\*/);
    return true;
  });
});

Deno.test("an error answer that echoes the key material quotes none of it", async () => {
  const secret = canary();
  const material = encoder.encode(`-----BEGIN PGP PRIVATE KEY BLOCK-----\n${secret}\n`);
  const payload = btoa(String.fromCharCode(...material));
  const echoes: ((body: string) => Response)[] = [
    (body) =>
      Response.json({
        metadata: { collectionType: "application/vnd.ibm.kms.error+json", collectionTotal: 1 },
        resources: [{
          errorMsg: "Bad Request: Key could not be created",
          reasons: [{ code: "BAD_BODY_ERR", message: `Invalid body: ${body}` }],
        }],
      }, { status: 400 }),
    (body) => new Response(`<html>rejected ${body}</html>`, { status: 400 }),
    () => new Response(`payload=${payload}; password: ${secret}`, { status: 500 }),
  ];
  for (const echo of echoes) {
    const client = createKeyProtectClient({
      ...standIn("https://kms.example.com"),
      fetch: (_input, init) => Promise.resolve(echo(String(init?.body))),
    });
    const error = await rejection(
      client.createKey({ name: "signing", payload: material, extractable: true }),
    );
    assert.ok(error instanceof VaultError);
    assert.match(error.message, /^Cannot store key "signing": (400|500)/);
    assertNoCanary(error, secret);
    assertNoCanary(error, payload.slice(8, 40));
  }
});
