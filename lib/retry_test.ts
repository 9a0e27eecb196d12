import assert from "node:assert/strict";
import { backoffDelay, DEFAULT_RETRY_POLICY, isRetryableStatus, parseRetryAfter } from "./retry.ts";

Deno.test("isRetryableStatus() retries 429 and transient 5xx only", () => {
  for (const status of [429, 500, 502, 503, 504]) assert.equal(isRetryableStatus(status), true);
  for (const status of [200, 400, 401, 403, 404, 501, 505]) {
    assert.equal(isRetryableStatus(status), false);
  }
});

Deno.test("backoffDelay() doubles, stays within [half, full] of the step, and caps", () => {
  const policy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1000 };
  assert.equal(backoffDelay(0, policy, () => 0), 50);
  assert.equal(backoffDelay(0, policy, () => 0.999999), 100);
  assert.equal(backoffDelay(2, policy, () => 0), 200);
  assert.equal(backoffDelay(2, policy, () => 0.5), 300);
  assert.equal(backoffDelay(10, policy, () => 1), 1000);
  assert.equal(backoffDelay(10, policy, () => 0), 500);
});

Deno.test("backoffDelay() clamps a random source outside [0, 1)", () => {
  assert.equal(backoffDelay(0, DEFAULT_RETRY_POLICY, () => -3), 100);
  assert.equal(backoffDelay(0, DEFAULT_RETRY_POLICY, () => 7), 200);
});

Deno.test("parseRetryAfter() reads delay-seconds and HTTP dates", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(parseRetryAfter("2", now), 2000);
  assert.equal(parseRetryAfter(" 0 ", now), 0);
  assert.equal(parseRetryAfter("Thu, 01 Jan 2026 00:00:03 GMT", now), 3000);
  assert.equal(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now), 0);
});

Deno.test("parseRetryAfter() ignores absent and unparsable values", () => {
  assert.equal(parseRetryAfter(null, 0), undefined);
  assert.equal(parseRetryAfter("soon", 0), undefined);
  assert.equal(parseRetryAfter("-5", 0), undefined);
  assert.equal(parseRetryAfter("1.5", 0), undefined);
});
