import assert from "node:assert/strict";
import {
  defaultInstallOptions,
  deploymentManifest,
  generateWebhookTls,
  installManifests,
  podDisruptionBudgetManifest,
  RELEASE_PUBLIC_KEY,
  webhookConfigurationManifest,
} from "./mod.ts";
import { catchAllPolicy, defaultPolicyManifests } from "./policies.ts";
import { clusterRoleManifest, leaseRoleBindingManifest, leaseRoleManifest } from "./rbac.ts";

// deno-lint-ignore no-explicit-any
type Loose = any;

Deno.test("installManifests() lists every object once, the webhook configuration last", async () => {
  const options = defaultInstallOptions();
  const tls = await generateWebhookTls({ dnsNames: ["toolkit-webhook.toolkit-system.svc"] });
  const objects = installManifests(options, { tls, caBundle: btoa(tls.caCertPem) });
  const kinds = objects.map((o) => o.kind);
  assert.equal(kinds[0], "Namespace");
  assert.equal(kinds.at(-1), "MutatingWebhookConfiguration");
  for (
    const kind of [
      "CustomResourceDefinition",
      "ServiceAccount",
      "ClusterRole",
      "ClusterRoleBinding",
      "Role",
      "RoleBinding",
      "Secret",
      "Deployment",
      "PodDisruptionBudget",
      "Service",
      "ClusterImagePolicy",
    ]
  ) assert.ok(kinds.includes(kind), kind);
  const ids = objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`);
  assert.equal(new Set(ids).size, ids.length);
});

Deno.test("deploymentManifest() runs three locked-down replicas with HTTPS probes", () => {
  const d = deploymentManifest(defaultInstallOptions()) as Loose;
  const pod = d.spec.template.spec;
  const container = pod.containers[0];
  assert.equal(d.spec.replicas, 3);
  assert.equal(pod.priorityClassName, "system-cluster-critical");
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.equal(pod.securityContext.seccompProfile.type, "RuntimeDefault");
  assert.deepEqual(container.securityContext.capabilities.drop, ["ALL"]);
  assert.equal(container.securityContext.readOnlyRootFilesystem, true);
  assert.equal(container.livenessProbe.httpGet.path, "/healthz");
  assert.equal(container.readinessProbe.httpGet.scheme, "HTTPS");
  assert.equal(container.env[0].valueFrom.fieldRef.fieldPath, "metadata.namespace");
  assert.equal(
    pod.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm
      .topologyKey,
    "kubernetes.io/hostname",
  );
});

Deno.test("podDisruptionBudgetManifest() selects the labels the pods really carry", () => {
  const options = defaultInstallOptions();
  const pdb = podDisruptionBudgetManifest(options) as Loose;
  const podLabels = (deploymentManifest(options) as Loose).spec.template.metadata.labels;
  for (const [k, v] of Object.entries(pdb.spec.selector.matchLabels)) assert.equal(podLabels[k], v);
  assert.equal(pdb.spec.minAvailable, 1);
});

Deno.test("webhookConfigurationManifest() fails closed and skips exempt namespaces", () => {
  const options = defaultInstallOptions({ exemptNamespaces: ["monitoring"] });
  const hook = (webhookConfigurationManifest(options, "Q0E=") as Loose).webhooks[0];
  assert.equal(hook.failurePolicy, "Fail");
  assert.equal(hook.timeoutSeconds, 10);
  assert.equal(hook.sideEffects, "None");
  assert.deepEqual(hook.admissionReviewVersions, ["v1"]);
  assert.equal(hook.clientConfig.caBundle, "Q0E=");
  assert.equal(hook.clientConfig.service.path, "/admit");
  const names = hook.namespaceSelector.matchExpressions.find((e: Loose) =>
    e.key === "kubernetes.io/metadata.name"
  );
  assert.deepEqual(names.values, ["toolkit-system", "monitoring"]);
  const resources = hook.rules.flatMap((r: Loose) => r.resources);
  for (const r of ["pods", "pods/ephemeralcontainers", "cronjobs", "deploymentconfigs"]) {
    assert.ok(resources.includes(r), r);
  }
});

Deno.test("webhookConfigurationManifest() calls a URL when one is given", () => {
  const options = defaultInstallOptions({ webhookUrl: "https://127.0.0.1:9443/admit" });
  const hook = (webhookConfigurationManifest(options, "Q0E=") as Loose).webhooks[0];
  assert.equal(hook.clientConfig.url, "https://127.0.0.1:9443/admit");
  assert.equal(hook.clientConfig.service, undefined);
});

Deno.test("clusterRoleManifest() only reads, except for Events and PolicyReports", () => {
  const rules = (clusterRoleManifest() as Loose).rules as {
    resources: string[];
    verbs: string[];
  }[];
  for (const rule of rules) {
    const writes = rule.verbs.filter((v) => !["get", "list", "watch"].includes(v));
    if (writes.length === 0) continue;
    assert.ok(
      [["events"], ["policyreports"]].some((r) =>
        JSON.stringify(r) === JSON.stringify(rule.resources)
      ),
      `writes ${rule.resources}`,
    );
  }
});

Deno.test("defaultPolicyManifests() follows --default for everything else", () => {
  assert.deepEqual(catchAllPolicy("allow"), {});
  assert.equal(catchAllPolicy("warn").mode, "warn");
  assert.equal(catchAllPolicy("deny").mode, "enforce");
  const policies = defaultPolicyManifests(defaultInstallOptions()) as Loose[];
  assert.equal(policies.length, 3);
  assert.equal(policies[0].spec.repositories[0].policy.simple.requirements[0].type, "signedBy");
});

Deno.test("the release key module matches deploy/release-key.pub.asc", async () => {
  const file = await Deno.readTextFile(
    new URL("../../deploy/release-key.pub.asc", import.meta.url),
  );
  assert.equal(RELEASE_PUBLIC_KEY, file);
});

Deno.test("the Lease Role writes only Leases, in the controller's namespace, its own by name", () => {
  const role = leaseRoleManifest(defaultInstallOptions({ namespace: "sec" })) as Loose;
  assert.equal(role.kind, "Role");
  assert.equal(role.metadata.namespace, "sec");
  const rules = role.rules as { resources: string[]; verbs: string[]; resourceNames?: string[] }[];
  for (const rule of rules) assert.deepEqual(rule.resources, ["leases"]);
  assert.deepEqual(rules.find((r) => r.verbs.includes("update"))?.resourceNames, [
    "toolkit-policy-reports",
  ]);
  const binding = leaseRoleBindingManifest(defaultInstallOptions({ namespace: "sec" })) as Loose;
  assert.deepEqual(binding.roleRef, {
    apiGroup: "rbac.authorization.k8s.io",
    kind: "Role",
    name: "toolkit-webhook",
  });
  assert.equal(binding.subjects[0].namespace, "sec");
});
