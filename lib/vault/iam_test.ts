import assert from "node:assert/strict";
import { DEFAULT_IAM_URL, iamTokenSource } from "./iam.ts";
import { createKeyProtectClient } from "./key_protect.ts";
import { VaultError } from "./vault_error.ts";
import type { FetchFunction } from "../fetch.ts";
import { startKeyProtectServer } from "../../tests/fakes/key_protect_server.ts";
import { assertNoCanary, canary, rejection } from "../../tests/fakes/secret_canary.ts";

const INSTANCE = "6b2f3a9e-4c1d-4e8f-9a7b-1c2d3e4f5a6b";
const API_KEY = "test-api-key-0123456789";

function tokenRequests(requests: readonly { path: string }[]): number {
  return requests.filter((r) => r.path === "/identity/token").length;
}

Deno.test("iamTokenSource() posts the API key grant as a form and the token opens the vault", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, apiKeys: [API_KEY] });
  const seen: Request[] = [];
  const recording: FetchFunction = (input, init) => {
    const request = new Request(input, init);
    seen.push(request.clone());
    return fetch(request);
  };
  const token = iamTokenSource({ apiKey: API_KEY, iamUrl: kp.iamUrl, fetch: recording });
  const client = createKeyProtectClient({ baseUrl: kp.url, instanceId: INSTANCE, token });
  assert.deepEqual(await client.listKeys(), []);

  const iam = seen.find((r) => r.url === kp.iamUrl)!;
  assert.equal(iam.method, "POST");
  assert.equal(iam.headers.get("accept"), "application/json");
  assert.equal(iam.headers.get("content-type"), "application/x-www-form-urlencoded");
  const form = new URLSearchParams(await iam.text());
  assert.equal(form.get("grant_type"), "urn:ibm:params:oauth:grant-type:apikey");
  assert.equal(form.get("apikey"), API_KEY);
});

Deno.test("iamTokenSource() reuses the token until shortly before it expires", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, apiKeys: [API_KEY] });
  let now = Date.now();
  const token = iamTokenSource({ apiKey: API_KEY, iamUrl: kp.iamUrl, now: () => now });

  const first = await token();
  now += 3500_000; // 100 s before the hour is up
  assert.equal(await token(), first);
  assert.equal(tokenRequests(kp.requests), 1);

  now += 41_000; // 59 s before the hour is up
  const second = await token();
  assert.notEqual(second, first);
  assert.equal(tokenRequests(kp.requests), 2);
});

Deno.test("iamTokenSource() shares one request between concurrent callers", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, apiKeys: [API_KEY] });
  const token = iamTokenSource({ apiKey: API_KEY, iamUrl: kp.iamUrl });
  const [a, b, c] = await Promise.all([token(), token(), token()]);
  assert.equal(a, b);
  assert.equal(b, c);
  assert.equal(tokenRequests(kp.requests), 1);
});

Deno.test("iamTokenSource() reports an unknown API key with IAM's text and not the key", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, apiKeys: [API_KEY] });
  const token = iamTokenSource({ apiKey: "wrong-api-key-98765", iamUrl: kp.iamUrl });
  await assert.rejects(token(), (error: unknown) => {
    assert.ok(error instanceof VaultError);
    assert.equal(error.status, 400);
    assert.equal(error.code, "BXNIM0415E");
    assert.equal(error.attempts, 1, "a 400 is not retried");
    assert.match(error.correlationId ?? "", /^[0-9a-f]{32}$/);
    assert.equal(
      error.message,
      `Cannot get an IAM token from "${kp.iamUrl}": 400 Bad Request: ` +
        `Provided API key could not be found. (BXNIM0415E) [IAM request id: ${error.correlationId}]`,
    );
    assert.ok(!error.message.includes("wrong-api-key-98765"));
    return true;
  });
});

Deno.test("iamTokenSource() does not cache a failure", async () => {
  let calls = 0;
  const flaky: FetchFunction = () => {
    calls++;
    return Promise.resolve(
      calls === 1
        ? Response.json({ errorCode: "BXNIM0999E", errorMessage: "Try later." }, { status: 400 })
        : Response.json({ access_token: "tok", expires_in: 3600 }),
    );
  };
  const token = iamTokenSource({ apiKey: API_KEY, fetch: flaky });
  await assert.rejects(token(), {
    message: `Cannot get an IAM token from "${DEFAULT_IAM_URL}": 400 Bad Request: ` +
      "Try later. (BXNIM0999E)",
  });
  assert.equal(await token(), "tok");
  assert.equal(await token(), "tok");
  assert.equal(calls, 2);
});

Deno.test("iamTokenSource() redacts the API key from IAM's details and handles odd answers", async () => {
  const echo: FetchFunction = (_input, init) => {
    const key = new URLSearchParams(String(init?.body)).get("apikey");
    return Promise.resolve(Response.json({
      errorCode: "BXNIM0415E",
      errorMessage: "Provided API key could not be found.",
      errorDetails: `Key ${key}`,
    }, { status: 400 }));
  };
  await assert.rejects(iamTokenSource({ apiKey: API_KEY, fetch: echo })(), (error: unknown) => {
    assert.ok(error instanceof Error);
    assert.ok(!error.message.includes(API_KEY), error.message);
    assert.match(error.message, /Key \*\*\* \(BXNIM0415E\)$/);
    return true;
  });

  const plain: FetchFunction = () => Promise.resolve(new Response("Unauthorized", { status: 401 }));
  await assert.rejects(iamTokenSource({ apiKey: API_KEY, fetch: plain })(), {
    status: 401,
    message: `Cannot get an IAM token from "${DEFAULT_IAM_URL}": 401 Unauthorized: Unauthorized`,
  });

  const empty: FetchFunction = () => Promise.resolve(Response.json({ token_type: "Bearer" }));
  await assert.rejects(iamTokenSource({ apiKey: API_KEY, fetch: empty })(), {
    message: `Cannot get an IAM token from "${DEFAULT_IAM_URL}": the answer has no access_token`,
  });

  await assert.rejects(iamTokenSource({ apiKey: "" })(), { message: /the API key is empty/ });
});

Deno.test("the IAM stand-in rejects other methods and missing properties like IAM", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, apiKeys: [API_KEY] });
  const get = await fetch(kp.iamUrl);
  assert.equal(get.status, 405);
  assert.equal((await get.json()).errorCode, "BXNIM0060E");
  const missing = await fetch(kp.iamUrl, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "urn:ibm:params:oauth:grant-type:apikey" }),
  });
  assert.equal(missing.status, 400);
  const body = await missing.json();
  assert.equal(body.errorCode, "BXNIM0109E");
  assert.equal(body.errorDetails, "Property 'apikey' either missing or empty.");
});

Deno.test("iamTokenSource() quotes no credential an IAM or proxy answer echoes", async () => {
  const secret = canary();
  const answers = [
    () => new Response(`{"apikey": "${secret}", "error": "bad"}`, { status: 400 }),
    () => new Response(`denied: access_token=${secret}`, { status: 403, statusText: "Forbidden" }),
    () => new Response(`Authorization: Bearer ${secret}`, { status: 401 }),
  ];
  for (const answer of answers) {
    const error = await rejection(
      iamTokenSource({ apiKey: API_KEY, fetch: () => Promise.resolve(answer()) })(),
    );
    assert.match((error as Error).message, /^Cannot get an IAM token from .*: 40\d/);
    assertNoCanary(error, secret);
  }
});
