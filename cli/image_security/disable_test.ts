/**
 * `toolkit image-security disable` in-process, against the in-memory API server: it switches
 * enforcement off (the webhook's objects deleted, policies, key Secrets and CRDs kept), and is a
 * no-op where nothing is installed; `--purge` deletes toolkit's PolicyReports and keeps the
 * PolicyReport CRDs unless toolkit alone installed them and nothing else reports in them.
 */
import assert from "node:assert/strict";
import { fakeCli } from "../../tests/fakes/cli.ts";
import type { FakeKubeApi } from "../../tests/fakes/kube_api.ts";
import {
  CUSTOM_RESOURCE_DEFINITIONS,
  type KubeObject,
  POLICY_REPORTS,
} from "../../lib/kube/mod.ts";
import { policyReportCrdManifests } from "../../lib/reports/mod.ts";

const ENABLE = [
  "image-security",
  "enable",
  "--webhook-url",
  "https://127.0.0.1:9/admit",
  "--no-verify-url",
];

Deno.test("disable deletes the webhook's objects and keeps the CRDs; with nothing installed it says so and succeeds", async () => {
  await using cli = await fakeCli();
  const nothing = await cli.run(["image-security", "disable"]);
  assert.equal(nothing.status, 0, nothing.err);
  assert.match(
    nothing.err,
    /Image signature enforcement is disabled; policies, key Secrets and CRDs are kept/,
  );

  assert.equal((await cli.run(ENABLE)).status, 0);
  const disabled = await cli.run(["image-security", "disable", "-o", "json"]);
  assert.equal(disabled.status, 0, disabled.err);
  const data = JSON.parse(disabled.out);
  assert.equal(data.namespace, "toolkit-system");
  const outcome = (kind: string) =>
    data.results.find((r: { kind: string }) => r.kind === kind)?.outcome;
  assert.equal(outcome("MutatingWebhookConfiguration"), "deleted");
  assert.equal(outcome("Deployment"), "deleted");
  const status = await cli.run(["image-security", "status"]);
  assert.match(status.out, /^Enforcement: not enabled \(namespace toolkit-system\)$/m);
  assert.match(
    status.out,
    /present {2}CustomResourceDefinition "clusterimagepolicies\.toolkit\.dev"/,
  );
});

/** A PolicyReport as the report controller writes it (its name and labels), or another tool's. */
function report(namespace: string, name = "toolkit-image-policy", toolkit = true): KubeObject {
  return {
    apiVersion: "wgpolicyk8s.io/v1alpha2",
    kind: "PolicyReport",
    metadata: {
      name,
      namespace,
      ...(toolkit
        ? {
          labels: {
            "app.kubernetes.io/managed-by": "toolkit",
            "app.kubernetes.io/part-of": "toolkit",
          },
        }
        : {}),
    },
    results: [],
  };
}

const REPORT_CRDS = ["clusterpolicyreports.wgpolicyk8s.io", "policyreports.wgpolicyk8s.io"];

Deno.test("disable --purge deletes toolkit's PolicyReports, and their CRDs only when toolkit alone installed them and nothing else reports", async (t) => {
  const purge = ["image-security", "disable", "--purge", "-o", "json"];
  const crds = (cli: { kube: FakeKubeApi }) =>
    REPORT_CRDS.filter((name) => cli.kube.get(CUSTOM_RESOURCE_DEFINITIONS, undefined, name));

  await t.step("toolkit installed the CRDs and wrote every report: all go", async () => {
    await using cli = await fakeCli();
    assert.equal((await cli.run(ENABLE)).status, 0);
    assert.deepEqual(crds(cli), REPORT_CRDS);
    cli.kube.seed(POLICY_REPORTS, report("a"), report("b"));
    const run = await cli.run(purge);
    assert.equal(run.status, 0, run.err);
    const outcomes = JSON.parse(run.out).results
      .filter((r: { kind: string; name: string }) =>
        r.kind === "PolicyReport" || REPORT_CRDS.includes(r.name)
      )
      .map((r: { kind: string; namespace?: string; name: string; outcome: string }) =>
        `${r.kind} ${r.namespace ?? ""}/${r.name} ${r.outcome}`
      );
    assert.deepEqual(outcomes, [
      "PolicyReport a/toolkit-image-policy deleted",
      "PolicyReport b/toolkit-image-policy deleted",
      "CustomResourceDefinition /clusterpolicyreports.wgpolicyk8s.io deleted",
      "CustomResourceDefinition /policyreports.wgpolicyk8s.io deleted",
    ]);
    assert.deepEqual(crds(cli), []);
    assert.match(run.err, /removed, with its policies, CRDs, namespace and PolicyReports/);
  });

  await t.step(
    "another tool's reports are in them: toolkit's go, theirs and the CRDs stay",
    async () => {
      await using cli = await fakeCli();
      assert.equal((await cli.run(ENABLE)).status, 0);
      cli.kube.seed(
        POLICY_REPORTS,
        report("a"),
        report("a", "trivy-vulns", false),
        report("b", "toolkit-image-policy", false), // the name, not toolkit's labels: not toolkit's
      );
      const run = await cli.run(purge);
      assert.equal(run.status, 0, run.err);
      assert.equal(cli.kube.get(POLICY_REPORTS, "a", "toolkit-image-policy"), undefined);
      assert.ok(cli.kube.get(POLICY_REPORTS, "a", "trivy-vulns"));
      assert.ok(cli.kube.get(POLICY_REPORTS, "b", "toolkit-image-policy"));
      assert.deepEqual(crds(cli), REPORT_CRDS);
      assert.match(
        run.err,
        /The PolicyReport CRDs \(wgpolicyk8s\.io\) are kept: they hold 2 reports toolkit did not write/,
      );
    },
  );

  await t.step("someone else installed the CRDs: they stay, toolkit's reports go", async () => {
    await using cli = await fakeCli();
    for (const crd of policyReportCrdManifests()) {
      crd.metadata.managedFields = [{ manager: "helm", operation: "Update" }];
      cli.kube.seed(CUSTOM_RESOURCE_DEFINITIONS, crd);
    }
    assert.equal((await cli.run(ENABLE)).status, 0);
    cli.kube.seed(POLICY_REPORTS, report("a"));
    const run = await cli.run(purge);
    assert.equal(run.status, 0, run.err);
    assert.equal(cli.kube.get(POLICY_REPORTS, "a", "toolkit-image-policy"), undefined);
    assert.deepEqual(crds(cli), REPORT_CRDS);
    assert.match(run.err, /are kept: toolkit did not install them alone/);
  });
});
