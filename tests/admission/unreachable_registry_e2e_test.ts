/**
 * A registry the webhook cannot reach (a closed port of 127.0.0.1, as a mirror only the nodes
 * can reach), against the real API server and webhook: what needs no digest and no signature is
 * decided without contacting it (`insecureAcceptAnything` with `mutateImage: false` admits,
 * `reject` denies), and what needs a digest still fails closed; its metrics count that denial as
 * fail-closed (`cause="error"`, a `registry` verification error) and reject's as the policy's,
 * and the key Secret a `signedBy` requirement read (before the registry) is on /metrics with the
 * expiry of its key.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, freePort } from "../env/mod.ts";
import { startWorld } from "./_world.ts";
import { CONTROLLER_NAMESPACE, dryRunPod } from "./_webhook.ts";
import { generateKeyPair } from "../../lib/signing/mod.ts";

Deno.test({
  name: "the webhook decides reject and unpinned insecureAcceptAnything without the registry",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    await using world = await startWorld({ images: false });
    const { cluster } = world;
    const mirror = `127.0.0.1:${freePort()}`; // nothing listens there
    const accept = [{ type: "insecureAcceptAnything" }];
    await world.namespaces("dev");
    // A key that expires in 10 days (OpenPGP counts whole seconds).
    const created = new Date(Math.floor(Date.now() / 1000) * 1000);
    const expiring = await generateKeyPair({
      name: "expiring",
      keyExpirationTime: 10 * 86400,
      clock: () => created,
    });
    await world.keySecret("expiring-key", expiring.publicKeyArmored);
    await world.apply(
      JSON.stringify({
        apiVersion: "toolkit.dev/v1",
        kind: "ClusterImagePolicy",
        metadata: { name: "mirror" },
        spec: {
          repositories: [
            {
              name: `${mirror}/open/*`,
              policy: { mutateImage: false, simple: { requirements: accept } },
            },
            {
              name: `${mirror}/banned/*`,
              policy: { simple: { requirements: [{ type: "reject" }] } },
            },
            { name: `${mirror}/pinned/*`, policy: { simple: { requirements: accept } } },
            {
              name: `${mirror}/signed/*`,
              policy: {
                simple: { requirements: [{ type: "signedBy", keySecret: "expiring-key" }] },
              },
            },
          ],
        },
      }),
    );
    const webhook = await world.startWebhook({
      insecureRegistries: ["127.0.0.1"],
      probe: { namespace: "dev", image: `${mirror}/banned/app:1` },
    });
    const client = Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
    /** The value of the series `series` (a name and its labels, as written) on /metrics. */
    const metric = async (series: string) => {
      const text = await (await fetch(`https://127.0.0.1:${webhook.port}/metrics`, { client }))
        .text();
      const line = text.split("\n").find((l) => l.startsWith(`${series} `));
      assert.ok(line, `no ${series} in\n${text}`);
      return Number(line.split(" ")[1]);
    };
    const registryErrors = () => metric("toolkit_admission_registry_errors_total");

    try {
      await t.step("insecureAcceptAnything with mutateImage: false admits, unpinned", async () => {
        for (const image of [`${mirror}/open/app:1`, `${mirror}/open/app`]) {
          const r = await cluster.kubectl(
            ["run", "open", "-n", "dev", `--image=${image}`, "--dry-run=server", "-o", "json"],
          );
          assert.equal(r.code, 0, r.stderr);
          assert.equal(JSON.parse(r.stdout).spec.containers[0].image, image);
        }
      });

      await t.step("reject denies with its reason", async () => {
        const r = await dryRunPod(cluster, "banned", "dev", `${mirror}/banned/app:1`);
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, /is rejected by policy/);
      });

      await t.step("neither contacted the registry", async () => {
        assert.equal(await registryErrors(), 0);
      });

      await t.step("pinning needs the digest: the unreachable registry denies", async () => {
        const r = await dryRunPod(cluster, "pinned", "dev", `${mirror}/pinned/app:1`);
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, /policy denied the request: Cannot read manifest/);
        assert.ok(await registryErrors() > 0);
      });

      await t.step("the metrics tell a fail-closed denial from a policy's", async () => {
        const reviews = 'toolkit_admission_reviews_total{decision="deny",cause=';
        assert.ok(await metric(`${reviews}"error"}`) > 0, "the unreachable registry's denial");
        assert.ok(await metric(`${reviews}"policy"}`) > 0, "reject's denial");
        assert.ok(
          await metric('toolkit_admission_verification_errors_total{kind="registry"}') > 0,
        );
        assert.equal(await metric('toolkit_admission_verification_errors_total{kind="config"}'), 0);
        const expiry = await metric(
          "toolkit_admission_serving_certificate_expiry_timestamp_seconds",
        );
        assert.ok(expiry > Date.now() / 1000, `the serving certificate's expiry (${expiry})`);
      });

      await t.step(
        "the key Secret a verification read is on /metrics with its expiry",
        async () => {
          // Its keys are read before the registry is asked: the unreachable registry then denies.
          const r = await dryRunPod(cluster, "signed", "dev", `${mirror}/signed/app:1`);
          assert.notEqual(r.code, 0);
          assert.match(r.stderr, /policy denied the request: Cannot read manifest/);
          assert.equal(
            await metric(
              `toolkit_admission_key_secret_expiry_timestamp_seconds{object_namespace="${CONTROLLER_NAMESPACE}",object_name="expiring-key"}`,
            ),
            created.getTime() / 1000 + 10 * 86400,
          );
        },
      );
    } finally {
      client.close();
    }
  },
});
