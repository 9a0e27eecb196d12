import assert from "node:assert/strict";
import { freePort, issueCert, LOOPBACK_SANS, makeCA } from "../../tests/env/mod.ts";
import { USER_AGENT } from "../version.ts";
import { fakeSleep, serve } from "../../tests/fakes/loopback_server.ts";
import { ResponseTooLargeError, TransportError } from "./errors.ts";
import { createTransport, ERROR_BODY_LIMIT } from "./transport.ts";

const RETRY = { maxRetries: 3, baseDelayMs: 200, maxDelayMs: 5000 };

Deno.test("createTransport() retries 503 with exponential backoff, then succeeds", async () => {
  await using server = serve((_, i) =>
    i < 2 ? new Response("busy", { status: 503 }) : new Response("ok")
  );
  const { sleep, waits } = fakeSleep();
  using transport = createTransport({ sleep, random: () => 0, retry: RETRY });
  const response = await transport.send({
    method: "GET",
    url: `http://${server.host}/v2/`,
    maxBytes: 1024,
  });
  assert.equal(response.status, 200);
  assert.equal(new TextDecoder().decode(response.body), "ok");
  assert.deepEqual(waits, [100, 200]);
  assert.equal(transport.requestCount, 3);
  assert.equal(server.requests.length, 3);
});

Deno.test("createTransport() honours Retry-After on 429", async () => {
  await using server = serve((_, i) =>
    i === 0
      ? new Response("slow down", { status: 429, headers: { "retry-after": "2" } })
      : new Response("ok")
  );
  const { sleep, waits } = fakeSleep();
  using transport = createTransport({ sleep, retry: RETRY });
  const response = await transport.send({
    method: "GET",
    url: `http://${server.host}/`,
    maxBytes: 10,
  });
  assert.equal(response.status, 200);
  assert.deepEqual(waits, [2000]);
});

Deno.test("createTransport() returns a 429 whose Retry-After is longer than maxDelayMs", async () => {
  await using server = serve(() =>
    new Response(null, { status: 429, headers: { "retry-after": "3600" } })
  );
  const { sleep, waits } = fakeSleep();
  using transport = createTransport({ sleep, retry: RETRY });
  const response = await transport.send({
    method: "GET",
    url: `http://${server.host}/`,
    maxBytes: 10,
  });
  assert.equal(response.status, 429);
  assert.deepEqual(waits, []);
});

Deno.test("createTransport() gives up after maxRetries and returns the last answer", async () => {
  await using server = serve(() => new Response("down", { status: 502 }));
  const { sleep, waits } = fakeSleep();
  using transport = createTransport({ sleep, random: () => 1, retry: RETRY });
  const response = await transport.send({
    method: "HEAD",
    url: `http://${server.host}/`,
    maxBytes: 10,
  });
  assert.equal(response.status, 502);
  assert.deepEqual(waits, [200, 400, 800]);
  assert.equal(server.requests.length, 4);
});

Deno.test("createTransport() retries a PUT on 429 but not on 503", async () => {
  await using server = serve((request, i) =>
    new Response(null, { status: i === 0 ? 429 : request.method === "PUT" ? 503 : 200 })
  );
  const { sleep, waits } = fakeSleep();
  using transport = createTransport({ sleep, random: () => 0, retry: RETRY });
  const response = await transport.send({
    method: "PUT",
    url: `http://${server.host}/`,
    body: "{}",
    maxBytes: 10,
  });
  assert.equal(response.status, 503);
  assert.equal(server.requests.length, 2);
  assert.deepEqual(waits, [100]);
});

Deno.test("createTransport() retries connection failures of GET, then fails clearly", async () => {
  const port = freePort(); // nothing listens there
  const { sleep, waits } = fakeSleep();
  using transport = createTransport({ sleep, random: () => 0, retry: RETRY });
  await assert.rejects(
    transport.send({ method: "GET", url: `http://127.0.0.1:${port}/v2/?q=1`, maxBytes: 10 }),
    (error: unknown) => {
      assert.ok(error instanceof TransportError);
      assert.equal(error.timedOut, false);
      assert.match(
        error.message,
        new RegExp(`^Cannot send the request to "http://127.0.0.1:${port}/v2/"`),
      );
      return true;
    },
  );
  assert.equal(waits.length, 3);
  assert.equal(transport.requestCount, 4);
});

Deno.test("createTransport() times out an answer that does not come, without retrying", async () => {
  const { promise: release, resolve } = Promise.withResolvers<void>();
  await using server = serve(async () => {
    await release;
    return new Response("late");
  });
  try {
    using transport = createTransport({ timeoutMs: 150, sleep: fakeSleep().sleep });
    await assert.rejects(
      transport.send({ method: "GET", url: `http://${server.host}/`, maxBytes: 10 }),
      (error: unknown) =>
        error instanceof TransportError && error.timedOut &&
        /no answer within 150 ms/.test(error.message),
    );
    assert.equal(transport.requestCount, 1);
  } finally {
    resolve();
  }
});

