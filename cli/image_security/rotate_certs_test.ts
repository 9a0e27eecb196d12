/**
 * `toolkit image-security rotate-certs` in-process, against the in-memory API server: a new
 * serving certificate in the TLS Secret and the webhook configuration's CA bundle, refused where
 * enforcement is not enabled.
 */
import assert from "node:assert/strict";
import { fakeCli } from "../../tests/fakes/cli.ts";
import { SECRETS } from "../../lib/kube/mod.ts";
import { decodeBase64Text } from "../../lib/base64.ts";

Deno.test("rotate-certs renews the serving certificate of an enabled installation, and refuses where there is none", async () => {
  await using cli = await fakeCli();
  const none = await cli.run(["image-security", "rotate-certs"]);
  assert.equal(none.status, 1);
  assert.match(
    none.err,
    /Cannot rotate the certificates of "toolkit-system": image signature enforcement is not enabled \(no MutatingWebhookConfiguration "toolkit-image-security"\)/,
  );

  const enabled = await cli.run([
    "image-security",
    "enable",
    "--webhook-url",
    "https://127.0.0.1:9/admit",
    "--no-verify-url",
  ]);
  assert.equal(enabled.status, 0, enabled.err);
  const tls = () =>
    (cli.kube.get(SECRETS, "toolkit-system", "toolkit-webhook-tls")?.data as Record<
      string,
      string
    >)[
      "tls.crt"
    ];
  const before = tls();
  const rotated = await cli.run(["image-security", "rotate-certs", "-o", "json"]);
  assert.equal(rotated.status, 0, rotated.err);
  const data = JSON.parse(rotated.out);
  assert.deepEqual(
    data.results.map((r: { kind: string; outcome: string }) => [r.kind, r.outcome]),
    [["Secret", "configured"], ["MutatingWebhookConfiguration", "configured"]],
  );
  assert.deepEqual(data.failures, []);
  assert.ok(typeof data.notAfter === "string");
  assert.notEqual(tls(), before, "a new certificate");
});

Deno.test("rotate-certs --tls-dir writes the client CA beside the certificate when the webhook requires client certificates", async () => {
  await using cli = await fakeCli();
  const flags = ["--webhook-url", "https://127.0.0.1:9/admit", "--no-verify-url"];
  assert.equal((await cli.run(["image-security", "enable", ...flags])).status, 0);
  const plain = await cli.run(["image-security", "rotate-certs", "--tls-dir", "plain"]);
  assert.equal(plain.status, 0, plain.err);
  assert.match(plain.err, /Serving certificate written to plain \(tls\.crt, tls\.key, ca\.crt\)/);
  await assert.rejects(Deno.stat(`${cli.dir}/plain/client-ca.crt`), Deno.errors.NotFound);

  const enabled = await cli.run(["image-security", "enable", ...flags, "--client-auth"]);
  assert.equal(enabled.status, 0, enabled.err);
  const rotated = await cli.run(["image-security", "rotate-certs", "--tls-dir", "tls"]);
  assert.equal(rotated.status, 0, rotated.err);
  assert.match(
    rotated.err,
    /Serving certificate written to tls \(tls\.crt, tls\.key, ca\.crt, client-ca\.crt\)/,
  );
  const secret = cli.kube.get(SECRETS, "toolkit-system", "toolkit-webhook-client-ca");
  const caCrt = (secret?.data as Record<string, string>)["ca.crt"]!;
  assert.equal(await Deno.readTextFile(`${cli.dir}/tls/client-ca.crt`), decodeBase64Text(caCrt));
  assert.doesNotMatch(await Deno.readTextFile(`${cli.dir}/tls/client-ca.crt`), /PRIVATE KEY/);
});
