/**
 * `image-security enable --webhook-url` switches enforcement on only once the URL answers with
 * the certificate the API server will trust (issue #26: after `disable`, an `enable` that made a
 * new certificate while the webhook still served the old one made every Pod fail). In-process,
 * against the in-memory API server and a real TLS server on 127.0.0.1 playing the webhook.
 */
import assert from "node:assert/strict";
import { MUTATING_WEBHOOK_CONFIGURATIONS } from "../../lib/kube/mod.ts";
import { fakeCli } from "../../tests/fakes/cli.ts";
import { issueCert, LOOPBACK_SANS, makeCA } from "../../tests/env/pki.ts";

/** A TLS server on a free loopback port answering every request, with `cert`/`key`. */
function tlsServer(cert: string, key: string, port = 0) {
  const controller = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port, cert, key, signal: controller.signal, onListen: () => {} },
    () => new Response("{}", { headers: { "Content-Type": "application/json" } }),
  );
  return {
    port: server.addr.port,
    async [Symbol.asyncDispose]() {
      controller.abort();
      await server.finished;
    },
  };
}

Deno.test("enable --webhook-url switches enforcement on only when the URL serves the trusted certificate", async () => {
  await using cli = await fakeCli();
  const ca = await makeCA(cli.dir, "old-ca");
  const old = await issueCert(cli.dir, ca, { name: "old", cn: "webhook", sans: LOOPBACK_SANS });
  let port: number;
  const hook = () =>
    cli.kube.get(MUTATING_WEBHOOK_CONFIGURATIONS, undefined, "toolkit-image-security");
  {
    // The webhook still serves a certificate of another CA.
    await using server = tlsServer(old.certPem, old.keyPem);
    port = server.port;
    const url = `https://127.0.0.1:${port}/admit`;
    const args = ["image-security", "enable", "--webhook-url", url, "--tls-dir", "tls"];
    const r = await cli.run([...args, "--wait-timeout", "3"]);
    assert.equal(r.status, 1, r.err);
    assert.match(
      r.err,
      new RegExp(
        `${url} does not answer with the certificate enforcement would trust \\(it serves a certificate the trusted CA did not sign \\(UnknownIssuer\\)\\)`,
      ),
    );
    assert.match(r.err, /so enforcement was not switched on/);
    assert.match(
      r.err,
      new RegExp(
        `start \\(or restart\\) the webhook serving ${url} with --tls-cert-file tls/tls.crt --tls-key-file tls/tls.key`,
      ),
    );
    assert.match(r.err, /--no-verify-url switches enforcement on without this check/);
    assert.doesNotMatch(r.err, /--help/);
    assert.equal(hook(), undefined, "no webhook configuration in front of the wrong certificate");

    // --no-verify-url: switched on, saying exactly what to restart.
    const unchecked = await cli.run([...args, "--no-verify-url"]);
    assert.equal(unchecked.status, 0, unchecked.err);
    assert.match(
      unchecked.err,
      /not checked \(--no-verify-url\): start \(or restart\) the webhook/,
    );
    assert.ok(hook(), "switched on when told not to check");
    await cli.run(["image-security", "disable"]);
    assert.equal(hook(), undefined);
  }
  // After disable, enable makes a new certificate (the issue's case): it waits, telling what to
  // restart, and switches enforcement on once the webhook serves the new certificate.
  const url = `https://127.0.0.1:${port}/admit`;
  const before = (await Deno.stat(`${cli.dir}/tls/tls.crt`)).mtime?.getTime();
  const enabling = cli.run(
    ["image-security", "enable", "--webhook-url", url, "--tls-dir", "tls", "--wait-timeout", "60"],
    {
      context: {
        clock: {
          now: () => Date.now(),
          sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
        },
      },
    },
  );
  // The webhook (re)started with the files enable writes.
  for (let i = 0; i < 600; i++) {
    const mtime = await Deno.stat(`${cli.dir}/tls/tls.crt`).then((s) => s.mtime?.getTime());
    if (mtime !== before) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const cert = await Deno.readTextFile(`${cli.dir}/tls/tls.crt`);
  const key = await Deno.readTextFile(`${cli.dir}/tls/tls.key`);
  await using _server = tlsServer(cert, key, port);
  const r = await enabling;
  assert.equal(r.status, 0, r.err);
  assert.match(r.err, /Making a new serving certificate/);
  assert.match(r.err, new RegExp(`${url} answers with the serving certificate`));
  assert.ok(hook(), "enforcement is on");
});
