/**
 * `toolkit endpoints` in-process, against the in-memory API server: the Ingress URLs of a
 * namespace, as a list or as data. The menu and the browser: `tests/cli_dev/endpoints_test.ts`.
 */
import assert from "node:assert/strict";
import { fakeCli } from "../../tests/fakes/cli.ts";
import { INGRESSES, NAMESPACES } from "../../lib/kube/mod.ts";

Deno.test("endpoints --print lists a namespace's Ingress URLs by app, -o json as data; a missing namespace fails", async () => {
  await using cli = await fakeCli();
  const missing = await cli.run(["endpoints", "--print", "-n", "dev"]);
  assert.equal(missing.status, 1);
  assert.match(missing.err, /Cannot find namespace "dev": it does not exist in the cluster/);
  cli.kube.seed(NAMESPACES, { metadata: { name: "dev" } });
  cli.kube.seed(INGRESSES, {
    metadata: { name: "app", namespace: "dev", labels: { app: "myapp" } },
    spec: { tls: [{ hosts: ["app.example.com"] }], rules: [{ host: "app.example.com" }] },
  });
  const list = await cli.run(["endpoints", "--print", "-n", "dev"]);
  assert.equal(list.status, 0, list.err);
  assert.equal(list.out, "  myapp - https://app.example.com\n");
  assert.match(list.err, /Endpoints in namespace 'dev':/);
  const data = await cli.run(["endpoints", "-n", "dev", "-o", "json"]);
  assert.deepEqual(JSON.parse(data.out), [
    { name: "myapp", kind: "Ingress", url: "https://app.example.com" },
  ]);
});
