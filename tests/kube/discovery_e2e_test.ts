/**
 * `lib/kube`'s API discovery against a real kube-apiserver: served group versions (a CRD with
 * several versions, one of them not served), resources, the newest served version from a
 * preference list, and OpenShift detection on a plain cluster.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, startCluster } from "../env/mod.ts";
import { connectCluster, pickServedVersion } from "../../lib/kube/mod.ts";

const ignore = e2eSkipReason(["kube-apiserver", "etcd", "kubectl"]) !== undefined;

function widgetCrd(versions: Array<{ name: string; served: boolean; storage: boolean }>) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.discovery.toolkit.test" },
    spec: {
      group: "discovery.toolkit.test",
      scope: "Namespaced",
      names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
      versions: versions.map((v) => ({
        ...v,
        schema: {
          openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        },
      })),
    },
  };
}

const PREFERENCE = ["v1", "v1beta1", "v1alpha1"];

Deno.test({
  name: "lib/kube discovery against a real API server",
  ignore,
  fn: async (t) => {
    await using cluster = await startCluster();
    const env = { KUBECONFIG: cluster.kubeconfigPath };
    const apply = async (object: unknown) => {
      const r = await cluster.kubectl(["apply", "-f", "-"], { stdin: JSON.stringify(object) });
      assert.equal(r.code, 0, r.stderr);
      const wait = await cluster.kubectl([
        "wait",
        "--for=condition=Established",
        "crd/widgets.discovery.toolkit.test",
      ]);
      assert.equal(wait.code, 0, wait.stderr);
    };

    await t.step("core and built-in groups are served; this is not OpenShift", async () => {
      using client = await connectCluster({ env });
      assert.deepEqual(await client.discovery.servedVersions(""), ["v1"]);
      assert.equal(await client.discovery.newestServedVersion("apps", PREFERENCE), "v1");
      assert.equal(await client.discovery.isOpenShift(), false);
      const core = await client.discovery.resources("", "v1");
      assert.ok(core?.some((r) => r.name === "configmaps" && r.kind === "ConfigMap"));
      assert.equal(await client.discovery.resources("discovery.toolkit.test", "v1"), undefined);
    });

    await t.step("a CRD's served versions, without the one it does not serve", async () => {
      await apply(widgetCrd([
        { name: "v1alpha1", served: true, storage: false },
        { name: "v1beta1", served: true, storage: true },
        { name: "v1", served: false, storage: false },
      ]));
      using client = await connectCluster({ env });
      const served = await client.discovery.servedVersions("discovery.toolkit.test");
      assert.deepEqual([...served].sort(), ["v1alpha1", "v1beta1"]);
      assert.equal(served[0], "v1beta1"); // the server's preferred version comes first
      assert.equal(
        await client.discovery.newestServedVersion("discovery.toolkit.test", PREFERENCE),
        "v1beta1",
      );
      assert.equal(pickServedVersion(served, ["v1alpha1"]), "v1alpha1");
      const resources = await client.discovery.resources("discovery.toolkit.test", "v1beta1");
      assert.deepEqual(
        resources?.filter((r) => r.name === "widgets").map((r) => [r.kind, r.namespaced]),
        [["Widget", true]],
      );
      assert.equal(
        await client.discovery.servesResource({
          group: "discovery.toolkit.test",
          version: "v1",
          plural: "widgets",
          kind: "Widget",
          namespaced: true,
        }),
        false,
      );
    });

    await t.step("a version served later is seen by a new client", async () => {
      await apply(widgetCrd([
        { name: "v1alpha1", served: true, storage: false },
        { name: "v1beta1", served: true, storage: false },
        { name: "v1", served: true, storage: true },
      ]));
      using client = await connectCluster({ env });
      let version: string | undefined;
      // Discovery follows the CRD a moment after it is established.
      for (let i = 0; i < 100 && version !== "v1"; i++) {
        using fresh = await connectCluster({ env });
        version = await fresh.discovery.newestServedVersion("discovery.toolkit.test", PREFERENCE);
        if (version !== "v1") await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(version, "v1");
      assert.equal(
        await client.discovery.newestServedVersion("discovery.toolkit.test", PREFERENCE),
        "v1",
      );
    });
  },
});
