/**
 * `toolkit dashboard` in-process, against the in-memory API server: the Developer Dashboard's URL
 * from the ConfigMap dashboard-config of its namespace (-n, default tools).
 */
import assert from "node:assert/strict";
import { fakeCli } from "../../tests/fakes/cli.ts";
import { CONFIG_MAPS } from "../../lib/kube/mod.ts";

Deno.test("dashboard --print prints the Dashboard's URL, and names what it looked for when there is none", async () => {
  await using cli = await fakeCli();
  const none = await cli.run(["dashboard", "--print"]);
  assert.equal(none.status, 1);
  assert.match(
    none.err,
    /Cannot find the Developer Dashboard in namespace "tools": no Route or Ingress/,
  );
  cli.kube.seed(CONFIG_MAPS, {
    metadata: { name: "dashboard-config", namespace: "tools" },
    data: { DASHBOARD_URL: "https://dash.example.com" },
  });
  const r = await cli.run(["dashboard", "--print"]);
  assert.equal(r.status, 0, r.err);
  assert.equal(r.out, "https://dash.example.com\n");
});
