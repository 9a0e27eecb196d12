import assert from "node:assert/strict";
import { generateKey } from "openpgp";
import { createKeyProtectClient, isKeyId, KEY_MEDIA_TYPE } from "./key_protect.ts";
import { VaultError } from "./vault_error.ts";
import type { FetchFn } from "./_http.ts";
import { startKeyProtectServer } from "../../tests/fakes/key_protect_server.ts";
import { assertNoCanary, canary, rejection } from "../../tests/fakes/secret_canary.ts";

const INSTANCE = "6b2f3a9e-4c1d-4e8f-9a7b-1c2d3e4f5a6b";
const OTHER_INSTANCE = "00000000-1111-4222-8333-444444444444";
const TOKEN = "static-test-token-1234";
const encoder = new TextEncoder();

function staticToken(value = TOKEN): () => Promise<string> {
  return () => Promise.resolve(value);
}

/** A fetch that records every request before passing it on. */
function recordingFetch(seen: Request[]): FetchFn {
  return (input, init) => {
    const request = new Request(input, init);
    seen.push(request.clone());
    return fetch(request);
  };
}

async function nextMillisecond(): Promise<void> {
  const start = Date.now();
  while (Date.now() === start) await new Promise((resolve) => setTimeout(resolve, 1));
}

Deno.test("createKey() and getKey() round-trip a real armoured OpenPGP private key", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const client = createKeyProtectClient({
    baseUrl: kp.url,
    instanceId: INSTANCE,
    token: staticToken(),
  });
  const { privateKey } = await generateKey({
    userIDs: [{ name: "Vault Test", email: "vault@example.com" }],
    format: "armored",
  });
  const payload = encoder.encode(privateKey);

  const created = await client.createKey({
    name: "signing",
    description: "image signing key",
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
  assert.ok(!Number.isNaN(Date.parse(created.creationDate)));

  const fetched = await client.getKey(created.id);
  assert.equal(fetched.id, created.id);
  assert.deepEqual(fetched.payload, payload);
  assert.equal(new TextDecoder().decode(fetched.payload), privateKey);
  assert.match(privateKey, /^-----BEGIN PGP PRIVATE KEY BLOCK-----/);
});

Deno.test("createKey() sends the documented headers and collection body", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const seen: Request[] = [];
  const client = createKeyProtectClient({
    baseUrl: `${kp.url}/api/v2/`,
    instanceId: INSTANCE,
    token: staticToken(),
    fetch: recordingFetch(seen),
  });
  await client.createKey({
    name: "signing",
    payload: new Uint8Array([1, 2, 255]),
    extractable: true,
  });

  assert.equal(seen.length, 1);
  const request = seen[0]!;
  assert.equal(request.method, "POST");
  assert.equal(request.url, `${kp.url}/api/v2/keys`);
  assert.equal(request.headers.get("authorization"), `Bearer ${TOKEN}`);
  assert.equal(request.headers.get("bluemix-instance"), INSTANCE);
  assert.equal(request.headers.get("content-type"), "application/vnd.ibm.kms.key+json");
  assert.equal(request.headers.get("prefer"), "return=representation");
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

Deno.test("getKey() reports a missing key with the vault's own text", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const client = createKeyProtectClient({
    baseUrl: kp.url,
    instanceId: INSTANCE,
    token: staticToken(),
  });
  await assert.rejects(client.getKey("signing"), (error: unknown) => {
    assert.ok(error instanceof VaultError);
    assert.equal(error.status, 404);
    assert.equal(error.code, "KEY_NOT_FOUND_ERR");
    assert.equal(
      error.message,
      `Cannot fetch key "signing": 404 Not Found: Key could not be retrieved: Please see ` +
        `'reasons' for more details (KEY_NOT_FOUND_ERR) [KEY_NOT_FOUND_ERR: Key does not exist]`,
    );
    return true;
  });
});

Deno.test("getKey() fails with 401 for a token the vault does not know and hides the token", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const client = createKeyProtectClient({
    baseUrl: kp.url,
    instanceId: INSTANCE,
    token: staticToken("not-a-valid-token"),
  });
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
  const other = createKeyProtectClient({
    baseUrl: kp.url,
    instanceId: OTHER_INSTANCE,
    token: staticToken(),
  });
  await assert.rejects(other.listKeys(), { name: "VaultError", status: 401 });
  const none = createKeyProtectClient({ baseUrl: kp.url, instanceId: "", token: staticToken() });
  await assert.rejects(none.listKeys(), (error: unknown) => {
    assert.ok(error instanceof VaultError);
    assert.equal(error.status, 400);
    assert.match(error.message, /bluemix-instance/);
    return true;
  });
});

