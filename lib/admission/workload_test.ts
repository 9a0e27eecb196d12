import assert from "node:assert/strict";
import type { AdmissionRequest } from "./review.ts";
import { type WorkloadImages, workloadImages } from "./workload.ts";

function request(
  group: string,
  resource: string,
  object: unknown,
  subResource = "",
): AdmissionRequest {
  return {
    uid: "u",
    kind: { group, version: "v1", kind: "X" },
    resource: { group, version: "v1", resource },
    subResource,
    name: "x",
    namespace: "dev",
    operation: "CREATE",
    object,
    oldObject: undefined,
    dryRun: false,
  };
}

const podSpec = {
  serviceAccountName: "builder",
  imagePullSecrets: [{ name: "pull-a" }, { name: "pull-b" }, { name: "pull-a" }],
  initContainers: [{ name: "init", image: "busybox" }],
  containers: [{ name: "app", image: "nginx:1.26" }, { name: "blank", image: "" }],
  ephemeralContainers: [{ name: "debug", image: "alpine" }],
};

function images(r: AdmissionRequest): WorkloadImages {
  const w = workloadImages(r);
  if (w.containers === undefined) throw new Error(w.reason);
  return w;
}

Deno.test("workloadImages() finds init, regular and ephemeral containers of a Pod in order", () => {
  const w = images(request("", "pods", { spec: podSpec }));
  assert.equal(w.kind, "Pod");
  assert.deepEqual(w.containers.map((c) => [c.pointer, c.field, c.container, c.image]), [
    ["/spec/initContainers/0/image", "spec.initContainers[0]", "init", "busybox"],
    ["/spec/containers/0/image", "spec.containers[0]", "app", "nginx:1.26"],
    ["/spec/ephemeralContainers/0/image", "spec.ephemeralContainers[0]", "debug", "alpine"],
  ]);
  assert.deepEqual(w.imagePullSecrets, ["pull-a", "pull-b"]);
  assert.equal(w.serviceAccountName, "builder");
});

Deno.test("workloadImages() reads the pod template of every controller kind", () => {
  const template = { spec: { replicas: 0, template: { spec: podSpec } } };
  const cases: [string, string, string][] = [
    ["apps", "deployments", "Deployment"],
    ["apps", "replicasets", "ReplicaSet"],
    ["apps", "statefulsets", "StatefulSet"],
    ["apps", "daemonsets", "DaemonSet"],
    ["batch", "jobs", "Job"],
    ["", "replicationcontrollers", "ReplicationController"],
    ["apps.openshift.io", "deploymentconfigs", "DeploymentConfig"],
  ];
  for (const [group, resource, kind] of cases) {
    const w = images(request(group, resource, template));
    assert.equal(w.kind, kind);
    assert.equal(w.containers[1]?.pointer, "/spec/template/spec/containers/0/image");
    assert.equal(w.containers.length, 3, `${kind} with replicas: 0 is still checked`);
  }
  const cron = images(request("batch", "cronjobs", {
    spec: { jobTemplate: { spec: { template: { spec: podSpec } } } },
  }));
  assert.equal(
    cron.containers[0]?.pointer,
    "/spec/jobTemplate/spec/template/spec/initContainers/0/image",
  );
  assert.equal(cron.containers[0]?.field, "spec.jobTemplate.spec.template.spec.initContainers[0]");
});

Deno.test("workloadImages() ignores ownerReferences", () => {
  const pod = {
    metadata: {
      ownerReferences: [{ kind: "ReplicaSet", name: "fake", uid: "1", apiVersion: "apps/v1" }],
    },
    spec: { containers: [{ name: "a", image: "evil.example.com/x" }] },
  };
  assert.equal(images(request("", "pods", pod)).containers.length, 1);
});

Deno.test("workloadImages() checks only ephemeral containers for the ephemeralcontainers subresource", () => {
  const w = images(request("", "pods", { spec: podSpec }, "ephemeralcontainers"));
  assert.deepEqual(w.containers.map((c) => c.pointer), ["/spec/ephemeralContainers/0/image"]);
});

Deno.test("workloadImages() skips other subresources and refuses unknown resources", () => {
  const scale = workloadImages(request("apps", "deployments", {}, "scale"));
  assert.equal(scale.containers, undefined);
  assert.equal("skip" in scale && scale.skip, "subresource");
  const other = workloadImages(request("example.com", "widgets", {}));
  assert.equal("skip" in other && other.skip, "unsupported");
  assert.match(
    "reason" in other ? other.reason : "",
    /"example.com\/v1\/widgets" is not supported/,
  );
});

Deno.test("workloadImages() defaults the service account and tolerates a missing spec", () => {
  const w = images(request("", "pods", { spec: { containers: [{ name: "a", image: "x" }] } }));
  assert.equal(w.serviceAccountName, "default");
  assert.deepEqual(images(request("apps", "deployments", {})).containers, []);
});
