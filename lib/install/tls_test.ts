import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import {
  caBundle,
  decodeBase64Text,
  ensureTls,
  generateWebhookTls,
  readCertificate,
  renewalReason,
  tlsSecretManifest,
} from "./tls.ts";

const NAME = "toolkit-webhook.toolkit-system.svc";

Deno.test("generateWebhookTls() makes a serving certificate its CA verifies", async () => {
  const tls = await generateWebhookTls({ dnsNames: [NAME, "127.0.0.1"] });
  const ca = new X509Certificate(tls.caCertPem);
  const leaf = new X509Certificate(tls.certPem);
  assert.ok(leaf.verify(ca.publicKey));
  assert.ok(leaf.checkIssued(ca));
  assert.equal(ca.ca, true);
  assert.equal(leaf.ca, false);
  assert.deepEqual(readCertificate(tls.certPem).names, [NAME, "127.0.0.1"]);
});

Deno.test("generateWebhookTls() serves HTTPS that a client trusting the CA accepts", async () => {
  const tls = await generateWebhookTls({ dnsNames: ["localhost", "127.0.0.1"] });
  await using server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", cert: tls.certPem, key: tls.keyPem, onListen() {} },
    () => new Response("ok"),
  );
  using client = Deno.createHttpClient({ caCerts: [tls.caCertPem] });
  const response = await fetch(`https://localhost:${server.addr.port}/`, { client });
  assert.equal(await response.text(), "ok");
});

Deno.test("renewalReason() keeps a good certificate and renews within 30 days of expiry", async () => {
  const now = new Date("2030-01-01T00:00:00Z");
  const tls = await generateWebhookTls({ dnsNames: [NAME], now, validityDays: 90 });
  const secret = tlsSecretManifest("toolkit-system", tls);
  assert.equal(renewalReason(secret, [NAME], now), undefined);
  assert.match(renewalReason(secret, [NAME], new Date("2030-03-10T00:00:00Z"))!, /expires/);
  assert.match(renewalReason(secret, ["other.svc"], now)!, /not for other.svc/);
  assert.equal(renewalReason(undefined, [NAME], now), "no certificate yet");
});

Deno.test("ensureTls() renews when forced and keeps the old CA in the bundle", async () => {
  const now = new Date();
  const first = await ensureTls(undefined, { dnsNames: [NAME], now });
  const secret = tlsSecretManifest("toolkit-system", first.tls);
  const kept = await ensureTls(secret, { dnsNames: [NAME], now });
  assert.equal(kept.renewed, undefined);
  assert.equal(kept.tls.certPem, first.tls.certPem);
  const forced = await ensureTls(secret, { dnsNames: [NAME], now, force: true });
  assert.ok(forced.renewed);
  assert.notEqual(forced.tls.caCertPem, first.tls.caCertPem);
  const bundle = decodeBase64Text(forced.caBundle);
  assert.ok(bundle.includes(first.tls.caCertPem) && bundle.includes(forced.tls.caCertPem));
  assert.equal(decodeBase64Text(caBundle(forced.tls, undefined, now)), forced.tls.caCertPem);
});

Deno.test("the certificate passes openssl verify", async () => {
  const tls = await generateWebhookTls({ dnsNames: [NAME] });
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/ca.pem`, tls.caCertPem);
    await Deno.writeTextFile(`${dir}/cert.pem`, tls.certPem);
    const out = await new Deno.Command("openssl", {
      args: ["verify", "-purpose", "sslserver", "-CAfile", `${dir}/ca.pem`, `${dir}/cert.pem`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
