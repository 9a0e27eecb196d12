import assert from "node:assert/strict";
import { createKeyProtectClient } from "./key_protect.ts";
import { iamTokenSource } from "./iam.ts";
import { isRetryableVaultStatus, type VaultTraceEvent } from "./_http.ts";
import { VaultError } from "./vault_error.ts";
import { startKeyProtectServer } from "../../tests/fakes/key_protect_server.ts";
import { fakeClock } from "../../tests/fakes/clock.ts";

const INSTANCE = "6b2f3a9e-4c1d-4e8f-9a7b-1c2d3e4f5a6b";
const TOKEN = "static-test-token-1234";
const API_KEY = "test-api-key-0123456789";

function client(url: string, options: { random?: number; budgetMs?: number } = {}) {
  const clock = fakeClock();
  const events: VaultTraceEvent[] = [];
  const vault = createKeyProtectClient({
    baseUrl: url,
    instanceId: INSTANCE,
    token: () => Promise.resolve(TOKEN),
    now: clock.now,
    sleep: clock.sleep,
    random: () => options.random ?? 0.5,
    trace: (event) => events.push(event),
    ...(options.budgetMs !== undefined ? { retry: { budgetMs: options.budgetMs } } : {}),
  });
  return { vault, clock, events };
}

Deno.test("isRetryableVaultStatus() retries 429 and every 5xx but 501, as IBM's Go SDK", () => {
  for (const status of [429, 500, 502, 503, 504, 505, 599]) {
    assert.ok(isRetryableVaultStatus(status), String(status));
  }
  for (const status of [200, 201, 204, 400, 401, 403, 404, 409, 410, 501]) {
    assert.ok(!isRetryableVaultStatus(status), String(status));
  }
});

Deno.test("a burst of four 503s is ridden out with jittered, doubling waits", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const cases: [number, number[]][] = [[0, [500, 1000, 2000, 4000]], [1, [1000, 2000, 4000, 8000]]];
  for (const [random, waits] of cases) {
    const { vault, clock, events } = client(kp.url, { random });
    kp.failNext(...Array.from({ length: 4 }, () => ({ status: 503 })));
    assert.deepEqual(await vault.listKeys(), []);
    assert.deepEqual(clock.slept, waits);
    assert.deepEqual(events.map((e) => [e.attempt, e.status, e.retryInMs]), [
      [1, 503, waits[0]],
      [2, 503, waits[1]],
      [3, 503, waits[2]],
      [4, 503, waits[3]],
      [5, 200, undefined],
    ]);
    assert.ok(events.every((e) => e.service === "Key Protect" && e.path === events[0]!.path));
    assert.equal(new Set(events.map((e) => e.correlationId)).size, 1);
  }
});

Deno.test("Retry-After is honoured, in seconds or as a date", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const { vault, clock } = client(kp.url);
  // A date 5 s on: 3 s after the first wait of 2 s.
  const inThreeSeconds = new Date(clock.now() + 5000).toUTCString();
  kp.failNext({ status: 429, retryAfter: "2" }, { status: 503, retryAfter: inThreeSeconds });
  await vault.listKeys();
  assert.deepEqual(clock.slept, [2000, 3000]);
});

Deno.test("beyond the retry budget the error names the attempts and the correlation id", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const { vault, clock } = client(kp.url);
  kp.failNext(...Array.from({ length: 5 }, () => ({ status: 429 })));
  const error = await vault.listKeys().then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof VaultError);
  assert.equal(error.status, 429);
  assert.equal(error.attempts, 5);
  const sent = kp.requests.map((r) => r.correlationId);
  assert.equal(sent.length, 5);
  assert.equal(error.correlationId, sent[0]);
  assert.equal(
    error.message,
    `Cannot list the keys of instance "${INSTANCE}": 429 Too Many Requests: injected by the ` +
      `test (after 5 attempts in 11.3 s) [correlation-id: ${sent[0]}]`,
  );
  assert.deepEqual(clock.slept, [750, 1500, 3000, 6000]);
});

Deno.test("a wait past the time budget is not made: a long Retry-After fails at once", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const { vault, clock } = client(kp.url);
  kp.failNext({ status: 503, retryAfter: "120" });
  await assert.rejects(vault.listKeys(), {
    status: 503,
    attempts: 1,
    message:
      /503 Service Unavailable: injected by the test; it asked to retry after 2 min, beyond the retry budget of 60 s \[correlation-id: [0-9a-f-]{36}\]$/,
  });
  assert.deepEqual(clock.slept, []);

  const tight = client(kp.url, { budgetMs: 2000 });
  kp.failNext({ status: 503 }, { status: 503 }, { status: 503 });
  await assert.rejects(tight.vault.listKeys(), { status: 503, attempts: 2 });
  assert.deepEqual(tight.clock.slept, [750], "750 + 1500 would pass the 2 s budget");
  kp.failNext(); // nothing left over for later tests
});

Deno.test("501 and 4xx answers are not retried", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, tokens: [TOKEN] });
  const { vault, clock } = client(kp.url);
  kp.failNext({ status: 501 });
  await assert.rejects(vault.listKeys(), { status: 501, attempts: 1 });
  await assert.rejects(vault.getKey("missing"), { status: 404, attempts: 1 });
  assert.deepEqual(clock.slept, []);
  assert.equal(kp.requests.length, 2);
});

Deno.test("IAM token requests are retried the same way, and IAM's request id is kept", async () => {
  await using kp = await startKeyProtectServer({ instanceId: INSTANCE, apiKeys: [API_KEY] });
  const clock = fakeClock();
  const events: VaultTraceEvent[] = [];
  const options = {
    apiKey: API_KEY,
    iamUrl: kp.iamUrl,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0,
    trace: (event: VaultTraceEvent) => events.push(event),
  };
  kp.failNext({ status: 503, service: "iam" }, { status: 429, service: "iam", retryAfter: "1" });
  assert.ok(await iamTokenSource(options)());
  assert.deepEqual(clock.slept, [500, 1000]);
  assert.deepEqual(events.map((e) => [e.service, e.status]), [
    ["IAM", 503],
    ["IAM", 429],
    ["IAM", 200],
  ]);

  kp.failNext(...Array.from({ length: 5 }, () => ({ status: 503, service: "iam" as const })));
  await assert.rejects(iamTokenSource(options)(), (error: unknown) => {
    assert.ok(error instanceof VaultError);
    assert.equal(error.attempts, 5);
    assert.match(error.correlationId ?? "", /^[0-9a-f]{32}$/);
    assert.match(
      error.message,
      /: 503 Service Unavailable: Service Unavailable \(BXNIM0999E\) \(after 5 attempts in 7\.5 s\) \[IAM request id: [0-9a-f]{32}\]$/,
    );
    return true;
  });
});