Deno.test("createTransport() times out a body that stalls after the headers", async () => {
  const { promise: release, resolve } = Promise.withResolvers<void>();
  await using server = serve(() =>
    new Response(
      new ReadableStream({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode("partial"));
          await release;
          controller.close();
        },
      }),
    )
  );
  try {
    using transport = createTransport({ timeoutMs: 150 });
    await assert.rejects(
      transport.send({ method: "GET", url: `http://${server.host}/`, maxBytes: 1024 }),
      (error: unknown) => error instanceof TransportError && error.timedOut,
    );
  } finally {
    resolve();
  }
});

Deno.test("createTransport() stops reading a streamed body at the limit", async () => {
  const chunk = new Uint8Array(64 * 1024);
  const chunks = 16 * 1024; // 1 GiB if it were all read
  let sent = 0;
  await using server = serve(() =>
    new Response(
      new ReadableStream({
        pull(controller) {
          if (sent++ < chunks) controller.enqueue(chunk);
          else controller.close();
        },
      }),
    )
  );
  using transport = createTransport();
  await assert.rejects(
    transport.send({ method: "GET", url: `http://${server.host}/big`, maxBytes: 4096 }),
    (error: unknown) =>
      error instanceof ResponseTooLargeError && error.limit === 4096 &&
      /larger than 4096 bytes/.test(error.message),
  );
  assert.ok(sent < chunks, "the body was not read to its end");
});

Deno.test("createTransport() refuses a Content-Length over the limit before reading", async () => {
  await using server = serve(() => new Response(new Uint8Array(5000)));
  using transport = createTransport();
  await assert.rejects(
    transport.send({ method: "GET", url: `http://${server.host}/`, maxBytes: 4999 }),
    ResponseTooLargeError,
  );
  const ok = await transport.send({ method: "GET", url: `http://${server.host}/`, maxBytes: 5000 });
  assert.equal(ok.body.byteLength, 5000);
});

Deno.test("createTransport() truncates a large error body instead of failing", async () => {
  await using server = serve(() => new Response(new Uint8Array(100_000), { status: 404 }));
  using transport = createTransport();
  const response = await transport.send({
    method: "GET",
    url: `http://${server.host}/`,
    maxBytes: 10,
  });
  assert.equal(response.status, 404);
  assert.equal(response.body.byteLength, ERROR_BODY_LIMIT);
});

Deno.test("createTransport() sends toolkit's User-Agent", async () => {
  await using server = serve(() => new Response("ok"));
  using transport = createTransport();
  await transport.send({ method: "GET", url: `http://${server.host}/`, maxBytes: 10 });
  assert.equal(server.requests[0]!.headers.get("user-agent"), USER_AGENT);
});

Deno.test("createTransport() keeps Authorization on same-origin redirects only", async () => {
  await using other = serve(() => new Response("other"));
  await using server = serve((request) => {
    const path = new URL(request.url).pathname;
    if (path === "/same") return Response.redirect(new URL("/final", request.url), 307);
    if (path === "/away") return Response.redirect(`http://${other.host}/blob`, 307);
    return new Response("final");
  });
  using transport = createTransport();
  const headers = { authorization: "Bearer secret-token" };
  const same = await transport.send({
    method: "GET",
    url: `http://${server.host}/same`,
    headers,
    maxBytes: 10,
  });
  assert.equal(same.url, `http://${server.host}/final`);
  assert.equal(server.requests[1]!.headers.get("authorization"), "Bearer secret-token");
  const away = await transport.send({
    method: "GET",
    url: `http://${server.host}/away`,
    headers,
    maxBytes: 10,
  });
  assert.equal(new TextDecoder().decode(away.body), "other");
  assert.equal(other.requests[0]!.headers.get("authorization"), null);
  assert.equal(transport.requestCount, 4);
});

Deno.test("createTransport() refuses a redirect from HTTPS to HTTP", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-transport-" });
  try {
    const ca = await makeCA(dir, "ca");
    const cert = await issueCert(dir, ca, { name: "server", cn: "127.0.0.1", sans: LOOPBACK_SANS });
    await using plain = serve(() => new Response("plain"));
    const controller = new AbortController();
    const tls = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      cert: cert.certPem,
      key: cert.keyPem,
      signal: controller.signal,
      onListen: () => {},
    }, () => Response.redirect(`http://${plain.host}/`, 302));
    try {
      using transport = createTransport({ caCerts: [ca.certPem] });
      await assert.rejects(
        transport.send({ method: "GET", url: `https://127.0.0.1:${tls.addr.port}/`, maxBytes: 10 }),
        /refusing a redirect from HTTPS/,
      );
      assert.equal(plain.requests.length, 0);
    } finally {
      controller.abort();
      await tls.finished;
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("createTransport() stops when the caller aborts, also during a retry wait", async () => {
  await using server = serve(() => new Response(null, { status: 503 }));
  const controller = new AbortController();
  using transport = createTransport({
    retry: RETRY,
    sleep: () => {
      controller.abort(new Error("deadline"));
      return Promise.resolve();
    },
  });
  await assert.rejects(
    transport.send({
      method: "GET",
      url: `http://${server.host}/`,
      maxBytes: 10,
      signal: controller.signal,
    }),
    /deadline/,
  );
  assert.equal(server.requests.length, 1);
});
