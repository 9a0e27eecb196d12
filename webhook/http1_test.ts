import assert from "node:assert/strict";
import { createServer, type Server, type Socket } from "node:net";
import { Http1Connection, type Http1Limits, parseHead, type Routes } from "./http1.ts";
import { ClientGoneError, RequestBodyTooLargeError, type WebhookRequest } from "./handler.ts";
import { BODY_BYTE_COST, BodyPool } from "./body_pool.ts";
import { JsonShapeError } from "../lib/mod.ts";

/** A plain TCP server whose connections are `Http1Connection`s (TLS is `server.ts`'s part). */
async function serve(
  routes: Routes,
  limits: Http1Limits = { maxBodyBytes: 1024 },
  allowHalfOpen = true,
): Promise<
  { port: number; connections: Http1Connection[]; sockets: Set<Socket>; close(): Promise<void> }
> {
  const connections: Http1Connection[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer({ allowHalfOpen }, (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    connections.push(new Http1Connection(socket, routes, limits));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    connections,
    sockets,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A raw client: writes bytes, reads whole answers (by Content-Length) or until the close. */
class Client {
  #conn: Deno.TcpConn;
  #pending = "";
  #closed = false;
  private constructor(conn: Deno.TcpConn) {
    this.#conn = conn;
  }
  static async connect(port: number): Promise<Client> {
    return new Client(await Deno.connect({ hostname: "127.0.0.1", port }));
  }
  async write(text: string | Uint8Array): Promise<void> {
    const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
    let offset = 0;
    while (offset < bytes.length) offset += await this.#conn.write(bytes.subarray(offset));
  }
  async #fill(): Promise<boolean> {
    if (this.#closed) return false;
    const buffer = new Uint8Array(65536);
    const n = await this.#conn.read(buffer);
    if (n === null) {
      this.#closed = true;
      return false;
    }
    // One character a byte, so that lengths are counted in bytes; bodies are decoded below.
    for (const byte of buffer.subarray(0, n)) this.#pending += String.fromCharCode(byte);
    return true;
  }
  /** The next answer; `headOnly` for the answer to a HEAD request. */
  async answer(headOnly = false): Promise<Answer> {
    for (;;) {
      const end = this.#pending.indexOf("\r\n\r\n");
      if (end >= 0) {
        const [statusLine, ...fields] = this.#pending.slice(0, end).split("\r\n");
        const headers: Record<string, string> = {};
        for (const field of fields) {
          const colon = field.indexOf(":");
          headers[field.slice(0, colon).toLowerCase()] = field.slice(colon + 1).trim();
        }
        const status = Number(statusLine!.split(" ")[1]);
        const length = headOnly || status === 100 ? 0 : Number(headers["content-length"] ?? 0);
        if (this.#pending.length >= end + 4 + length) {
          const body = new TextDecoder().decode(
            Uint8Array.from(this.#pending.slice(end + 4, end + 4 + length), (c) => c.charCodeAt(0)),
          );
          this.#pending = this.#pending.slice(end + 4 + length);
          return { status, headers, body };
        }
      }
      if (!(await this.#fill())) throw new Error(`closed with ${JSON.stringify(this.#pending)}`);
    }
  }
  /** Whether the server closes the connection (reading nothing more). */
  async closedByServer(): Promise<boolean> {
    while (await this.#fill()) {
      if (this.#pending.length) return false;
    }
    return true;
  }
  close(): void {
    try {
      this.#conn.close();
    } catch {
      // closed already
    }
  }
}

const echo: Routes = async (request: WebhookRequest) => {
  const body = request.method === "POST" ? await request.json(1024) : null;
  return {
    status: 200,
    contentType: "application/json",
    body: JSON.stringify({ method: request.method, path: request.path, body }),
  };
};

function post(body: string, extra = ""): string {
  return `POST /admit?timeout=10s HTTP/1.1\r\nHost: webhook\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${new TextEncoder().encode(body).length}\r\n${extra}\r\n${body}`;
}

Deno.test("Http1Connection answers requests one after another on a kept connection", async () => {
  const server = await serve(echo);
  const client = await Client.connect(server.port);
  try {
    await client.write(post('{"n":1,"text":"é"}'));
    const first = await client.answer();
    assert.equal(first.status, 200);
    assert.deepEqual(JSON.parse(first.body), {
      method: "POST",
      path: "/admit",
      body: { n: 1, text: "é" },
    });
    assert.equal(first.headers["content-type"], "application/json");
    assert.equal(
      Number(first.headers["content-length"]),
      new TextEncoder().encode(first.body).length,
    );
    assert.ok(first.headers["date"]?.endsWith("GMT"));
    assert.equal(first.headers["connection"], undefined);
    await client.write("GET /healthz HTTP/1.1\r\nHost: webhook\r\n\r\n");
    assert.deepEqual(JSON.parse((await client.answer()).body), {
      method: "GET",
      path: "/healthz",
      body: null,
    });
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("Http1Connection answers pipelined requests in order, and bodies in many pieces", async () => {
  const server = await serve(echo);
  const client = await Client.connect(server.port);
  try {
    await client.write(
      `\r\n${post('{"n":1}')}${post('{"n":2}')}GET /b HTTP/1.1\r\nHost: w\r\n\r\n`,
    );
    assert.equal(JSON.parse((await client.answer()).body).body.n, 1);
    assert.equal(JSON.parse((await client.answer()).body).body.n, 2);
    assert.equal(JSON.parse((await client.answer()).body).path, "/b");
    const bytes = new TextEncoder().encode(post(`{"text":"${"x".repeat(500)}"}`));
    for (let i = 0; i < bytes.length; i += 7) {
      await client.write(bytes.subarray(i, i + 7));
      await new Promise((r) => setTimeout(r, 0));
    }
    assert.equal(JSON.parse((await client.answer()).body).body.text.length, 500);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("Http1Connection answers 100 Continue before the body when asked", async () => {
  const server = await serve(echo);
  const client = await Client.connect(server.port);
  try {
    const body = '{"n":3}';
    await client.write(
      `POST /admit HTTP/1.1\r\nHost: w\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    assert.equal((await client.answer()).status, 100);
    await client.write(body);
    assert.equal(JSON.parse((await client.answer()).body).body.n, 3);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("Http1Connection refuses what it does not serve, then closes", async () => {
  const server = await serve(echo);
  const cases: [string, number][] = [
    ["GET / HTTP/1.1\r\n\r\n", 400], // no Host
    ["GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400],
    ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 501],
    [
      "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n{}",
      400,
    ],
    ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 400],
    ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -2\r\n\r\n", 400],
    ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x10\r\n\r\n", 400],
    ["GET / HTTP/1.1\r\nHost: a\r\nX-Folded: a\r\n b\r\n\r\n", 400],
    ["GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400],
    ["GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n", 400],
    ["GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400],
    ["GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505],
    ["PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505],
    ["GET / HTTP/1.1\r\nHost: a\r\nExpect: something\r\n\r\n", 417],
    [`GET / HTTP/1.1\r\nHost: a\r\nX: ${"a".repeat(17_000)}\r\n\r\n`, 431],
    [`GET / HTTP/1.1\r\nHost: a\r\nX: ${"a".repeat(17_000)}`, 431],
  ];
  try {
    for (const [request, status] of cases) {
      const client = await Client.connect(server.port);
      try {
        await client.write(request);
        const answer = await client.answer();
        assert.equal(answer.status, status, JSON.stringify(request.slice(0, 80)));
        assert.equal(answer.headers["connection"], "close");
        assert.ok(await client.closedByServer(), "the connection closes");
      } finally {
        client.close();
      }
    }
  } finally {
    await server.close();
  }
});

Deno.test("Http1Connection does not read a body over the limit: 413 from the routes, then close", async () => {
  let seen: unknown;
  const server = await serve(async (request) => {
    try {
      await request.json(1024);
    } catch (error) {
      seen = error;
      return { status: 413, contentType: "text/plain", body: "too large\n" };
    }
    return { status: 200, contentType: "text/plain", body: "read\n" };
  });
  const client = await Client.connect(server.port);
  try {
    await client.write("POST /admit HTTP/1.1\r\nHost: w\r\nContent-Length: 999999999\r\n\r\n{");
    const answer = await client.answer();
    assert.equal(answer.status, 413);
    assert.ok(seen instanceof RequestBodyTooLargeError);
    assert.equal(answer.headers["connection"], "close");
    assert.ok(await client.closedByServer());
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("Http1Connection: HEAD has no body, Connection: close and HTTP/1.0 close after the answer", async () => {
  const server = await serve(echo);
  try {
    const head = await Client.connect(server.port);
    await head.write("HEAD /healthz HTTP/1.1\r\nHost: w\r\n\r\nGET /x HTTP/1.1\r\nHost: w\r\n\r\n");
    const answer = await head.answer(true);
    assert.equal(answer.body, "");
    assert.ok(Number(answer.headers["content-length"]) > 0);
    assert.equal(JSON.parse((await head.answer()).body).path, "/x");
    head.close();
    for (
      const request of [
        "GET /a HTTP/1.1\r\nHost: w\r\nConnection: keep-alive, close\r\n\r\n",
        "GET /a HTTP/1.0\r\n\r\n",
      ]
    ) {
      const client = await Client.connect(server.port);
      await client.write(request);
      const a = await client.answer();
      assert.equal(a.status, 200);
      assert.equal(a.headers["connection"], "close");
      assert.ok(await client.closedByServer());
      client.close();
    }
  } finally {
    await server.close();
  }
});

Deno.test("Http1Connection answers 500 and closes when the routes fail", async () => {
  const server = await serve(() => Promise.reject(new Error("boom")));
  const client = await Client.connect(server.port);
  try {
    await client.write("GET /a HTTP/1.1\r\nHost: w\r\n\r\n");
    const answer = await client.answer();
    assert.equal(answer.status, 500);
    assert.doesNotMatch(answer.body, /boom/);
    assert.ok(await client.closedByServer());
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("Http1Connection.expire: 408 for a slow request, a close for an idle connection", async () => {
  const server = await serve(echo, { maxBodyBytes: 1024, requestTimeoutMs: 50, idleTimeoutMs: 50 });
  try {
    const slow = await Client.connect(server.port);
    await slow.write("POST /admit HTTP/1.1\r\nHost: w\r\nContent-Length: 10\r\n\r\n{");
    const idle = await Client.connect(server.port);
    await idle.write("GET /a HTTP/1.1\r\nHost: w\r\n\r\n");
    assert.equal((await idle.answer()).status, 200);
    while (server.connections.length < 2) await new Promise((r) => setTimeout(r, 5));
    for (const c of server.connections) c.expire(Date.now() + 10);
    for (const c of server.connections) c.expire(Date.now() + 100);
    const answer = await slow.answer();
    assert.equal(answer.status, 408);
    assert.ok(await slow.closedByServer());
    assert.ok(await idle.closedByServer());
    slow.close();
    idle.close();
  } finally {
    await server.close();
  }
});

Deno.test("Http1Connection.drain closes an idle connection and answers the request in progress first", async () => {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const server = await serve(async (request) => {
    if (request.path === "/slow") await released;
    return { status: 200, contentType: "text/plain", body: `${request.path}\n` };
  });
  try {
    const busy = await Client.connect(server.port);
    await busy.write("GET /slow HTTP/1.1\r\nHost: w\r\n\r\n");
    const idle = await Client.connect(server.port);
    await idle.write("GET /quick HTTP/1.1\r\nHost: w\r\n\r\n");
    assert.equal((await idle.answer()).body, "/quick\n");
    while (server.connections.length < 2) await new Promise((r) => setTimeout(r, 5));
    for (const c of server.connections) c.drain();
    assert.ok(await idle.closedByServer(), "the idle connection closes at once");
    release();
    const answer = await busy.answer();
    assert.equal(answer.body, "/slow\n");
    assert.equal(answer.headers["connection"], "close");
    assert.ok(await busy.closedByServer());
    busy.close();
    idle.close();
  } finally {
    await server.close();
  }
});

Deno.test("parseHead() reads the fields the webhook needs and nothing it should not", () => {
  const head = parseHead(
    "POST http://w/admit?x=1 HTTP/1.1\r\nhost: w\r\ncontent-length:  12 \r\nCONNECTION: Keep-Alive",
  );
  assert.deepEqual(head, {
    method: "POST",
    target: "http://w/admit?x=1",
    minor: 1,
    contentLength: 12,
    close: false,
    expectContinue: false,
  });
  const repeated = parseHead(
    "POST / HTTP/1.1\r\nHost: w\r\nContent-Length: 5\r\nContent-Length: 5",
  );
  assert.equal((repeated as { contentLength: number }).contentLength, 5);
  assert.equal((parseHead("GET / HTTP/1.0") as { close: boolean }).close, true);
  assert.equal(
    (parseHead("GET / HTTP/1.0\r\nConnection: keep-alive") as { close: boolean }).close,
    false,
  );
});

Deno.test("Http1Connection reads no further request while the client does not read its answers", async () => {
  let calls = 0;
  const big = "x".repeat(4 * 1024 * 1024);
  const server = await serve(() => {
    calls++;
    return Promise.resolve({ status: 200, contentType: "text/plain", body: big });
  });
  const client = await Client.connect(server.port);
  try {
    await client.write("GET /1 HTTP/1.1\r\nHost: w\r\n\r\nGET /2 HTTP/1.1\r\nHost: w\r\n\r\n");
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(calls, 1, "the second request waits until the first answer is read");
    assert.equal((await client.answer()).body.length, big.length);
    assert.equal((await client.answer()).body.length, big.length);
    assert.equal(calls, 2);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("Http1Connection survives mangled requests in any split: every answer is whole HTTP/1.1", async () => {
  const { EventEmitter } = await import("node:events");
  const { Buffer } = await import("node:buffer");
  // A small seeded generator, so that a failure can be replayed.
  let seed = 28;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const valid = [
    post('{"a":1}'),
    "GET /healthz HTTP/1.1\r\nHost: w\r\n\r\n",
    post('{"a":2}', "Expect: 100-continue\r\n"),
    "HEAD /readyz HTTP/1.0\r\n\r\n",
  ];
  for (let round = 0; round < 300; round++) {
    const text = Array.from(
      { length: 1 + Math.floor(random() * 3) },
      () => valid[Math.floor(random() * valid.length)]!,
    ).join("");
    const bytes = [...new TextEncoder().encode(text)];
    for (let m = Math.floor(random() * 4); m > 0; m--) {
      const at = Math.floor(random() * bytes.length);
      const op = random();
      if (op < 0.4) bytes[at] = Math.floor(random() * 256);
      else if (op < 0.7) bytes.splice(at, 1);
      else bytes.splice(at, 0, [13, 10, 32, 58, 0][Math.floor(random() * 5)]!);
    }
    const written: string[] = [];
    let ended = false;
    const socket = Object.assign(new EventEmitter(), {
      write: (chunk: string) => {
        written.push(chunk);
        return true;
      },
      end: () => {
        ended = true;
      },
      destroy: () => {
        ended = true;
      },
      pause: () => {},
      resume: () => {},
    });
    new Http1Connection(socket as unknown as Socket, echo, { maxBodyBytes: 1024 });
    const input = Buffer.from(bytes);
    for (let at = 0; at < input.length;) {
      const size = 1 + Math.floor(random() * 40);
      socket.emit("data", input.subarray(at, at + size));
      at += size;
      await Promise.resolve();
    }
    await new Promise((r) => setTimeout(r, 0));
    for (const answer of written) {
      assert.match(answer, /^HTTP\/1\.1 [1-5][0-9][0-9] [A-Za-z -]+\r\n/, `round ${round}`);
    }
    if (written.some((w) => /^HTTP\/1\.1 [45]/.test(w))) assert.ok(ended, `round ${round}`);
  }
});

Deno.test("Http1Connection calls an answer's written() once, after the write, or when the client has gone", async () => {
  const calls: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const server = await serve(async (request) => {
    if (request.path === "/slow") await held;
    return {
      status: 200,
      contentType: "text/plain",
      body: request.path,
      written: () => calls.push(request.path),
    };
  });
  const client = await Client.connect(server.port);
  const gone = await Client.connect(server.port);
  try {
    await client.write("GET /fast HTTP/1.1\r\nHost: webhook\r\n\r\n");
    assert.equal((await client.answer()).body, "/fast");
    assert.deepEqual(calls, ["/fast"]);
    // A client that closes before its answer: the answer's work (its log line) is still done.
    await gone.write("GET /slow HTTP/1.1\r\nHost: webhook\r\n\r\n");
    await new Promise((r) => setTimeout(r, 50));
    gone.close();
    await new Promise((r) => setTimeout(r, 50));
    release();
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(calls, ["/fast", "/slow"]);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("Http1Connection answers thousands of pipelined requests with answers given at once, in order", async () => {
  let n = 0;
  const server = await serve(() => ({
    status: 200,
    contentType: "text/plain",
    body: String(n++),
  }));
  const client = await Client.connect(server.port);
  try {
    const count = 3000;
    await client.write("GET /healthz HTTP/1.1\r\nHost: webhook\r\n\r\n".repeat(count));
    for (let i = 0; i < count; i++) assert.equal((await client.answer()).body, String(i));
  } finally {
    client.close();
    await server.close();
  }
});

/** Waits until `check` holds (the server's side runs on its own events). */
async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** Routes that parse the body, answer 413 for a body past its shape, and wait for `gate`. */
function shapedRoutes(gate?: Promise<void>): Routes {
  return async (request) => {
    let body: unknown;
    try {
      body = request.json(1 << 20);
    } catch (error) {
      if (error instanceof JsonShapeError) {
        return { status: 413, contentType: "text/plain", body: `${error.message}\n` };
      }
      throw error;
    }
    await gate;
    return { status: 200, contentType: "application/json", body: JSON.stringify(body) };
  };
}

function head(length: number): string {
  return `POST /admit HTTP/1.1\r\nHost: webhook\r\nContent-Length: ${length}\r\n\r\n`;
}

Deno.test("Http1Connection reserves a body from the pool at its head, and gives it back once answered", async () => {
  const pool = new BodyPool(1 << 20);
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const server = await serve(shapedRoutes(gate), { maxBodyBytes: 4096, bodyPool: pool });
  const client = await Client.connect(server.port);
  try {
    const body = JSON.stringify({ text: "x".repeat(980) });
    await client.write(head(body.length));
    // Reserved when the head arrives, before any byte of the body is kept.
    await until("the head's reservation", () => pool.stats().reserved > 0);
    assert.equal(pool.stats().reserved, body.length * BODY_BYTE_COST);
    await client.write(body.slice(0, 500));
    await new Promise((r) => setTimeout(r, 20));
    await client.write(body.slice(500));
    // The values counted are reserved too; all of it is held while the routes have the body.
    await until("the values' reservation", () => pool.stats().reserved > body.length * 4);
    await new Promise((r) => setTimeout(r, 20));
    assert.ok(pool.stats().reserved > 0);
    open();
    const answer = await client.answer();
    assert.equal(answer.status, 200);
    assert.equal(JSON.parse(answer.body).text.length, 980);
    await until("the reservation given back", () => pool.stats().reserved === 0);
    // The connection goes on: the next request reserves and returns again.
    await client.write(post('{"n":2}'));
    assert.equal((await client.answer()).status, 200);
    assert.equal(pool.stats().reserved, 0);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("Http1Connection gives the pool back however a request ends: client gone, timeout, error, routes failing", async () => {
  const pool = new BodyPool(1 << 20);
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const routes: Routes = (request) =>
    request.path === "/fail" ? Promise.reject(new Error("boom")) : shapedRoutes(gate)(request);
  const server = await serve(routes, { maxBodyBytes: 4096, bodyPool: pool });
  try {
    // The client goes in the middle of the body.
    const gone = await Client.connect(server.port);
    await gone.write(head(1000) + "[1,2,");
    await until("a reservation", () => pool.stats().reserved > 0);
    gone.close();
    await until("the pool back after the client went", () => pool.stats().reserved === 0);

    // The request takes too long to arrive: 408.
    const slow = await Client.connect(server.port);
    await slow.write(head(1000) + "[1,2,");
    await until("a reservation", () => pool.stats().reserved > 0);
    for (const c of server.connections) c.expire(Date.now() + 60_000);
    assert.equal((await slow.answer()).status, 408);
    assert.equal(pool.stats().reserved, 0);
    slow.close();

    // The socket fails (a reset, say).
    const reset = await Client.connect(server.port);
    await reset.write(head(1000) + "[1,2,");
    await until("a reservation", () => pool.stats().reserved > 0);
    [...server.sockets].at(-1)!.emit("error", new Error("connection reset"));
    assert.equal(pool.stats().reserved, 0);
    reset.close();

    // The routes fail: 500, and the pool is back.
    const failing = await Client.connect(server.port);
    await failing.write(post("[1,2,3]").replace("/admit?timeout=10s", "/fail"));
    assert.equal((await failing.answer()).status, 500);
    await until("the pool back after the routes failed", () => pool.stats().reserved === 0);
    failing.close();

    // The client goes while the routes still have the body: the reservation is held until the
    // routes are done with it (the parsed body lives until then), then given back.
    const leaving = await Client.connect(server.port);
    await leaving.write(post('{"n":1}'));
    await until("a reservation", () => pool.stats().reserved > 0);
    leaving.close();
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(pool.stats().reserved > 0, "held while the routes have the body");
    open();
    await until("the pool back once answered", () => pool.stats().reserved === 0);
  } finally {
    await server.close();
  }
});

Deno.test("Http1Connection answers 503 with Connection: close and reads no body when the pool is full", async () => {
  // Room for one 1000-byte body (4000 bytes) and its values, not two.
  const pool = new BodyPool(6000);
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const server = await serve(shapedRoutes(gate), { maxBodyBytes: 4096, bodyPool: pool });
  const holder = await Client.connect(server.port);
  const refused = await Client.connect(server.port);
  const later = await Client.connect(server.port);
  try {
    const body = JSON.stringify({ text: "y".repeat(989) });
    assert.equal(body.length, 1000);
    await holder.write(head(1000) + body.slice(0, 10));
    await until("the first reservation", () => pool.stats().reserved > 0);
    await refused.write(head(1000));
    const answer = await refused.answer();
    assert.equal(answer.status, 503);
    assert.equal(answer.headers["connection"], "close");
    assert.match(answer.body, /request bodies/);
    assert.ok(await refused.closedByServer());
    assert.equal(pool.stats().refused, 1);
    // Its body, sent anyway, is not kept (the connection is closed); the holder finishes.
    await holder.write(body.slice(10));
    open();
    assert.equal((await holder.answer()).status, 200);
    await until("the pool back", () => pool.stats().reserved === 0);
    await later.write(head(1000) + body);
    assert.equal((await later.answer()).status, 200);
  } finally {
    holder.close();
    refused.close();
    later.close();
    await server.close();
  }
});

Deno.test("Http1Connection answers 503 when the pool cannot hold a body's values as they are counted", async () => {
  const pool = new BodyPool(10_000);
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const server = await serve(shapedRoutes(gate), { maxBodyBytes: 4096, bodyPool: pool });
  const holder = await Client.connect(server.port);
  const crowded = await Client.connect(server.port);
  try {
    await holder.write(head(1000) + "[");
    await until("the first reservation", () => pool.stats().reserved >= 4000);
    // 4000 bytes for its bytes fit; 60 values (3840 bytes) do not, in the 2000 left.
    const values = `[${"0,".repeat(59)}0]`;
    await crowded.write(head(1000) + values);
    const answer = await crowded.answer();
    assert.equal(answer.status, 503);
    assert.equal(answer.headers["connection"], "close");
    assert.ok(await crowded.closedByServer());
    open();
    holder.close();
    await until("the pool back", () => pool.stats().reserved === 0);
  } finally {
    holder.close();
    crowded.close();
    await server.close();
  }
});

Deno.test("Http1Connection refuses a body past its shape mid-stream: the routes answer, the rest is never read", async () => {
  const pool = new BodyPool(4 << 20);
  const server = await serve(shapedRoutes(), { maxBodyBytes: 100_000, bodyPool: pool });
  try {
    // Nested past 64 levels, in the first chunk of a body announced as 100,000 bytes.
    const deep = await Client.connect(server.port);
    await deep.write(head(100_000) + "[".repeat(65));
    const refused = await deep.answer();
    assert.equal(refused.status, 413);
    assert.match(refused.body, /nested more than 64 levels deep/);
    assert.equal(refused.headers["connection"], "close");
    assert.ok(await deep.closedByServer());
    // More values than a body of its length may have (1 per 4 bytes), counted as they arrive.
    const wide = await Client.connect(server.port);
    await wide.write(head(100_000) + "[" + "[],".repeat(26_000));
    const crowded = await wide.answer();
    assert.equal(crowded.status, 413);
    assert.match(crowded.body, /holds more than 25064 JSON values/);
    assert.ok(await wide.closedByServer());
    await until("the pool back", () => pool.stats().reserved === 0);
    // A body within its shape is parsed.
    const fine = await Client.connect(server.port);
    await fine.write(post(JSON.stringify({ a: [[[1]]], b: "[[[[" })));
    assert.equal((await fine.answer()).status, 200);
    fine.close();
  } finally {
    await server.close();
  }
});

Deno.test("Http1Connection keeps at most one request head read ahead while it answers", async () => {
  const pool = new BodyPool(8 << 20);
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const server = await serve(shapedRoutes(gate), { maxBodyBytes: 1 << 20, bodyPool: pool });
  const client = await Client.connect(server.port);
  try {
    await client.write(post('{"n":1}'));
    await until("a reservation", () => pool.stats().reserved > 0);
    // A pipelined request of 1 MiB: its body is not read (nor reserved) while the first waits.
    const big = JSON.stringify({ text: "z".repeat((1 << 20) - 20) });
    const sending = client.write(head(big.length) + big);
    await new Promise((r) => setTimeout(r, 100));
    const held = pool.stats().reserved;
    assert.ok(held < 20_000, `only the first request is reserved (${held})`);
    open();
    assert.equal((await client.answer()).status, 200);
    await sending;
    assert.equal((await client.answer()).status, 200);
    await until("the pool back", () => pool.stats().reserved === 0);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("Http1Connection cuts off a client that keeps sending to a paused or closing connection", async () => {
  const { EventEmitter } = await import("node:events");
  const { Buffer } = await import("node:buffer");
  // A socket that, like node:tls in Deno, goes on delivering data when paused.
  const fake = () => {
    const state = { destroyed: false, ended: false, written: [] as string[] };
    const socket = Object.assign(new EventEmitter(), {
      write: (chunk: string) => state.written.push(chunk) > 0,
      end: () => (state.ended = true),
      destroy: () => (state.destroyed = true),
      pause: () => {},
      resume: () => {},
    });
    return { socket, state };
  };
  const never = new Promise<never>(() => {});
  const flood = Buffer.alloc(16 * 1024, 0x61);

  // While an answer is made: one request head (and a chunk) is read ahead, no more.
  const waiting = fake();
  new Http1Connection(waiting.socket as unknown as Socket, () => never, { maxBodyBytes: 1024 });
  waiting.socket.emit("data", Buffer.from(post('{"n":1}')));
  for (let i = 0; i < 5 && !waiting.state.destroyed; i++) waiting.socket.emit("data", flood);
  assert.ok(!waiting.state.destroyed, "a head and a chunk are allowed");
  for (let i = 0; i < 10 && !waiting.state.destroyed; i++) waiting.socket.emit("data", flood);
  assert.ok(waiting.state.destroyed);

  // After an answer that closes (a body refused unread): what still arrives is dropped, then cut.
  const refused = fake();
  new Http1Connection(refused.socket as unknown as Socket, echo, { maxBodyBytes: 1024 });
  refused.socket.emit("data", Buffer.from(head(1_000_000)));
  await new Promise((r) => setTimeout(r, 0));
  assert.match(refused.state.written.join(""), /^HTTP\/1\.1 [45]\d\d /);
  assert.ok(refused.state.ended && !refused.state.destroyed);
  for (let i = 0; i < 10 && !refused.state.destroyed; i++) refused.socket.emit("data", flood);
  assert.ok(refused.state.destroyed);
});

Deno.test("Http1Connection: a request's gone signal aborts when its client closes before the answer", async () => {
  let gone: AbortSignal | undefined;
  let asked!: () => void;
  const waiting = new Promise<void>((resolve) => (asked = resolve));
  const never = new Promise<never>(() => {});
  // As the webhook's server does (server.ts): a client that ends its side ends the connection.
  const server = await serve(
    (request: WebhookRequest) => {
      request.json(1024);
      gone = request.gone;
      asked();
      return never;
    },
    { maxBodyBytes: 1024 },
    false,
  );
  const client = await Client.connect(server.port);
  try {
    await client.write(post('{"n":1}'));
    await waiting;
    assert.ok(gone !== undefined && !gone.aborted, "not aborted while the client waits");
    const aborted = new Promise<unknown>((resolve) =>
      gone!.addEventListener("abort", () => resolve(gone!.reason), { once: true })
    );
    client.close();
    const reason = await aborted;
    assert.ok(reason instanceof ClientGoneError);
  } finally {
    await server.close();
  }
});
