import assert from "node:assert/strict";
import { startReferrersRegistry, startRegistry } from "./registry.ts";
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

Deno.test({
  name: "startReferrersRegistry() serves the referrers API, over TLS with its own CA",
  ignore: e2eSkipReason(["referrers-registry", "openssl"]) !== undefined,
  fn: async () => {
    await using registry = await startReferrersRegistry({ tls: true });
    assert.equal(registry.referrers, true);
    assert.ok(registry.url.startsWith("https://"));
    const client = Deno.createHttpClient({ caCerts: [registry.caCertPem!] });
    try {
      // Referrers of a digest in a repository it does not know: 404 NAME_UNKNOWN (once the
      // repository holds a manifest, any digest answers 200 with an index).
      const digest = `sha256:${"0".repeat(64)}`;
      const unknown = await fetch(`${registry.url}/v2/demo/referrers/${digest}`, { client });
      assert.equal(unknown.status, 404);
      assert.match(await unknown.text(), /NAME_UNKNOWN/);
    } finally {
      client.close();
    }
  },
});
