/**
 * Image volumes (`spec.volumes[].image.reference`, Kubernetes 1.31+) end to end: the real
 * kube-apiserver (with the `ImageVolume` feature gate on) calls the webhook, which checks an
 * image that a Pod only mounts like one it runs, pins it at the volume's path, and names the
 * volume in the denial, the Event and its log.
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { startWorld } from "./_world.ts";
import {
  deploymentManifest,
  dryRunPod,
  eventually,
  kubectlOk,
  podManifest,
  WEBHOOK_NAME,
} from "./_webhook.ts";

const EXEMPT_LABEL = "toolkit.dev/image-security";

Deno.test({
  name: "the webhook checks, pins and names images that Pods only mount as image volumes",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    await using world = await startWorld();
    const { cluster, registry, gpg } = world;
    const signer = await world.signer();
    const reg = registry.host;
    const app = `${reg}/e2e/app:1`;
    const appDigest = await gpg.pushImage(app, { signBy: signer.fingerprint });
    const data = `${reg}/e2e/data:1`;
    const dataDigest = await gpg.pushImage(data, { signBy: signer.fingerprint, content: "data" });
    const unsigned = `${reg}/e2e/unsigned:1`;
    await gpg.pushImage(unsigned, { content: "unsigned" });

    await world.namespaces("dev", "later");
    // "later" is exempt at first, so a Pod with unpinned images can be stored there.
    await kubectlOk(cluster, ["label", "namespace", "later", `${EXEMPT_LABEL}=exempt`]);
    await world.keySecret("signer", signer.publicKeyArmored);
    await world.clusterPolicy([{
      name: `${reg}/e2e/*`,
      policy: { simple: { requirements: [{ type: "signedBy", keySecret: "signer" }] } },
    }]);
    const webhook = await world.startWebhook({ probe: { namespace: "dev", image: unsigned } });

    const create = (manifest: string) =>
      cluster.kubectl(["create", "-f", "-"], { stdin: manifest });
    const jsonpath = (resource: string, namespace: string, path: string) =>
      kubectlOk(cluster, ["get", resource, "-n", namespace, "-o", `jsonpath={${path}}`]);
    const volumeDenial = (field: string) =>
      `policy denied the request: A signature was required, but no signature exists (image volume "data" at ${field}, image "${unsigned}")`;

    await t.step("a Pod whose unsigned image is only in an image volume is denied", async () => {
      const r = await create(podManifest("mounts-unsigned", "dev", {
        containers: [app],
        volumes: [unsigned],
      }));
      assert.notEqual(r.code, 0, "must be denied");
      assert.ok(r.stderr.includes(volumeDenial("spec.volumes[0].image.reference")), r.stderr);
      assert.doesNotMatch(r.stderr, /container "app"/, "the signed container is not blamed");
    });

    await t.step("the denial names the image volume in the Event and the log", async () => {
      const line = volumeDenial("spec.volumes[0].image.reference");
      await eventually("the denial Event", async () => {
        const events = await kubectlOk(cluster, [
          "get",
          "events.events.k8s.io",
          "-n",
          "dev",
          "-o",
          "json",
        ]);
        return JSON.parse(events).items.some((
          e: { reason?: string; note?: string; regarding?: { name?: string } },
        ) =>
          e.reason === "ImagePolicyDenied" && e.regarding?.name === "mounts-unsigned" &&
          e.note === line
        );
      });
      const review = (await webhook.logLines()).find((l) =>
        l.msg === "review" && l.name === "mounts-unsigned" && l.decision === "deny"
      );
      assert.ok(review, "a review line for the denial");
      assert.deepEqual(review.reasons, [line]);
    });

    await t.step(
      "a Deployment whose unsigned image is only in an image volume is denied",
      async () => {
        const r = await create(deploymentManifest("mounts-unsigned", "dev", {
          containers: [app],
          volumes: [unsigned],
        }));
        assert.notEqual(r.code, 0, "must be denied");
        assert.ok(
          r.stderr.includes(volumeDenial("spec.template.spec.volumes[0].image.reference")),
          r.stderr,
        );
      },
    );

    await t.step("a signed image volume is admitted and pinned at the volume's path", async () => {
      const pod = await create(podManifest("mounts-signed", "dev", {
        containers: [app],
        volumes: [data],
      }));
      assert.equal(pod.code, 0, pod.stderr);
      assert.equal(
        await jsonpath("pod/mounts-signed", "dev", ".spec.volumes[0].image.reference"),
        `${reg}/e2e/data@${dataDigest}`,
      );
      assert.equal(
        await jsonpath("pod/mounts-signed", "dev", ".spec.containers[0].image"),
        `${reg}/e2e/app@${appDigest}`,
      );
      const deployment = await create(deploymentManifest("mounts-signed", "dev", {
        containers: [app],
        volumes: [data],
      }));
      assert.equal(deployment.code, 0, deployment.stderr);
      assert.equal(
        await jsonpath(
          "deployment/mounts-signed",
          "dev",
          ".spec.template.spec.volumes[0].image.reference",
        ),
        `${reg}/e2e/data@${dataDigest}`,
      );
    });

    await t.step("a Pod stored with an unpinned image volume can still be updated", async () => {
      const stored = await create(podManifest("stored", "later", {
        containers: [app],
        volumes: [data],
      }));
      assert.equal(stored.code, 0, stored.stderr);
      await kubectlOk(cluster, ["label", "namespace", "later", `${EXEMPT_LABEL}-`]);
      await eventually("the webhook to check the namespace", async () => {
        const r = await dryRunPod(cluster, "probe", "later", unsigned);
        return r.code !== 0 && r.stderr.includes(WEBHOOK_NAME);
      });
      // The API server refuses any change to a Pod's volumes: the webhook must not pin it now.
      await kubectlOk(cluster, ["label", "pod", "stored", "-n", "later", "touched=yes"]);
      assert.equal(
        await jsonpath("pod/stored", "later", ".spec.volumes[0].image.reference"),
        data,
      );
      assert.equal(
        await jsonpath("pod/stored", "later", ".spec.containers[0].image"),
        `${reg}/e2e/app@${appDigest}`,
      );
    });
  },
});
