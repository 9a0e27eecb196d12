/**
 * The known Portieris bypass classes, and its matching defects, tried against the real API
 * server and the webhook: each must be denied (or, for the matching defects, work).
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { startWorld } from "./_world.ts";
import { deploymentManifest, kubectlOk, podManifest } from "./_webhook.ts";

Deno.test({
  name:
    "the webhook is not bypassed by spoofed hosts, zero replicas, fake owners, ephemeral or init containers",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    await using world = await startWorld();
    const { cluster, registry, gpg } = world;
    const signer = await world.signer();
    const reg = registry.host;
    const app = `${reg}/trusted/app:1`;
    const appDigest = await gpg.pushImage(app, { signBy: signer.fingerprint });
    const unsigned = `${reg}/trusted/unsigned:1`;
    await gpg.pushImage(unsigned, { content: "unsigned" });
    const exact = `${reg}/exact/app:1`;
    const exactDigest = await gpg.pushImage(exact, {
      signBy: signer.fingerprint,
      content: "exact",
    });

    await world.namespaces("dev");
    await world.keySecret("signer", signer.publicKeyArmored);
    const signed = { simple: { requirements: [{ type: "signedBy", keySecret: "signer" }] } };
    await world.clusterPolicy([
      { name: `${reg}/trusted/*`, policy: signed },
      { name: `${reg}/exact/app`, policy: signed },
      // Allows anything from hosts under trusted.example.com, without checks.
      { name: "*.trusted.example.com/*", policy: {} },
      { name: "docker.io/library/*", policy: {} },
    ]);
    await world.startWebhook({ probe: { namespace: "dev", image: unsigned } });
    const create = (manifest: string) =>
      cluster.kubectl(["create", "-f", "-"], { stdin: manifest });
    const denied = async (manifest: string, pattern: RegExp) => {
      const r = await create(manifest);
      assert.notEqual(r.code, 0, "must be denied");
      assert.match(r.stderr, pattern);
    };
    const noSignature =
      /policy denied the request: A signature was required, but no signature exists/;

    await t.step("a path that spoofs a trusted host does not match the host pattern", async () => {
      await denied(
        podManifest("spoof", "dev", {
          containers: ["attacker.example/x.trusted.example.com/myorg/evil:1"],
        }),
        /no ClusterImagePolicy matches "attacker\.example\/x\.trusted\.example\.com\/myorg\/evil:1"/,
      );
    });

    await t.step("a workload with zero replicas is checked", async () => {
      await denied(deploymentManifest("idle", "dev", unsigned, 0), noSignature);
      await denied(
        JSON.stringify({
          apiVersion: "apps/v1",
          kind: "StatefulSet",
          metadata: { name: "idle", namespace: "dev" },
          spec: {
            replicas: 0,
            serviceName: "idle",
            selector: { matchLabels: { app: "idle" } },
            template: {
              metadata: { labels: { app: "idle" } },
              spec: { containers: [{ name: "app", image: unsigned }] },
            },
          },
        }),
        noSignature,
      );
    });

    await t.step("a fabricated ownerReference is no reason to skip", async () => {
      await denied(
        podManifest("orphan", "dev", { containers: [unsigned] }, {
          ownerReferences: [{
            apiVersion: "apps/v1",
            kind: "ReplicaSet",
            name: "trusted-rs",
            uid: "6f1e3c52-2f7e-4b7f-9e43-1d7a8f0b1c2d",
            controller: true,
          }],
        }),
        noSignature,
      );
    });

    await t.step("init containers are checked", async () => {
      await denied(
        podManifest("init", "dev", { containers: [app], init: [unsigned] }),
        /A signature was required, but no signature exists \(container "init0" at spec\.initContainers\[0\]/,
      );
    });

    await t.step("ephemeral containers are checked", async () => {
      const r = await create(podManifest("target", "dev", { containers: [app] }));
      assert.equal(r.code, 0, r.stderr);
      const debug = await cluster.kubectl([
        "debug",
        "pod/target",
        "-n",
        "dev",
        `--image=${unsigned}`,
        "--container=debugger",
        "--attach=false",
      ]);
      assert.notEqual(debug.code, 0, debug.stdout);
      assert.match(debug.stderr, /container "debugger" at spec\.ephemeralContainers\[0\]/);
      const allowed = await cluster.kubectl([
        "debug",
        "pod/target",
        "-n",
        "dev",
        `--image=${app}`,
        "--container=signed-debugger",
        "--attach=false",
      ]);
      assert.equal(allowed.code, 0, allowed.stderr);
      const images = await kubectlOk(cluster, [
        "get",
        "pod",
        "target",
        "-n",
        "dev",
        "-o",
        "jsonpath={.spec.ephemeralContainers[*].image}",
      ]);
      assert.equal(images, `${reg}/trusted/app@${appDigest}`);
    });

    await t.step("an update to an unsigned image is denied", async () => {
      assert.equal((await create(deploymentManifest("web", "dev", app))).code, 0);
      const r = await cluster.kubectl([
        "set",
        "image",
        "deployment/web",
        "-n",
        "dev",
        `app=${unsigned}`,
      ]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, noSignature);
    });

    await t.step("every workload kind is checked", async () => {
      const template = {
        metadata: { labels: { app: "k" } },
        spec: { containers: [{ name: "app", image: unsigned }] },
      };
      const jobTemplate = {
        spec: { template: { ...template, spec: { ...template.spec, restartPolicy: "Never" } } },
      };
      const manifests = [
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          spec: { selector: { matchLabels: { app: "k" } }, template },
        },
        {
          apiVersion: "apps/v1",
          kind: "DaemonSet",
          spec: { selector: { matchLabels: { app: "k" } }, template },
        },
        {
          apiVersion: "v1",
          kind: "ReplicationController",
          spec: { selector: { app: "k" }, template },
        },
        { apiVersion: "batch/v1", kind: "Job", spec: jobTemplate.spec },
        { apiVersion: "batch/v1", kind: "CronJob", spec: { schedule: "* * * * *", jobTemplate } },
      ];
      for (const m of manifests) {
        const manifest = JSON.stringify({
          ...m,
          metadata: { name: "kind-test", namespace: "dev" },
        });
        const r = await cluster.kubectl(["create", "--dry-run=server", "-f", "-"], {
          stdin: manifest,
        });
        assert.notEqual(r.code, 0, `${m.kind} must be denied`);
        assert.match(r.stderr, noSignature, m.kind);
      }
    });

    await t.step("short names and digest references match their repository's policy", async () => {
      const short = await create(podManifest("short", "dev", { containers: ["nginx:1.26"] }));
      assert.equal(short.code, 0, short.stderr);
      const byDigest = await create(
        podManifest("by-digest", "dev", { containers: [`${reg}/exact/app@${exactDigest}`] }),
      );
      assert.equal(byDigest.code, 0, byDigest.stderr);
      // Re-applying a pinned object matches the same policy (Portieris's bare-name patterns did not).
      const pinned = await kubectlOk(cluster, [
        "get",
        "pod",
        "by-digest",
        "-n",
        "dev",
        "-o",
        "json",
      ]);
      const r = await cluster.kubectl(["replace", "--dry-run=server", "-f", "-"], {
        stdin: pinned,
      });
      assert.equal(r.code, 0, r.stderr);
    });
  },
});
