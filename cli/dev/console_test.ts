/**
 * `toolkit console` in-process, against the in-memory API server: the console URL of an IBM Cloud
 * cluster from its ConfigMap, and what it says on a cluster without a console. The URL rules
 * are `console_url.ts`'s.
 */
import assert from "node:assert/strict";
import { fakeCli } from "../../tests/fakes/cli.ts";
import { CONFIG_MAPS } from "../../lib/kube/mod.ts";

Deno.test("console --print prints the IBM Cloud console of the cluster, and says when there is none", async () => {
  await using cli = await fakeCli();
  const none = await cli.run(["console", "--print"]);
  assert.equal(none.status, 1);
  assert.match(none.err, /Cannot find the console of this cluster: it is not OpenShift/);
  cli.kube.seed(CONFIG_MAPS, {
    metadata: { name: "ibmcloud-config", namespace: "tools" },
    data: { REGION: "us-south", CLUSTER_ID: "abc123" },
  });
  const r = await cli.run(["console", "--print"]);
  assert.equal(r.status, 0, r.err);
  assert.equal(
    r.out,
    "https://us-south.containers.cloud.ibm.com/kubeproxy/clusters/abc123/service/#/overview?namespace=default\n",
  );
});
