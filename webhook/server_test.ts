import assert from "node:assert/strict";
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
