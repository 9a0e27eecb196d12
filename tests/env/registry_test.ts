import assert from "node:assert/strict";
import { startRegistry } from "./registry.ts";
import { e2eSkipReason } from "./tools.ts";

const ignore = e2eSkipReason(["docker-registry", "htpasswd", "openssl"]) !== undefined;

Deno.test({
  name: "startRegistry() serves the distribution API anonymously",
  ignore,
  fn: async () => {
    await using registry = await startRegistry();
    const response = await fetch(`${registry.url}/v2/`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("docker-distribution-api-version"), "registry/2.0");
    await response.body?.cancel();
  },
});

Deno.test({
  name: "startRegistry() with auth and TLS challenges with Basic and accepts the credentials",
  ignore,
  fn: async () => {
    await using registry = await startRegistry({
      auth: { username: "alice", password: "s3cret" },
      tls: true,
    });
    assert.ok(registry.url.startsWith("https://"));
    const client = Deno.createHttpClient({ caCerts: [registry.caCertPem!] });
    try {
      const anonymous = await fetch(`${registry.url}/v2/`, { client });
      assert.equal(anonymous.status, 401);
      assert.match(anonymous.headers.get("www-authenticate") ?? "", /^Basic realm="toolkit-test"/);
      await anonymous.body?.cancel();
      const authed = await fetch(`${registry.url}/v2/`, {
        client,
        headers: { authorization: `Basic ${btoa("alice:s3cret")}` },
      });
      assert.equal(authed.status, 200);
      await authed.body?.cancel();
    } finally {
      client.close();
    }
  },
});

Deno.test({
  name: "startRegistry() stop() ends the process and removes its directory",
  ignore,
  fn: async () => {
    const registry = await startRegistry();
    await registry.stop();
    assert.equal((await registry.process.status).success !== undefined, true);
    await assert.rejects(Deno.stat(registry.dir));
    await assert.rejects(fetch(`${registry.url}/v2/`));
  },
});
