import assert from "node:assert/strict";
import { copyForNamespace } from "./copy.ts";
import { namespaceNameProblem, resourcePath, ROUTES, SECRETS } from "./resources.ts";
import { KubeApiError } from "./errors.ts";

Deno.test("copyForNamespace() drops server-assigned metadata and instance labels", () => {
  const copy = copyForNamespace(SECRETS, {
    metadata: {
      name: "sonarqube-access",
      namespace: "tools",
      uid: "u",
      resourceVersion: "12",
      creationTimestamp: "2024-01-01T00:00:00Z",
      managedFields: [{}],
      ownerReferences: [{}],
      generation: 3,
      selfLink: "/x",
      finalizers: ["f"],
      labels: {
        group: "catalyst-tools",
        "app.kubernetes.io/instance": "tools",
        "argocd.argoproj.io/instance": "tools",
      },
      annotations: {
        description: "x",
        "kubectl.kubernetes.io/last-applied-configuration": "{}",
      },
    },
    type: "Opaque",
    data: { SONARQUBE_USER: "YWRtaW4=" },
    status: {},
  }, "dev");
  assert.deepEqual(copy, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: "sonarqube-access",
      namespace: "dev",
      labels: { group: "catalyst-tools" },
      annotations: { description: "x" },
    },
    type: "Opaque",
    data: { SONARQUBE_USER: "YWRtaW4=" },
  });
});

Deno.test("copyForNamespace() can rename and leaves the original untouched", () => {
  const original = { metadata: { name: "default-us-icr-io" }, data: { k: "v" } };
  const copy = copyForNamespace(SECRETS, original, "dev", "us-icr-io");
  assert.equal(copy.metadata.name, "us-icr-io");
  (copy.data as Record<string, string>).k = "changed";
  assert.equal(original.data.k, "v");
});

Deno.test("resourcePath() builds core, group and cluster-scoped paths", () => {
  assert.equal(resourcePath(SECRETS, "dev", "a"), "/api/v1/namespaces/dev/secrets/a");
  assert.equal(resourcePath(ROUTES, "dev"), "/apis/route.openshift.io/v1/namespaces/dev/routes");
});

Deno.test("namespaceNameProblem() rejects names Kubernetes rejects", () => {
  assert.equal(namespaceNameProblem("dev-1"), undefined);
  assert.match(namespaceNameProblem("Dev") ?? "", /lower case/);
  assert.match(namespaceNameProblem("a".repeat(64)) ?? "", /63/);
});

Deno.test("KubeApiError says what was attempted and what the server said", () => {
  const e = new KubeApiError('create ConfigMap "dev/x"', { method: "POST", path: "/p" }, 404, {
    reason: "NotFound",
    message: 'namespaces "dev" not found',
  });
  assert.equal(e.message, 'Cannot create ConfigMap "dev/x": namespaces "dev" not found');
  assert.equal(e.reason, "NotFound");
});
