/**
 * One spelling per registry, against the real API server, registry and webhook: an image written
 * with another spelling of a guarded registry (upper case, a port with leading zeros, `:443`, an
 * IP address in another notation, another name of Docker Hub) is governed by that registry's
 * policy, not by a permissive `*`; an admitted image is pinned in the canonical spelling; and a
 * digest algorithm named like an Object property is denied as unsupported.
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { startWorld } from "./_world.ts";
import { dryRunPod, podManifest } from "./_webhook.ts";

Deno.test({
  name: "every spelling of a guarded registry is held to its policy, not to a permissive *",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    await using world = await startWorld();
    const { cluster, registry, gpg } = world;
    const signer = await world.signer();
    const reg = registry.host; // 127.0.0.1:PORT
    const port = reg.slice(reg.lastIndexOf(":") + 1);
    const app = `${reg}/team/app:1`;
    const appDigest = await gpg.pushImage(app, { signBy: signer.fingerprint });
    await gpg.pushImage(`${reg}/team/unsigned:1`, { content: "unsigned" });

    await world.namespaces("dev");
    await world.keySecret("signer", signer.publicKeyArmored);
    const signed = { simple: { requirements: [{ type: "signedBy", keySecret: "signer" }] } };
    const rejected = { simple: { requirements: [{ type: "reject" }] } };
    await world.clusterPolicy([
      { name: "*", policy: {} }, // anything else: admitted without checks
      { name: `${reg}/*`, policy: signed },
      { name: `localhost:${port}/*`, policy: signed },
      // Registries this test cannot reach: their policy denies, so a spelling that
      // reached "*" instead would be admitted.
      { name: "docker.io/library/*", policy: rejected },
      { name: "reg.example.com/*", policy: rejected },
    ]);
    await world.startWebhook({
      insecureRegistries: ["127.0.0.1", "localhost"],
      probe: { namespace: "dev", image: `${reg}/team/unsigned:1` },
    });

    const noSignature = /A signature was required, but no signature exists/;
    const rejectedByPolicy = /is rejected by policy/;
    /** Asserts that every image is denied for `reason`; the failure lists every one that is not. */
    const allDenied = async (images: string[], reason: RegExp) => {
      const escaped: string[] = [];
      for (const image of images) {
        const r = await dryRunPod(cluster, "spelling", "dev", image);
        if (r.code === 0 || !reason.test(r.stderr)) escaped.push(`${image}: ${r.stderr.trim()}`);
      }
      assert.deepEqual(escaped, []);
    };

    await t.step(
      "the registry of tests/env, spelt otherwise, still needs a signature",
      async () => {
        await allDenied([
          `127.0.0.1:0${port}/team/unsigned:1`,
          `127.0.0.1:00${port}/team/unsigned:1`,
          `0177.0.0.1:${port}/team/unsigned:1`,
          `LOCALHOST:${port}/team/unsigned:1`,
          `LocalHost:${port}/team/unsigned:1`,
          `localhost:0${port}/team/unsigned:1`,
        ], noSignature);
      },
    );

    await t.step("upper-case hosts and :443 are the registry's own policy", async () => {
      await allDenied([
        "REG.EXAMPLE.COM/team/app:1",
        "Reg.Example.Com/team/app:1",
        "reg.example.com:443/team/app:1",
        "reg.example.com:0443/team/app:1",
        "REG.EXAMPLE.COM:443/team/app:1",
      ], rejectedByPolicy);
    });

    await t.step("every name of Docker Hub is docker.io", async () => {
      await allDenied([
        "registry-1.docker.io/library/nginx:1.27",
        "REGISTRY-1.DOCKER.IO/library/nginx:1.27",
        "index.docker.io/library/nginx:1.27",
        "Index.Docker.IO/nginx:1.27",
        "DOCKER.IO/library/nginx:1.27",
        "docker.io:443/library/nginx:1.27",
        "registry-1.docker.io:0443/nginx:1.27",
      ], rejectedByPolicy);
    });

    await t.step("an admitted image is pinned in the canonical spelling", async () => {
      const r = await cluster.kubectl(
        ["create", "--dry-run=server", "-f", "-", "-o", "jsonpath={.spec.containers[0].image}"],
        { stdin: podManifest("pinned", "dev", { containers: [`127.0.0.1:0${port}/team/app:1`] }) },
      );
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${reg}/team/app@${appDigest}`);
    });

    await t.step("a digest algorithm named like an Object property is unsupported", async () => {
      for (const algorithm of ["constructor", "toString", "hasOwnProperty"]) {
        await allDenied(
          [`${reg}/team/app@${algorithm}:${"a".repeat(64)}`],
          new RegExp(`unsupported digest algorithm \\\\?"${algorithm}\\\\?"`),
        );
      }
    });
  },
});
