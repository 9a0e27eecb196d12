/** `toolkit pull-secret` end to end against a real kube-apiserver. */
import assert from "node:assert/strict";
import { e2eSkipReason, startCluster } from "../env/mod.ts";
import {
  apply,
  copyKubeconfig,
  decodeData,
  getJson,
  kubectl,
  type Obj,
  tempDir,
  toolkit,
} from "./helpers.ts";
import { parse, stringify } from "yaml";
import { cfg, pullSecrets } from "../fixtures/pull_secrets.ts";

function pullNames(sa: Obj | undefined): string[] {
  return ((sa?.imagePullSecrets ?? []) as Array<{ name: string }>).map((s) => s.name);
}

Deno.test({
  name: "pull-secret end to end",
  ignore: e2eSkipReason(["kube-apiserver", "etcd", "kubectl"]) !== undefined,
  fn: async (t) => {
    await using cluster = await startCluster();
    await using dir = await tempDir();
    const kubeconfig = await copyKubeconfig(cluster, dir.path);
    const env = { KUBECONFIG: kubeconfig, HOME: dir.path };
    await apply(cluster, ...pullSecrets("default"));
    for (const ns of ["dev", "dev2", "dev3", "dev4"]) {
      await kubectl(cluster, ["create", "namespace", ns]);
    }

    await t.step(
      "copies pull secrets by type and icr-io name, renamed, and adds them to the SA",
      async () => {
        const r = await toolkit(["pull-secret", "dev"], env);
        assert.equal(r.status, 0, r.err);
        assert.match(r.err, /Setting up pull secrets in dev/);
        for (const name of ["all-icr-io", "us-icr-io", "de-icr-io", "regcred"]) {
          const s = await getJson(cluster, ["secret", name, "-n", "dev"]);
          assert.ok(s, name);
          assert.deepEqual(s?.metadata.labels, { team: "a" });
        }
        assert.equal(
          (await getJson(cluster, ["secret", "regcred", "-n", "dev"]))?.type,
          "kubernetes.io/dockercfg",
        );
        assert.equal(await getJson(cluster, ["secret", "opaque-thing", "-n", "dev"]), undefined);
        assert.equal(
          await getJson(cluster, ["secret", "default-us-icr-io", "-n", "dev"]),
          undefined,
        );
        const sa = await getJson(cluster, ["serviceaccount", "default", "-n", "dev"]);
        assert.deepEqual(pullNames(sa).sort(), ["all-icr-io", "de-icr-io", "regcred", "us-icr-io"]);
        // The default service account may or may not exist yet (the controller makes it).
        assert.match(r.err, /Pull secrets in dev: (5 created|4 created, 1 updated)\n/);
      },
    );

    await t.step("a second run changes nothing and never adds a pull secret twice", async () => {
      const r = await toolkit(["pull-secret", "dev"], env);
      assert.equal(r.status, 0, r.err);
      assert.match(r.err, /Pull secrets in dev: nothing changed \(1 unchanged, 4 skipped\)/);
      const sa = await getJson(cluster, ["serviceaccount", "default", "-n", "dev"]);
      assert.deepEqual(pullNames(sa).sort(), ["all-icr-io", "de-icr-io", "regcred", "us-icr-io"]);
    });

    await t.step("a pull secret that exists in the target is left alone", async () => {
      await apply(cluster, {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "us-icr-io", namespace: "dev2" },
        type: "kubernetes.io/dockerconfigjson",
        data: { ".dockerconfigjson": cfg("mine.example.com") },
      });
      const r = await toolkit(["pull-secret", "dev2", "--verbose"], env);
      assert.equal(r.status, 0, r.err);
      assert.match(r.err, /Secret "dev2\/us-icr-io" skipped/);
      const s = await getJson(cluster, ["secret", "us-icr-io", "-n", "dev2"]);
      assert.match(decodeData(s?.data)[".dockerconfigjson"]!, /mine\.example\.com/);
      assert.ok(
        pullNames(await getJson(cluster, ["serviceaccount", "default", "-n", "dev2"])).includes(
          "us-icr-io",
        ),
      );
    });

    await t.step("without a namespace argument the context's namespace is the target", async () => {
      const config = parse(await Deno.readTextFile(kubeconfig));
      config.contexts[0].context.namespace = "dev3";
      const path = `${dir.path}/dev3-kubeconfig`;
      await Deno.writeTextFile(path, stringify(config));
      const r = await toolkit(["pull-secret"], { KUBECONFIG: path });
      assert.equal(r.status, 0, r.err);
      assert.equal(
        pullNames(await getJson(cluster, ["serviceaccount", "default", "-n", "dev3"])).length,
        4,
      );
    });

    await t.step("-t, -z, --dev and --verbose", async () => {
      await apply(cluster, ...pullSecrets("registries"));
      const r = await toolkit([
        "pull-secret",
        "dev4",
        "-t",
        "registries",
        "-z",
        "builder",
        "--dev",
        "--verbose",
      ], env);
      assert.equal(r.status, 0, r.err);
      assert.match(r.err, /Reading the pull secrets of namespace registries/);
      assert.match(r.err, /Adding the pull secrets to service account builder/);
      assert.match(r.err, /ServiceAccount "dev4\/builder" created/);
      assert.match(r.err, /Namespace "dev4" updated/);
      assert.equal(
        pullNames(await getJson(cluster, ["serviceaccount", "builder", "-n", "dev4"])).length,
        4,
      );
      const ns = await getJson(cluster, ["namespace", "dev4"]);
      assert.equal(ns?.metadata.labels?.["cloudnativetoolkit.dev/development"], "true");
      const again = await toolkit([
        "pull-secret",
        "dev4",
        "-t",
        "registries",
        "-z",
        "builder",
        "--dev",
      ], env);
      assert.match(again.err, /nothing changed/);
    });

    await t.step("bad input fails with a clear message", async () => {
      let r = await toolkit(["pull-secret", "nope"], env);
      assert.equal(r.status, 1);
      assert.match(r.err, /Cannot find namespace "nope": it does not exist/);
      r = await toolkit(["pull-secret", "dev", "-t", "missing"], env);
      assert.equal(r.status, 1);
      assert.match(r.err, /Cannot find template namespace "missing"/);
      r = await toolkit(["pull-secret", "dev"], { HOME: dir.path });
      assert.equal(r.status, 1);
      assert.match(r.err, /No usable kubeconfig context: no kubeconfig at/);
      const config = parse(await Deno.readTextFile(kubeconfig));
      delete config.contexts[0].context.namespace;
      const path = `${dir.path}/no-ns`;
      await Deno.writeTextFile(path, stringify(config));
      r = await toolkit(["pull-secret"], { KUBECONFIG: path });
      assert.equal(r.status, 2);
      assert.match(r.err, /Please give the namespace as the first argument/);
    });
  },
});
