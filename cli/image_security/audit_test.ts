/**
 * `image-security audit` in-process: the cluster is the in-memory API server of
 * `tests/fakes/kube_api.ts` (policies, key Secret, workloads), the images are in the real
 * distribution registry, signed by the real skopeo and gpg.
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../../tests/env/mod.ts";
import { fakeCli } from "../../tests/fakes/cli.ts";
import { startSignedCluster } from "../../tests/fakes/signed_cluster.ts";
import { DEPLOYMENTS, NAMESPACES, PODS } from "../../lib/kube/mod.ts";
import type { AuditedImage } from "../../lib/audit/mod.ts";

Deno.test({
  name: "image-security audit reports what the webhook would deny, by cluster policies or files",
  ignore: e2eSkipReason(["docker-registry", "gpg", "skopeo"]) !== undefined,
  fn: async () => {
    await using fixture = await startSignedCluster({
      namespaces: [{ name: "team" }, { name: "other" }, { name: "toolkit-system" }],
      contexts: [{ name: "c", namespace: "team" }],
    });
    const { cli, signed, unsigned, flags, clock } = fixture;
    const kube = cli.kube;
    kube.seed(DEPLOYMENTS, {
      metadata: { name: "web", namespace: "team" },
      spec: { template: { spec: { containers: [{ name: "app", image: signed }] } } },
    });
    kube.seed(PODS, {
      metadata: { name: "solo", namespace: "team" },
      spec: {
        initContainers: [{ name: "setup", image: signed }],
        containers: [{ name: "main", image: unsigned }],
      },
    });
    kube.seed(PODS, {
      metadata: { name: "elsewhere", namespace: "other" },
      spec: { containers: [{ name: "main", image: unsigned }] },
    });

    // Signatures are checked at the context's time (the fixture's clock): now, not 2026-01-01.
    const audit = (args: string[]) =>
      cli.run(["image-security", "audit", ...args, ...flags], { context: { clock } });

    // The context's namespace, as a table; something would be denied: exit 1.
    const table = await audit([]);
    assert.equal(table.status, 1, table.err);
    const lines = table.out.trimEnd().split("\n");
    assert.match(lines[0]!, /^NAMESPACE\s+WORKLOAD\s+CONTAINER\s+IMAGE\s+VERDICT\s+REASON$/);
    assert.equal(lines.length, 4);
    assert.match(lines[1]!, new RegExp(`^team\\s+Deployment/web\\s+app\\s+${signed}\\s+pass$`));
    assert.match(lines[2]!, new RegExp(`^team\\s+Pod/solo\\s+init:setup\\s+${signed}\\s+pass$`));
    assert.match(
      lines[3]!,
      new RegExp(`^team\\s+Pod/solo\\s+main\\s+${unsigned}\\s+fail\\s+A signature was required`),
    );
    assert.match(table.err, /3 images of 2 workloads in namespace "team": 1 would be denied/);

    // Every namespace, as data.
    const all = await audit(["-A", "-o", "json"]);
    assert.equal(all.status, 1, all.err);
    const data = JSON.parse(all.out) as { denied: number; images: AuditedImage[] };
    assert.equal(data.denied, 2);
    assert.deepEqual(
      data.images.map((i) => `${i.namespace}/${i.workload.name}/${i.container} ${i.verdict}`),
      [
        "team/web/app pass",
        "other/elsewhere/main fail",
        "team/solo/init:setup pass",
        "team/solo/main fail",
      ],
    );
    const elsewhere = data.images.find((i) => i.namespace === "other")!;
    assert.equal(elsewhere.verdict, "fail");
    assert.equal(elsewhere.policy, "ClusterImagePolicy/default");
    const web = data.images.find((i) => i.workload.name === "web")!;
    assert.match(web.digest ?? "", /^sha256:/);

    // A long scan tells its progress on stderr (here every call of the clock takes 0.6 s).
    let time = Date.now() + 60_000;
    const slow = { now: () => (time += 600), sleep: () => Promise.resolve() };
    const progress = await cli.run(["image-security", "audit", "-A", ...flags], {
      context: { clock: slow },
    });
    assert.equal(progress.status, 1, progress.err);
    assert.match(progress.err, /^audited [12] of 3 workloads$/m);
    assert.match(progress.err, /^audited 3 of 3 workloads$/m);
    assert.doesNotMatch(table.err, /audited/, "a short scan says nothing of its progress");
    assert.doesNotMatch((await audit(["-A", "--quiet"])).err, /audited|would be denied/);

    // A namespace labelled warn: the denial is a warning, nothing would be denied.
    kube.seed(NAMESPACES, {
      metadata: { name: "other", labels: { "toolkit.dev/enforcement": "warn" } },
    });
    const warned = await audit(["-n", "other", "-o", "yaml"]);
    assert.equal(warned.status, 0, warned.err);
    assert.match(warned.out, /verdict: warn/);

    // Before applying a policy file that accepts the team's images: nothing would be denied.
    await Deno.writeTextFile(
      `${cli.dir}/open.yaml`,
      `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: open }
spec:
  repositories:
    - name: "${fixture.registryHost}/*"
      policy: {}
`,
    );
    const open = await audit(["--policy", "open.yaml"]);
    assert.equal(open.status, 0, open.err);
    assert.doesNotMatch(open.out, /fail/);

    // Usage errors: exit 2.
    assert.equal((await audit(["-n", "team", "-A"])).status, 2);
    await Deno.writeTextFile(`${cli.dir}/bad.yaml`, "kind: ClusterImagePolicy\nspec: 3\n");
    const bad = await audit(["--policy", "bad.yaml"]);
    assert.equal(bad.status, 2, bad.err);
  },
});

Deno.test("image-security audit says so when the cluster has no policies to judge by", async () => {
  await using cli = await fakeCli();
  cli.kube.seed(NAMESPACES, { metadata: { name: "default" } });
  const run = await cli.run(["image-security", "audit"]);
  assert.equal(run.status, 1);
  assert.match(run.err, /serves no ClusterImagePolicies of toolkit\.dev: .*--policy FILE/);
  assert.equal(run.out, "");
});
