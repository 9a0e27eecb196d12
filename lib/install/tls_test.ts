import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { decodePem } from "../pem.ts";
import { x509 } from "../x509.ts";
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

Deno.test("generateWebhookTls() gives the CA and the serving certificate their properties", async () => {
  const now = new Date("2030-01-01T00:00:00Z");
  const tls = await generateWebhookTls({ dnsNames: [NAME, "127.0.0.1"], now, validityDays: 90 });
  const ca = new x509.X509Certificate(tls.caCertPem);
  const leaf = new x509.X509Certificate(tls.certPem);
  const fiveMinutesBefore = new Date(now.getTime() - 5 * 60_000);
  const expiry = new Date("2030-04-01T00:00:00Z");
  for (const cert of [ca, leaf]) {
    assert.deepEqual([cert.notBefore, cert.notAfter], [fiveMinutesBefore, expiry]);
    assert.equal(cert.issuer, ca.subject);
    assert.ok(/^[0-7]/.test(cert.serialNumber) && cert.serialNumber.length === 32, "positive");
    assert.equal(
      cert.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId,
      ca.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId,
    );
  }
  assert.ok(await ca.isSelfSigned());
  assert.ok(await leaf.verify({ publicKey: ca.publicKey, date: now }));
  assert.equal(tls.notAfter.getTime(), expiry.getTime());

  const caConstraints = ca.getExtension(x509.BasicConstraintsExtension)!;
  assert.deepEqual([caConstraints.ca, caConstraints.critical], [true, true]);
  const caUsage = ca.getExtension(x509.KeyUsagesExtension)!;
  assert.equal(caUsage.critical, true);
  assert.equal(
    caUsage.usages,
    x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign |
      x509.KeyUsageFlags.cRLSign,
  );
  assert.equal(ca.getExtension(x509.SubjectAlternativeNameExtension), null);
  assert.match(ca.subject, /^CN=toolkit-webhook-ca@\d+$/);

  assert.equal(leaf.subject, `CN=${NAME}`);
  const leafConstraints = leaf.getExtension(x509.BasicConstraintsExtension)!;
  assert.deepEqual([leafConstraints.ca, leafConstraints.critical], [false, true]);
  const leafUsage = leaf.getExtension(x509.KeyUsagesExtension)!;
  assert.deepEqual([leafUsage.usages, leafUsage.critical], [
    x509.KeyUsageFlags.digitalSignature,
    true,
  ]);
  assert.deepEqual([...leaf.getExtension(x509.ExtendedKeyUsageExtension)!.usages], [
    x509.ExtendedKeyUsage.serverAuth,
  ]);
  assert.deepEqual(
    leaf.getExtension(x509.SubjectAlternativeNameExtension)?.names.items.map((n) => [
      n.type,
      n.value,
    ]),
    [["dns", NAME], ["ip", "127.0.0.1"]],
  );
  const key = await crypto.subtle.importKey(
    "pkcs8",
    decodePem(tls.keyPem)[0]!.bytes,
    { name: "ECDSA", namedCurve: "P-256" },
    true,
    ["sign"],
  );
  const jwk = await crypto.subtle.exportKey("jwk", key);
  const leafJwk = await crypto.subtle.exportKey("jwk", await leaf.publicKey.export());
  assert.deepEqual([jwk.x, jwk.y], [leafJwk.x, leafJwk.y], "the key is the certificate's");
});

Deno.test("readCertificate() reads the first certificate of a chain and refuses what is not one", async () => {
  const tls = await generateWebhookTls({ dnsNames: [NAME] });
  assert.deepEqual(readCertificate(tls.certPem + tls.caCertPem).names, [NAME]);
  assert.throws(() => readCertificate("not a certificate"), /not a PEM X.509 certificate/);
  assert.throws(() => readCertificate(tls.keyPem), /not a PEM X.509 certificate/);
});