Deno.test("createKey() keeps the vault's reasons when it rejects the body", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const client = createKeyProtectClient({
    baseUrl: kp.url,
    instanceId: INSTANCE,
    token: staticToken(),
  });
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
});

Deno.test("the stand-in rejects a wrong content type and a malformed body with 400", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const headers = { "authorization": `Bearer ${TOKEN}`, "bluemix-instance": INSTANCE };
  const wrongType = await fetch(`${kp.url}/api/v2/keys`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(wrongType.status, 400);
  const wrongBody = await wrongType.json();
  assert.equal(wrongBody.metadata.collectionType, "application/vnd.ibm.kms.error+json");
  assert.match(wrongBody.resources[0].errorMsg, /content-type/);

  const malformed = await fetch(`${kp.url}/api/v2/keys`, {
    method: "POST",
    headers: { ...headers, "content-type": KEY_MEDIA_TYPE },
    body: "{not json",
  });
  assert.equal(malformed.status, 400);
  assert.equal((await malformed.json()).resources[0].reasons[0].code, "BAD_BODY_ERR");
});

Deno.test("listKeys() reads every page and findKeyByName() returns the newest match", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const client = createKeyProtectClient({
    baseUrl: kp.url,
    instanceId: INSTANCE,
    token: staticToken(),
    pageSize: 2,
  });
  assert.deepEqual(await client.listKeys(), []);
  assert.equal(await client.findKeyByName("signing"), undefined);

  const ids: string[] = [];
  for (const name of ["a-key", "signing", "b-key", "signing", "c-key"]) {
    await nextMillisecond();
    ids.push(
      (await client.createKey({ name, payload: encoder.encode(name), extractable: true })).id,
    );
  }
  const listed = await client.listKeys();
  assert.deepEqual(listed.map((k) => k.id), ids);
  assert.ok(listed.every((k) => k.payload === undefined));
  const offsets = kp.requests
    .filter((r) => r.method === "GET" && r.path === "/api/v2/keys")
    .map((r) => new URLSearchParams(r.search).get("offset"));
  assert.deepEqual(offsets.slice(-3), ["0", "2", "4"]);

  const found = await client.findKeyByName("signing");
  assert.equal(found?.id, ids[3]);
});

Deno.test("a vault that does not answer in time gives a clear error", async () => {
  const hanging: FetchFn = (_input, init) =>
    new Promise((_resolve, reject) => {
      init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
    });
  const client = createKeyProtectClient({
    baseUrl: "https://kms.example.com",
    instanceId: INSTANCE,
    token: staticToken(),
    fetch: hanging,
    timeoutMs: 50,
  });
  await assert.rejects(client.getKey("signing"), (error: unknown) => {
    assert.ok(error instanceof VaultError);
    assert.equal(error.status, undefined);
    assert.equal(
      error.message,
      'Cannot fetch key "signing": no answer from https://kms.example.com within 50 ms',
    );
    return true;
  });
});

Deno.test("a vault that cannot be reached gives a clear error", async () => {
  const kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  await kp.stop();
  const client = createKeyProtectClient({
    baseUrl: kp.url,
    instanceId: INSTANCE,
    token: staticToken(),
  });
  await assert.rejects(client.listKeys(), (error: unknown) => {
    assert.ok(error instanceof VaultError);
    assert.match(error.message, new RegExp(`^Cannot list the keys .*: cannot reach ${kp.url}: `));
    return true;
  });
});

Deno.test("an error answer that is not Key Protect's keeps the status and a snippet", async () => {
  const proxy: FetchFn = () =>
    Promise.resolve(new Response("<html><body>upstream down</body></html>", { status: 502 }));
  const client = createKeyProtectClient({
    baseUrl: "https://kms.example.com",
    instanceId: INSTANCE,
    token: staticToken(),
    fetch: proxy,
  });
  await assert.rejects(client.getKey("k1"), {
    name: "VaultError",
    status: 502,
    message: 'Cannot fetch key "k1": 502 Bad Gateway: <html><body>upstream down</body></html>',
  });
});

Deno.test("an error text that echoes the token is redacted", async () => {
  const echo: FetchFn = (_input, init) => {
    const auth = new Headers(init?.headers).get("authorization") ?? "";
    return Promise.resolve(Response.json({
      metadata: { collectionType: "application/vnd.ibm.kms.error+json", collectionTotal: 1 },
      resources: [{ errorMsg: `Unauthorized: bad header ${auth}` }],
    }, { status: 401 }));
  };
  const client = createKeyProtectClient({
    baseUrl: "https://kms.example.com",
    instanceId: INSTANCE,
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
      baseUrl: "https://kms.example.com",
      instanceId: INSTANCE,
      token: staticToken(),
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
