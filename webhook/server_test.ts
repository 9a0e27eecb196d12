import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { e2eSkipReason, issueCert, LOOPBACK_SANS, makeCA } from "../tests/env/mod.ts";
import type { WebhookAnswer, WebhookRequest } from "./handler.ts";
import { type ServerEvent, startTlsServer } from "./server.ts";

async function get(port: number, caPem: string, path = "/"): Promise<string> {
  const client = Deno.createHttpClient({ caCerts: [caPem] });
  try {
    return await (await fetch(`https://127.0.0.1:${port}${path}`, { client })).text();
  } finally {
    client.close();
  }
}

const hello = (request: WebhookRequest): Promise<WebhookAnswer> =>
  Promise.resolve({ status: 200, contentType: "text/plain", body: `hello ${request.path}` });

Deno.test({
  name: "startTlsServer() switches to new certificate files and refuses broken ones",
  ignore: e2eSkipReason(["openssl"]) !== undefined,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "tls-reload-" });
    try {
      const first = await makeCA(dir, "first-ca");
      const second = await makeCA(dir, "second-ca");
      const a = await issueCert(dir, first, { name: "a", cn: "a", sans: LOOPBACK_SANS });
      const b = await issueCert(dir, second, { name: "b", cn: "b", sans: LOOPBACK_SANS });
      const certFile = `${dir}/tls.crt`;
      const keyFile = `${dir}/tls.key`;
      await Deno.writeTextFile(certFile, a.certPem);
      await Deno.writeTextFile(keyFile, a.keyPem);
      const events: ServerEvent[] = [];
      await using server = await startTlsServer({
        hostname: "127.0.0.1",
        port: 0,
        certFile,
        keyFile,
        reloadIntervalMs: 3_600_000,
        limits: { maxBodyBytes: 1024 },
        onEvent: (e) => events.push(e),
      }, hello);
      assert.equal(await get(server.port, first.certPem), "hello /");
      assert.equal(await server.reload(), false, "unchanged files are not reloaded");

      await Deno.writeTextFile(certFile, b.certPem);
      await Deno.writeTextFile(keyFile, b.keyPem);
      assert.equal(await server.reload(), true);
      assert.equal(await get(server.port, second.certPem), "hello /");
      await assert.rejects(() => get(server.port, first.certPem));
      // Each event names when the certificate in use expires (the webhook's expiry gauge).
      const notAfter = (pem: string) => new Date(new X509Certificate(pem).validTo).toISOString();
      assert.deepEqual(
        events.map((e) => "certificateNotAfter" in e && e.certificateNotAfter),
        [notAfter(a.certPem), notAfter(b.certPem)],
      );

      await Deno.writeTextFile(keyFile, "not a key");
      assert.equal(await server.reload(), false);
      assert.equal(events.at(-1)?.type, "reload-failed");
      assert.equal(await get(server.port, second.certPem), "hello /", "the old pair still serves");

      await Deno.writeTextFile(keyFile, a.keyPem);
      assert.equal(await server.reload(), false, "a key of another certificate is refused");
      assert.match(JSON.stringify(events.at(-1)), /does not belong to the certificate/);
      assert.equal(await get(server.port, second.certPem), "hello /");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "startTlsServer() offers HTTP/1.1 only, and shuts down once the request in progress is answered",
  ignore: e2eSkipReason(["openssl"]) !== undefined,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "tls-shutdown-" });
    try {
      const ca = await makeCA(dir, "ca");
      const pair = await issueCert(dir, ca, { name: "s", cn: "s", sans: LOOPBACK_SANS });
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let started!: () => void;
      const startedSlow = new Promise<void>((r) => (started = r));
      const server = await startTlsServer({
        hostname: "127.0.0.1",
        port: 0,
        certFile: pair.certFile,
        keyFile: pair.keyFile,
        reloadIntervalMs: 3_600_000,
        limits: { maxBodyBytes: 1024 },
      }, async (request) => {
        if (request.path === "/slow") {
          started();
          await released;
        }
        return await hello(request);
      });
      const conn = await Deno.connectTls({
        hostname: "127.0.0.1",
        port: server.port,
        caCerts: [ca.certPem],
        alpnProtocols: ["h2", "http/1.1"],
      });
      assert.equal((await conn.handshake()).alpnProtocol, "http/1.1");
      conn.close();

      const slow = get(server.port, ca.certPem, "/slow");
      await startedSlow;
      let finished = false;
      const stopping = server.shutdown().then(() => (finished = true));
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(finished, false, "shutdown waits for the request in progress");
      await assert.rejects(() => get(server.port, ca.certPem), "no new connection is accepted");
      release();
      assert.equal(await slow, "hello /slow");
      await stopping;
      await server.finished;
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** Serves `hello` with a fresh certificate and the given connection bounds, for `fn`'s time. */
async function withBoundedServer(
  bounds: { maxConnections: number; handshakeTimeoutMs?: number },
  fn: (port: number, caPem: string, idle: Deno.TcpConn[]) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "tls-bounds-" });
  /** Connections the test opens and leaves silent; closed before the server shuts down. */
  const idle: Deno.TcpConn[] = [];
  try {
    const ca = await makeCA(dir, "ca");
    const pair = await issueCert(dir, ca, { name: "s", cn: "s", sans: LOOPBACK_SANS });
    await Deno.writeTextFile(`${dir}/tls.crt`, pair.certPem);
    await Deno.writeTextFile(`${dir}/tls.key`, pair.keyPem);
    await using server = await startTlsServer({
      hostname: "127.0.0.1",
      port: 0,
      certFile: `${dir}/tls.crt`,
      keyFile: `${dir}/tls.key`,
      reloadIntervalMs: 3_600_000,
      limits: { maxBodyBytes: 1024 },
      ...bounds,
    }, hello);
    try {
      await fn(server.port, ca.certPem, idle);
    } finally {
      // Shutting down waits for open connections: let the idle ones go first.
      for (const conn of idle.splice(0)) conn.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Asks until the server answers (at most ~2 s). */
async function getOnceServed(port: number, caPem: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const answer = await get(port, caPem).catch(() => "");
    if (answer !== "") return answer;
    await new Promise((r) => setTimeout(r, 20));
  }
  return "";
}

Deno.test({
  name: "startTlsServer() closes connections beyond maxConnections and keeps serving the others",
  ignore: e2eSkipReason(["openssl"]) !== undefined,
  fn: () =>
    withBoundedServer({ maxConnections: 4 }, async (port, caPem, idle) => {
      // Four connections that never start their handshake take every place.
      for (let i = 0; i < 4; i++) idle.push(await Deno.connect({ hostname: "127.0.0.1", port }));
      await assert.rejects(() => get(port, caPem), "a fifth is closed at once");
      idle.pop()!.close();
      assert.equal(await getOnceServed(port, caPem), "hello /", "a place freed is taken again");
    }),
});

Deno.test({
  name:
    "startTlsServer() releases a connection that never finishes its handshake or closes before it",
  ignore: e2eSkipReason(["openssl"]) !== undefined,
  fn: () =>
    withBoundedServer({ maxConnections: 2, handshakeTimeoutMs: 300 }, async (port, caPem, idle) => {
      // A port scan: connects and closes, many times over. Each place is given back.
      for (let i = 0; i < 20; i++) (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      // Two connections that never say anything take both places, until their handshake time
      // runs out.
      for (let i = 0; i < 2; i++) idle.push(await Deno.connect({ hostname: "127.0.0.1", port }));
      assert.equal(await getOnceServed(port, caPem), "hello /", "the silent ones were let go");
      const closed = await idle[0]!.read(new Uint8Array(16)).catch(() => null);
      assert.equal(closed, null, "the server closed the silent connection");
    }),
});

/**
 * Sends `GET /` on a TLS connection presenting `client` (or no certificate) and returns what
 * came back: the text of an answer, or `refused: …` when the handshake or the read failed.
 */
async function askWithCertificate(
  port: number,
  caPem: string,
  client?: { certPem: string; keyPem: string },
): Promise<string> {
  let conn: Deno.TlsConn | undefined;
  try {
    conn = await Deno.connectTls({
      hostname: "127.0.0.1",
      port,
      caCerts: [caPem],
      ...(client ? { cert: client.certPem, key: client.keyPem } : {}),
    });
    await conn.handshake();
    await conn.write(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    const buffer = new Uint8Array(4096);
    const n = await conn.read(buffer);
    return n === null ? "refused: closed" : new TextDecoder().decode(buffer.subarray(0, n));
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  } finally {
    try {
      conn?.close();
    } catch {
      // already closed by the server
    }
  }
}

Deno.test({
  name:
    "startTlsServer() with a client CA refuses at the handshake every client without a certificate from it",
  ignore: e2eSkipReason(["openssl"]) !== undefined,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "tls-client-ca-" });
    try {
      const serving = await makeCA(dir, "serving-ca");
      const pair = await issueCert(dir, serving, { name: "s", cn: "s", sans: LOOPBACK_SANS });
      const clients = await makeCA(dir, "client-ca");
      const other = await makeCA(dir, "other-ca");
      const apiServer = await issueCert(dir, clients, {
        name: "apiserver",
        cn: "kube-apiserver",
        client: true,
      });
      const stranger = await issueCert(dir, other, { name: "x", cn: "x", client: true });
      const caFile = `${dir}/client-ca.crt`;
      await Deno.writeTextFile(caFile, clients.certPem);
      let requests = 0;
      const events: ServerEvent[] = [];
      await using server = await startTlsServer({
        hostname: "127.0.0.1",
        port: 0,
        certFile: pair.certFile,
        keyFile: pair.keyFile,
        clientCaFile: caFile,
        reloadIntervalMs: 3_600_000,
        limits: { maxBodyBytes: 1024 },
        onEvent: (e) => events.push(e),
      }, (request) => {
        requests++;
        return hello(request);
      });
      assert.deepEqual(events[0], {
        type: "listening",
        address: `127.0.0.1:${server.port}`,
        clientCa: true,
        certificateNotAfter: new Date(
          new X509Certificate(await Deno.readTextFile(pair.certFile)).validTo,
        ).toISOString(),
      });
      assert.match(await askWithCertificate(server.port, serving.certPem), /^refused: /);
      assert.match(
        await askWithCertificate(server.port, serving.certPem, stranger),
        /^refused: /,
        "a certificate from another CA is refused",
      );
      assert.equal(requests, 0, "no request of a refused client reached the routes");
      assert.match(
        await askWithCertificate(server.port, serving.certPem, apiServer),
        /^HTTP\/1\.1 200 OK\r\n[\s\S]*hello \/$/,
      );
      assert.equal(requests, 1);

      // A new CA file is taken; one that is not a CA certificate, or no certificate, is not.
      await Deno.writeTextFile(caFile, other.certPem + clients.certPem);
      assert.equal(await server.reload(), true);
      assert.equal(events.at(-1)?.type, "reloaded");
      assert.match(JSON.stringify(events.at(-1)), /"files":"client CA"/);
      assert.match(await askWithCertificate(server.port, serving.certPem, stranger), /200 OK/);
      await Deno.writeTextFile(caFile, apiServer.certPem);
      assert.equal(await server.reload(), false);
      assert.match(JSON.stringify(events.at(-1)), /reload-failed.*is not a CA certificate/);
      await Deno.writeTextFile(caFile, "garbage");
      assert.equal(await server.reload(), false);
      assert.match(JSON.stringify(events.at(-1)), /holds no PEM certificate/);
      assert.match(
        await askWithCertificate(server.port, serving.certPem, stranger),
        /200 OK/,
        "the CA in use stays",
      );
      assert.match(await askWithCertificate(server.port, serving.certPem), /^refused: /);
      await Deno.writeTextFile(caFile, clients.certPem);
      assert.equal(await server.reload(), true);
      assert.match(await askWithCertificate(server.port, serving.certPem, stranger), /^refused/);
      assert.match(await askWithCertificate(server.port, serving.certPem, apiServer), /200 OK/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "startTlsServer() refuses to start with a client CA file that holds no CA",
  ignore: e2eSkipReason(["openssl"]) !== undefined,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "tls-client-ca-bad-" });
    try {
      const ca = await makeCA(dir, "ca");
      const pair = await issueCert(dir, ca, { name: "s", cn: "s", sans: LOOPBACK_SANS });
      await assert.rejects(
        () =>
          startTlsServer({
            hostname: "127.0.0.1",
            port: 0,
            certFile: pair.certFile,
            keyFile: pair.keyFile,
            clientCaFile: pair.certFile,
            reloadIntervalMs: 3_600_000,
            limits: { maxBodyBytes: 1024 },
          }, hello),
        /is not a CA certificate/,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
