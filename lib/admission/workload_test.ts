import assert from "node:assert/strict";
import type { AdmissionRequest } from "./review.ts";
import { imageList, type WorkloadImages, workloadImages } from "./workload.ts";

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
  if (w.sites === undefined) throw new Error(w.reason);
  return w;
}

Deno.test("workloadImages() finds init, regular and ephemeral containers of a Pod in order", () => {
  const w = images(request("", "pods", { spec: podSpec }));
  assert.equal(w.kind, "Pod");
  assert.deepEqual(w.sites.map((c) => [c.pointer, c.field, c.name, c.image]), [
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
    assert.equal(w.sites[1]?.pointer, "/spec/template/spec/containers/0/image");
    assert.equal(w.sites.length, 3, `${kind} with replicas: 0 is still checked`);
  }
  const cron = images(request("batch", "cronjobs", {
    spec: { jobTemplate: { spec: { template: { spec: podSpec } } } },
  }));
  assert.equal(
    cron.sites[0]?.pointer,
    "/spec/jobTemplate/spec/template/spec/initContainers/0/image",
  );
  assert.equal(cron.sites[0]?.field, "spec.jobTemplate.spec.template.spec.initContainers[0]");
});

Deno.test("workloadImages() ignores ownerReferences", () => {
  const pod = {
    metadata: {
      ownerReferences: [{ kind: "ReplicaSet", name: "fake", uid: "1", apiVersion: "apps/v1" }],
    },
    spec: { containers: [{ name: "a", image: "evil.example.com/x" }] },
  };
  assert.equal(images(request("", "pods", pod)).sites.length, 1);
});

Deno.test("workloadImages() checks only ephemeral containers for the ephemeralcontainers subresource", () => {
  const w = images(request("", "pods", { spec: podSpec }, "ephemeralcontainers"));
  assert.deepEqual(w.sites.map((c) => c.pointer), ["/spec/ephemeralContainers/0/image"]);
});

Deno.test("workloadImages() skips other subresources and refuses unknown resources", () => {
  const scale = workloadImages(request("apps", "deployments", {}, "scale"));
  assert.equal(scale.sites, undefined);
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
  assert.deepEqual(images(request("apps", "deployments", {})).sites, []);
});

const withImageVolumes = {
  containers: [{ name: "app", image: "nginx:1.26" }],
  volumes: [
    { name: "data", image: { reference: "registry.example.com/data:1", pullPolicy: "Always" } },
    { name: "scratch", emptyDir: {} },
    { name: "later", image: { reference: "" } },
    { name: "models", image: { reference: "registry.example.com/models:2" } },
  ],
};

Deno.test("workloadImages() finds image volumes after the containers of a Pod", () => {
  const w = images(request("", "pods", { spec: withImageVolumes }));
  assert.deepEqual(w.sites.map((s) => [s.type, s.name, s.pointer, s.field, s.image, s.pinnable]), [
    ["container", "app", "/spec/containers/0/image", "spec.containers[0]", "nginx:1.26", true],
    [
      "image volume",
      "data",
      "/spec/volumes/0/image/reference",
      "spec.volumes[0].image.reference",
      "registry.example.com/data:1",
      true,
    ],
    [
      "image volume",
      "models",
      "/spec/volumes/3/image/reference",
      "spec.volumes[3].image.reference",
      "registry.example.com/models:2",
      true,
    ],
  ]);
});

Deno.test("workloadImages() finds image volumes in the pod template of every workload kind", () => {
  const template = { spec: { template: { spec: withImageVolumes } } };
  const cases: [string, string, unknown, string][] = [
    ["apps", "deployments", template, "/spec/template/spec"],
    ["extensions", "deployments", template, "/spec/template/spec"],
    ["apps", "replicasets", template, "/spec/template/spec"],
    ["apps", "statefulsets", template, "/spec/template/spec"],
    ["apps", "daemonsets", template, "/spec/template/spec"],
    ["batch", "jobs", template, "/spec/template/spec"],
    ["", "replicationcontrollers", template, "/spec/template/spec"],
    ["apps.openshift.io", "deploymentconfigs", template, "/spec/template/spec"],
    ["", "deploymentconfigs", template, "/spec/template/spec"],
    [
      "batch",
      "cronjobs",
      { spec: { jobTemplate: template } },
      "/spec/jobTemplate/spec/template/spec",
    ],
  ];
  for (const [group, resource, object, podSpecPointer] of cases) {
    for (const operation of ["CREATE", "UPDATE"] as const) {
      const w = images({ ...request(group, resource, object), operation });
      const volumes = w.sites.filter((s) => s.type === "image volume");
      assert.deepEqual(
        volumes.map((s) => [s.pointer, s.field, s.pinnable]),
        [
          [
            `${podSpecPointer}/volumes/0/image/reference`,
            `${podSpecPointer.slice(1).replaceAll("/", ".")}.volumes[0].image.reference`,
            true,
          ],
          [
            `${podSpecPointer}/volumes/3/image/reference`,
            `${podSpecPointer.slice(1).replaceAll("/", ".")}.volumes[3].image.reference`,
            true,
          ],
        ],
        `${group}/${resource} ${operation}`,
      );
    }
  }
});

Deno.test("workloadImages() does not let a Pod's image volumes be pinned on UPDATE", () => {
  const update = {
    ...request("", "pods", { spec: withImageVolumes }),
    operation: "UPDATE" as const,
  };
  const w = images(update);
  assert.deepEqual(w.sites.map((s) => [s.type, s.pinnable]), [
    ["container", true],
    ["image volume", false],
    ["image volume", false],
  ]);
});

Deno.test("workloadImages() leaves a Pod's image volumes out of the ephemeralcontainers subresource", () => {
  const spec = { ...withImageVolumes, ephemeralContainers: [{ name: "debug", image: "alpine" }] };
  const w = images(request("", "pods", { spec }, "ephemeralcontainers"));
  assert.deepEqual(w.sites.map((s) => s.pointer), ["/spec/ephemeralContainers/0/image"]);
});

Deno.test("imageList() includes image volumes, so a changed volume image is a changed object", () => {
  const before = images(request("", "pods", { spec: withImageVolumes }));
  const volumes = [{ name: "data", image: { reference: "registry.example.com/data:2" } }];
  const after = images(request("", "pods", { spec: { ...withImageVolumes, volumes } }));
  assert.deepEqual(imageList(before).slice(1), [
    "/spec/volumes/0/image/reference=registry.example.com/data:1",
    "/spec/volumes/3/image/reference=registry.example.com/models:2",
  ]);
  assert.notDeepEqual(imageList(before), imageList(after));
});
