import * as assert from "node:assert/strict";
import { NO_TIMEOUT_MS, RequestTimeoutError, timedFetch } from "./fetch.ts";
import { tricklingServer } from "../tests/fakes/loopback_server.ts";

const base = (input: string | URL | Request, init?: RequestInit) => fetch(input, init);

Deno.test("timedFetch(bound: request) cuts a body that keeps coming slowly past the timeout", async () => {
  await using server = tricklingServer(20);
  const timed = timedFetch(base, 300, { bound: "request" });
  const response = await timed(`http://${server.host}/`);
  const error = await response.text().catch((e) => e);
  assert.ok(error instanceof RequestTimeoutError, String(error));
  assert.equal(error.server, `http://${server.host}`);
  assert.equal(error.timeoutMs, 300);
});

Deno.test("timedFetch() by default does not cut a body that keeps coming", async () => {
  // 60 chunks 25 ms apart: longer than the timeout in all, never silent for that long.
  await using server = tricklingServer(25, 60);
  const timed = timedFetch(base, 1000);
  const response = await timed(`http://${server.host}/`);
  assert.equal(await response.text(), ".".repeat(60));
});

Deno.test("timedFetch(bound: request) gives a body read late what is left: none", async () => {
  await using server = tricklingServer(10, 3);
  const timed = timedFetch(base, 200, { bound: "request" });
  const response = await timed(`http://${server.host}/`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await assert.rejects(response.text(), RequestTimeoutError);
});

Deno.test("timedFetch(bound: request) lets a request that ends in time through", async () => {
  await using server = tricklingServer(5, 4);
  const timed = timedFetch(base, 10_000, { bound: "request" });
  const response = await timed(`http://${server.host}/`);
  assert.equal(await response.text(), "....");
});

Deno.test("timedFetch() with 0 or NO_TIMEOUT_MS (no limit) is the fetch itself: no timer", () => {
  assert.equal(timedFetch(base, 0, { bound: "request" }), base);
  assert.equal(timedFetch(base, 0), base);
  assert.equal(timedFetch(base, NO_TIMEOUT_MS, { bound: "request" }), base);
});
