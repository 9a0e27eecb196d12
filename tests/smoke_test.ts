/**
 * The end-to-end smoke test of the real environment: kube-apiserver with etcd and the CRDs of
 * Tekton, OpenShift and toolkit; a Namespace and a Tekton Pipeline created through
 * `@kubernetes/client-node`; an image pushed with `skopeo copy --sign-by` into the registry,
 * its signature in the lookaside store, and its manifest digest read back.
 */
import assert from "node:assert/strict";
import * as k8s from "@kubernetes/client-node";
import { e2eSkipReason, startCluster, startGpg, startRegistry } from "./env/mod.ts";

const MANIFEST_ACCEPT = [
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
].join(", ");

Deno.test({
  name: "the real environment runs a cluster with CRDs, a registry, gpg and skopeo",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    await using cluster = await startCluster({ crds: ["tekton", "openshift", "toolkit"] });
    await using registry = await startRegistry();
    await using gpg = await startGpg();

    const kc = new k8s.KubeConfig();
    kc.loadFromFile(cluster.kubeconfigPath);

    await t.step("creates a namespace and a Tekton Pipeline with the client", async () => {
      const core = kc.makeApiClient(k8s.CoreV1Api);
      await core.createNamespace({ body: { metadata: { name: "smoke" } } });
      const custom = kc.makeApiClient(k8s.CustomObjectsApi);
      await custom.createNamespacedCustomObject({
        group: "tekton.dev",
        version: "v1",
        namespace: "smoke",
        plural: "pipelines",
        body: {
          apiVersion: "tekton.dev/v1",
          kind: "Pipeline",
          metadata: { name: "build" },
          spec: {
            tasks: [{
              name: "hello",
              taskSpec: { steps: [{ name: "echo", image: "busybox", script: "echo hi" }] },
            }],
          },
        },
      });
      const pipeline = await custom.getNamespacedCustomObject({
        group: "tekton.dev",
        version: "v1",
        namespace: "smoke",
        plural: "pipelines",
        name: "build",
      }) as { spec: { tasks: { name: string }[] } };
      assert.equal(pipeline.spec.tasks[0]?.name, "hello");
    });

    await t.step("serves OpenShift Routes and toolkit's policies", async () => {
      const routes = await cluster.kubectl(["get", "routes.route.openshift.io", "-A"]);
      assert.equal(routes.code, 0, routes.stderr);
      const policies = await cluster.kubectl(["get", "clusterimagepolicies.toolkit.dev"]);
      assert.equal(policies.code, 0, policies.stderr);
    });

    await t.step("pushes a signed image and reads back its manifest digest", async () => {
      const key = await gpg.generateKey({ type: "rsa" });
      const digest = await gpg.pushImage(`${registry.host}/smoke/app:1`, {
        signBy: key.fingerprint,
      });
      const response = await fetch(`${registry.url}/v2/smoke/app/manifests/1`, {
        method: "HEAD",
        headers: { accept: MANIFEST_ACCEPT },
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("docker-content-digest"), digest);
      const signature = `${gpg.sigstore}/smoke/app@sha256=${digest.slice(7)}/signature-1`;
      assert.ok((await Deno.stat(signature)).size > 0);
    });
  },
});
