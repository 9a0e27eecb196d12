import assert from "node:assert/strict";
import { e2eSkipReason, issueCert, LOOPBACK_SANS, makeCA } from "../tests/env/mod.ts";
import { type ServerEvent, startTlsServer } from "./server.ts";

async function get(port: number, caPem: string): Promise<string> {
  const client = Deno.createHttpClient({ caCerts: [caPem] });
  try {
    return await (await fetch(`https://127.0.0.1:${port}/`, { client })).text();
  } finally {
    client.close();
  }
}

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
        onEvent: (e) => events.push(e),
      }, () => new Response("hello"));
      assert.equal(await get(server.port, first.certPem), "hello");
      assert.equal(await server.reload(), false, "unchanged files are not reloaded");

      await Deno.writeTextFile(certFile, b.certPem);
      await Deno.writeTextFile(keyFile, b.keyPem);
      assert.equal(await server.reload(), true);
      assert.equal(await get(server.port, second.certPem), "hello");
      await assert.rejects(() => get(server.port, first.certPem));

      await Deno.writeTextFile(keyFile, "not a key");
      assert.equal(await server.reload(), false);
      assert.equal(events.at(-1)?.type, "reload-failed");
      assert.equal(await get(server.port, second.certPem), "hello", "the old pair still serves");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
