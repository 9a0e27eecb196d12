/**
 * The end-to-end smoke test of the real environment: kube-apiserver with etcd and the CRDs of
 * Tekton, OpenShift and toolkit; a Namespace and a Tekton Pipeline created through
 * `@kubernetes/client-node` (in a process of its own, see env/client_node_probe.ts); an image pushed with `skopeo copy --sign-by` into the registry,
 * its signature in the lookaside store, and its manifest digest read back.
 */
import assert from "node:assert/strict";
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

    await t.step("creates a namespace and a Tekton Pipeline with the client", async () => {
      const probe = new URL("./env/client_node_probe.ts", import.meta.url).pathname;
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", probe, cluster.kubeconfigPath, "smoke"],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      const pipeline = JSON.parse(new TextDecoder().decode(out.stdout)) as {
        spec: { tasks: { name: string }[] };
      };
      assert.equal(pipeline.spec.tasks[0]?.name, "hello");
      const ns = await cluster.kubectl(["get", "namespace", "smoke", "-o", "name"]);
      assert.equal(ns.stdout.trim(), "namespace/smoke");
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
