import assert from "node:assert/strict";
import { FakeKubeApi } from "../../tests/fakes/kube_api.ts";
import { fakeKubeClient } from "../../tests/fakes/kube_transport.ts";
import { CUSTOM_RESOURCE_DEFINITIONS } from "../kube/mod.ts";
import { defaultInstallOptions, prepareInstall } from "../install/mod.ts";
import {
  isForeignCrd,
  POLICY_REPORT_CRD_NAMES,
  policyReportCrdManifests,
  policyReportCrdsForeign,
} from "./crds.ts";

Deno.test("the PolicyReport CRDs are Kyverno's v1alpha2 PolicyReport and ClusterPolicyReport", () => {
  const crds = policyReportCrdManifests() as Array<{
    metadata: { name: string };
    spec: { group: string; names: { kind: string }; versions: Array<{ name: string }> };
  }>;
  assert.deepEqual(crds.map((c) => c.metadata.name), [...POLICY_REPORT_CRD_NAMES]);
  assert.deepEqual(crds.map((c) => c.spec.names.kind), ["ClusterPolicyReport", "PolicyReport"]);
  for (const crd of crds) {
    assert.equal(crd.spec.group, "wgpolicyk8s.io");
    assert.ok(crd.spec.versions.some((v) => v.name === "v1alpha2"));
  }
});

Deno.test("a PolicyReport CRD is someone else's unless a toolkit apply wrote it", () => {
  assert.equal(isForeignCrd(undefined), false);
  const crd = { metadata: { name: "policyreports.wgpolicyk8s.io" } };
  assert.equal(isForeignCrd(crd), true);
  const kyverno = { metadata: { ...crd.metadata, managedFields: [{ manager: "kyverno" }] } };
  assert.equal(isForeignCrd(kyverno), true);
  const ours = {
    metadata: { ...crd.metadata, managedFields: [{ manager: "toolkit", operation: "Apply" }] },
  };
  assert.equal(isForeignCrd(ours), false);
});

Deno.test("enable brings the PolicyReport CRDs unless the cluster has them from elsewhere", async () => {
  const names = async (api: FakeKubeApi) => {
    const client = fakeKubeClient((r) => api.transport().open(r));
    const { objects } = await prepareInstall(client, defaultInstallOptions(), {
      now: new Date(Date.UTC(2026, 0, 1)),
    });
    return objects.filter((o) => o.kind === "CustomResourceDefinition").map((o) => o.metadata.name);
  };
  const empty = new FakeKubeApi();
  assert.deepEqual((await names(empty)).filter((n) => n.endsWith("wgpolicyk8s.io")), [
    ...POLICY_REPORT_CRD_NAMES,
  ]);
  assert.equal(
    await policyReportCrdsForeign(fakeKubeClient((r) => empty.transport().open(r))),
    false,
  );
  const withKyverno = new FakeKubeApi();
  withKyverno.seed(CUSTOM_RESOURCE_DEFINITIONS, ...policyReportCrdManifests());
  assert.deepEqual((await names(withKyverno)).filter((n) => n.endsWith("wgpolicyk8s.io")), []);
  // Toolkit's own CRDs are still there.
  assert.ok((await names(withKyverno)).includes("clusterimagepolicies.toolkit.dev"));
});
