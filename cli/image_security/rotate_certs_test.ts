/**
 * `toolkit image-security rotate-certs` in-process, against the in-memory API server: a new
 * serving certificate in the TLS Secret and the webhook configuration's CA bundle, refused where
 * enforcement is not enabled.
 */
import assert from "node:assert/strict";
import { fakeCli } from "../../tests/fakes/cli.ts";
import { SECRETS } from "../../lib/kube/mod.ts";

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
