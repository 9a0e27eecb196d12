import assert from "node:assert/strict";
import { formatReference } from "../image/mod.ts";
import { type AdmissionSettings, createAdmissionEvaluator } from "./evaluate.ts";
import { filePolicySource, parsePolicyManifests } from "./file_source.ts";
import type { AdmissionRequest } from "./review.ts";
import type { ImageVerdict, ImageVerifier, VerifyTask } from "./verifier.ts";

const DIGEST = `sha256:${"ab".repeat(32)}`;

const POLICIES = `
apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
    - name: "registry.example.com/*"
      policy:
        simple: { requirements: [{ type: signedBy, keySecret: signer }] }
    - name: "registry.example.com/pinned-off/*"
      policy:
        mutateImage: false
        simple: { requirements: [{ type: signedBy, keySecret: signer }] }
    - name: "registry.example.com/audit/*"
      policy:
        mode: warn
        simple: { requirements: [{ type: signedBy, keySecret: signer }] }
    - name: "docker.io/library/*"
      policy: {}
    - name: "silent.example/*"
      policy:
        simple: { requirements: [{ type: signedBy, keySecret: signer }] }
    - name: "other.example/*"
      policy:
        simple: { requirements: [{ type: signedBy, keySecret: signer }] }
---
apiVersion: toolkit.dev/v1
kind: ImagePolicy
metadata: { name: only-signed, namespace: strict }
spec:
  repositories:
    - name: "registry.example.com/team/*"
      policy:
        simple: { requirements: [{ type: signedBy, keySecret: signer }] }
---
apiVersion: v1
kind: Namespace
metadata: { name: sandbox, labels: { toolkit.dev/image-security: exempt } }
---
apiVersion: v1
kind: Namespace
metadata: { name: trial, labels: { toolkit.dev/enforcement: warn } }
---
apiVersion: v1
kind: Namespace
metadata: { name: enforced, labels: { toolkit.dev/enforcement: enforce } }
---
apiVersion: v1
kind: Namespace
metadata: { name: odd, labels: { toolkit.dev/enforcement: maybe } }
`;

/**
 * A verifier that answers from a table: images whose path contains "unsigned" are denied; images
 * of `silent.example` are never answered (until the review's signal aborts). Like the real one,
 * it takes a slot of the task for an image with requirements, and gives it back when it ends.
 */
class TableVerifier implements ImageVerifier {
  readonly calls: VerifyTask[] = [];
  delayMs = 0;
  /** Verifications holding a slot now, and at most. */
  running = 0;
  most = 0;
  known?: (task: VerifyTask) => ImageVerdict | undefined;
  async verify(task: VerifyTask, signal?: AbortSignal): Promise<ImageVerdict> {
    const requirements = task.match.policy.simple?.requirements ?? [];
    using _slot = requirements.length > 0 ? await task.slots?.acquire(signal) : undefined;
    this.calls.push(task);
    this.most = Math.max(this.most, ++this.running);
    try {
      return await this.#answer(task, requirements, signal);
    } finally {
      this.running--;
    }
  }

  async #answer(
    task: VerifyTask,
    requirements: readonly unknown[],
    signal?: AbortSignal,
  ): Promise<ImageVerdict> {
    if (task.reference.domain === "silent.example") {
      return await new Promise<never>((_, reject) =>
        signal?.addEventListener("abort", () => reject(signal.reason))
      );
    }
    const verdict: ImageVerdict = requirements.length === 0
      ? { allowed: true }
      : task.reference.path.includes("unsigned")
      ? {
        allowed: false,
        cause: "policy",
        reason: "A signature was required, but no signature exists",
      }
      : { allowed: true, digest: DIGEST };
    if (this.delayMs === 0) return verdict;
    return await new Promise((resolve) => setTimeout(() => resolve(verdict), this.delayMs));
  }
}

const SETTINGS: AdmissionSettings = {
  mode: "enforce",
  noMatch: "deny",
  controllerNamespace: "toolkit-system",
  budgetMs: 1000,
};

function setup(settings: Partial<AdmissionSettings> = {}) {
  const source = filePolicySource(
    parsePolicyManifests(POLICIES, "policies.yaml", { groups: ["toolkit.dev"] }),
    { exemptLabel: { key: "toolkit.dev/image-security", value: "exempt" } },
  );
  const verifier = new TableVerifier();
  const evaluator = createAdmissionEvaluator({
    source,
    verifier,
    settings: { ...SETTINGS, ...settings },
  });
  return { evaluator, verifier };
}

function pod(
  images: string[],
  options: {
    namespace?: string;
    init?: string[];
    volumes?: string[];
    operation?: "CREATE" | "UPDATE";
  } = {},
): AdmissionRequest {
  return {
    uid: "uid-1",
    kind: { group: "", version: "v1", kind: "Pod" },
    resource: { group: "", version: "v1", resource: "pods" },
    subResource: "",
    name: "p",
    namespace: options.namespace ?? "dev",
    operation: options.operation ?? "CREATE",
    object: {
      spec: {
        initContainers: (options.init ?? []).map((image, i) => ({ name: `init${i}`, image })),
        containers: images.map((image, i) => ({ name: `c${i}`, image })),
        ...(options.volumes
          ? {
            volumes: options.volumes.map((reference, i) => ({
              name: i === 0 ? "data" : `data${i}`,
              image: { reference, pullPolicy: "IfNotPresent" },
            })),
          }
          : {}),
      },
    },
    oldObject: undefined,
    dryRun: false,
  };
}

Deno.test("evaluate() admits a verified image and pins it to its digest", async () => {
  const { evaluator } = setup();
  const decision = await evaluator.evaluate(pod(["registry.example.com/app:1"]));
  assert.equal(decision.allowed, true);
  assert.equal(decision.outcome, "allow");
  assert.deepEqual(decision.patch, [{
    op: "replace",
    path: "/spec/containers/0/image",
    value: `registry.example.com/app@${DIGEST}`,
  }]);
});

Deno.test("evaluate() leaves the image alone when mutateImage is false", async () => {
  const { evaluator } = setup();
  const decision = await evaluator.evaluate(pod(["registry.example.com/pinned-off/app:1"]));
  assert.equal(decision.allowed, true);
  assert.deepEqual(decision.patch, []);
});

Deno.test("evaluate() does not patch an image that is already pinned", async () => {
  const { evaluator } = setup();
  const decision = await evaluator.evaluate(pod([`registry.example.com/app@${DIGEST}`]));
  assert.equal(decision.allowed, true);
  assert.deepEqual(decision.patch, []);
});

Deno.test("evaluate() lists every failing container in order, each reason prefixed", async () => {
  const { evaluator } = setup();
  const decision = await evaluator.evaluate(pod(
    ["registry.example.com/unsigned-b:1", "registry.example.com/app:1", "quay.io/x/y"],
    { init: ["registry.example.com/unsigned-a:1"] },
  ));
  assert.equal(decision.allowed, false);
  assert.deepEqual(decision.patch, []);
  assert.deepEqual(decision.reasons, [
    'policy denied the request: A signature was required, but no signature exists (container "init0" at spec.initContainers[0], image "registry.example.com/unsigned-a:1")',
    'policy denied the request: A signature was required, but no signature exists (container "c0" at spec.containers[0], image "registry.example.com/unsigned-b:1")',
    'policy denied the request: no ClusterImagePolicy matches "quay.io/x/y" and there is no ImagePolicy in namespace "dev" (container "c2" at spec.containers[2], image "quay.io/x/y")',
  ]);
});

Deno.test("evaluate() checks each distinct image once", async () => {
  const { evaluator, verifier } = setup();
  await evaluator.evaluate(pod(["registry.example.com/app:1", "registry.example.com/app:1"]));
  assert.equal(verifier.calls.length, 1);
});

Deno.test("evaluate() lets an ImagePolicy of the namespace replace the cluster policies", async () => {
  const { evaluator } = setup();
  const denied = await evaluator.evaluate(pod(["nginx:1.26"], { namespace: "strict" }));
  assert.equal(denied.allowed, false);
  assert.match(
    denied.reasons[0] ?? "",
    /no ImagePolicy in namespace "strict" matches "nginx:1.26"/,
  );
  const allowed = await evaluator.evaluate(pod(["nginx:1.26"], { namespace: "dev" }));
  assert.equal(allowed.allowed, true);
});

Deno.test("evaluate() admits a policy in warn mode with a warning", async () => {
  const { evaluator } = setup();
  const decision = await evaluator.evaluate(pod(["registry.example.com/audit/unsigned:1"]));
  assert.equal(decision.allowed, true);
  assert.equal(decision.outcome, "warn");
  assert.equal(decision.warnings.length, 1);
  assert.match(
    decision.warnings[0] ?? "",
    /^warn mode, admitted anyway: policy denied the request: A signature was required/,
  );
});

Deno.test("evaluate() in global warn mode admits everything with warnings", async () => {
  const { evaluator } = setup({ mode: "warn" });
  const decision = await evaluator.evaluate(pod(["registry.example.com/unsigned:1", "quay.io/x"]));
  assert.equal(decision.allowed, true);
  assert.equal(decision.warnings.length, 2);
});

Deno.test("evaluate() follows a namespace's toolkit.dev/enforcement label over the global mode", async () => {
  const unsigned = "registry.example.com/unsigned:1";
  const enforcing = setup().evaluator;
  const warning = setup({ mode: "warn" }).evaluator;
  // Labelled warn: admitted with a warning, even when the webhook enforces.
  const trial = await enforcing.evaluate(pod([unsigned], { namespace: "trial" }));
  assert.equal(trial.outcome, "warn");
  assert.equal(trial.sites[0]?.outcome, "warn");
  // Labelled enforce: denied, even when the webhook warns; a policy's own warn mode still warns.
  const enforced = await warning.evaluate(pod([unsigned], { namespace: "enforced" }));
  assert.equal(enforced.allowed, false);
  assert.equal(enforced.sites[0]?.cause, "policy");
  const policyWarn = await warning.evaluate(
    pod(["registry.example.com/audit/unsigned:1"], { namespace: "enforced" }),
  );
  assert.equal(policyWarn.outcome, "warn");
  // Unlabelled, or a value that is no mode: the global mode.
  for (const namespace of ["dev", "odd"]) {
    assert.equal((await enforcing.evaluate(pod([unsigned], { namespace }))).outcome, "deny");
    assert.equal((await warning.evaluate(pod([unsigned], { namespace }))).outcome, "warn");
  }
  // Decided for the whole object (too many images) follows the label too.
  const many = Array.from({ length: 300 }, (_, i) => `registry.example.com/a${i}:1`);
  assert.equal((await enforcing.evaluate(pod(many, { namespace: "trial" }))).outcome, "warn");
  assert.equal((await warning.evaluate(pod(many, { namespace: "enforced" }))).outcome, "deny");
});

Deno.test("evaluate() follows the no-match setting", async () => {
  const allow = await setup({ noMatch: "allow" }).evaluator.evaluate(pod(["quay.io/x"]));
  assert.equal(allow.allowed, true);
  assert.equal(allow.warnings.length, 0);
  const warn = await setup({ noMatch: "warn" }).evaluator.evaluate(pod(["quay.io/x"]));
  assert.equal(warn.allowed, true);
  assert.equal(warn.outcome, "warn");
});

Deno.test("evaluate() exempts the controller's namespace and labelled namespaces", async () => {
  const { evaluator, verifier } = setup();
  for (const namespace of ["toolkit-system", "sandbox"]) {
    const decision = await evaluator.evaluate(pod(["quay.io/x"], { namespace }));
    assert.equal(decision.allowed, true);
    assert.equal(decision.outcome, "exempt");
  }
  assert.equal(verifier.calls.length, 0);
});

Deno.test("evaluate() denies an image name that does not parse", async () => {
  const { evaluator } = setup();
  const decision = await evaluator.evaluate(pod(["Invalid&Image%Name"]));
  assert.equal(decision.allowed, false);
  assert.match(decision.reasons[0] ?? "", /^policy denied the request: invalid image name: /);
});

Deno.test("evaluate() denies when the budget runs out", async () => {
  const { evaluator, verifier } = setup({ budgetMs: 20 });
  verifier.delayMs = 200;
  const decision = await evaluator.evaluate(pod(["registry.example.com/app:1"]));
  assert.equal(decision.allowed, false);
  assert.match(decision.reasons[0] ?? "", /within the time budget of 20ms/);
  await new Promise((r) => setTimeout(r, 250));
});

Deno.test("evaluate() denies an unsupported resource and skips DELETE", async () => {
  const { evaluator } = setup();
  const widget = { ...pod([]), resource: { group: "x.io", version: "v1", resource: "widgets" } };
  assert.equal((await evaluator.evaluate(widget)).allowed, false);
  const deletion = { ...pod(["quay.io/x"]), operation: "DELETE" as const };
  assert.equal((await evaluator.evaluate(deletion)).outcome, "skip");
});

Deno.test("evaluate() re-checks images on UPDATE unless the object is being deleted unchanged", async () => {
  const { evaluator } = setup();
  const update = pod(["quay.io/x"], { operation: "UPDATE" });
  assert.equal((await evaluator.evaluate(update)).allowed, false);
  const object = update.object as { metadata?: unknown };
  const deleting = {
    ...update,
    object: { ...object, metadata: { deletionTimestamp: "2026-01-01T00:00:00Z" } },
    oldObject: update.object,
  };
  assert.equal((await evaluator.evaluate(deleting)).outcome, "skip");
  const changed = { ...deleting, oldObject: pod(["quay.io/old"]).object };
  assert.equal((await evaluator.evaluate(changed)).allowed, false);
});

Deno.test("evaluate() normalises short names before choosing a policy", async () => {
  const { evaluator, verifier } = setup();
  await evaluator.evaluate(pod(["nginx"]));
  assert.equal(formatReference(verifier.calls[0]!.reference), "docker.io/library/nginx");
  assert.equal(verifier.calls[0]!.match.pattern, "docker.io/library/*");
});

/** `request` turned into an object of `group/resource` whose pod template is the Pod's spec. */
function template(
  request: AdmissionRequest,
  group: string,
  resource: string,
  kind: string,
): AdmissionRequest {
  const spec = (request.object as { spec: unknown }).spec;
  const podTemplate = { template: { spec } };
  return {
    ...request,
    kind: { group, version: "v1", kind },
    resource: { group, version: "v1", resource },
    object: {
      spec: resource === "cronjobs" ? { jobTemplate: { spec: podTemplate } } : podTemplate,
    },
  };
}

Deno.test("evaluate() denies an unsigned image named only by an image volume, and says where", async () => {
  const { evaluator } = setup();
  const decision = await evaluator.evaluate(pod(["registry.example.com/app:1"], {
    volumes: ["registry.example.com/unsigned-data:1", "quay.io/x/y"],
  }));
  assert.equal(decision.allowed, false);
  assert.deepEqual(decision.patch, []);
  assert.deepEqual(decision.reasons, [
    'policy denied the request: A signature was required, but no signature exists (image volume "data" at spec.volumes[0].image.reference, image "registry.example.com/unsigned-data:1")',
    'policy denied the request: no ClusterImagePolicy matches "quay.io/x/y" and there is no ImagePolicy in namespace "dev" (image volume "data1" at spec.volumes[1].image.reference, image "quay.io/x/y")',
  ]);
  assert.deepEqual(
    decision.sites.map((s) => [s.site.type, s.site.name, s.outcome]),
    [["container", "c0", "allow"], ["image volume", "data", "deny"], [
      "image volume",
      "data1",
      "deny",
    ]],
  );
});

Deno.test("evaluate() pins a verified image volume at its reference", async () => {
  const { evaluator } = setup();
  const decision = await evaluator.evaluate(pod(["registry.example.com/app:1"], {
    volumes: ["registry.example.com/data:1", "registry.example.com/pinned-off/data:1"],
  }));
  assert.equal(decision.allowed, true);
  assert.deepEqual(decision.patch, [
    {
      op: "replace",
      path: "/spec/containers/0/image",
      value: `registry.example.com/app@${DIGEST}`,
    },
    {
      op: "replace",
      path: "/spec/volumes/0/image/reference",
      value: `registry.example.com/data@${DIGEST}`,
    },
  ]);
});

Deno.test("evaluate() checks and pins image volumes in every workload template", async () => {
  const { evaluator } = setup();
  const cases: [string, string, string, string][] = [
    ["apps", "deployments", "Deployment", "/spec/template/spec"],
    ["apps", "replicasets", "ReplicaSet", "/spec/template/spec"],
    ["apps", "statefulsets", "StatefulSet", "/spec/template/spec"],
    ["apps", "daemonsets", "DaemonSet", "/spec/template/spec"],
    ["batch", "jobs", "Job", "/spec/template/spec"],
    ["batch", "cronjobs", "CronJob", "/spec/jobTemplate/spec/template/spec"],
    ["", "replicationcontrollers", "ReplicationController", "/spec/template/spec"],
    ["apps.openshift.io", "deploymentconfigs", "DeploymentConfig", "/spec/template/spec"],
  ];
  for (const [group, resource, kind, podSpec] of cases) {
    const field = podSpec.slice(1).replaceAll("/", ".");
    const denied = await evaluator.evaluate(
      template(pod([], { volumes: ["registry.example.com/unsigned:1"] }), group, resource, kind),
    );
    assert.equal(denied.allowed, false, kind);
    assert.deepEqual(denied.reasons, [
      `policy denied the request: A signature was required, but no signature exists (image volume "data" at ${field}.volumes[0].image.reference, image "registry.example.com/unsigned:1")`,
    ]);
    const admitted = await evaluator.evaluate(
      template(pod([], { volumes: ["registry.example.com/data:1"] }), group, resource, kind),
    );
    assert.equal(admitted.allowed, true, kind);
    assert.deepEqual(admitted.patch, [{
      op: "replace",
      path: `${podSpec}/volumes/0/image/reference`,
      value: `registry.example.com/data@${DIGEST}`,
    }]);
  }
});

Deno.test("evaluate() in warn mode admits an unsigned image volume with a warning naming it", async () => {
  const { evaluator } = setup({ mode: "warn" });
  const decision = await evaluator.evaluate(
    pod([], { volumes: ["registry.example.com/unsigned:1"] }),
  );
  assert.equal(decision.allowed, true);
  assert.equal(decision.outcome, "warn");
  assert.deepEqual(decision.warnings, [
    'warn mode, admitted anyway: policy denied the request: A signature was required, but no signature exists (image volume "data" at spec.volumes[0].image.reference, image "registry.example.com/unsigned:1")',
  ]);
  const policyWarn = await setup().evaluator.evaluate(
    pod([], { volumes: ["registry.example.com/audit/unsigned:1"] }),
  );
  assert.equal(policyWarn.outcome, "warn");
  assert.match(policyWarn.warnings[0] ?? "", /\(image volume "data" at spec\.volumes\[0\]/);
});

Deno.test("evaluate() checks a Pod's image volumes on UPDATE but never patches them", async () => {
  const { evaluator } = setup();
  const unsigned = pod([], { volumes: ["registry.example.com/unsigned:1"], operation: "UPDATE" });
  assert.equal((await evaluator.evaluate(unsigned)).allowed, false);
  const signed = pod(["registry.example.com/app:1"], {
    volumes: ["registry.example.com/data:1"],
    operation: "UPDATE",
  });
  const decision = await evaluator.evaluate(signed);
  assert.equal(decision.allowed, true);
  assert.deepEqual(decision.patch.map((op) => op.path), ["/spec/containers/0/image"]);
  assert.equal(decision.sites[1]?.digest, DIGEST);
  assert.equal(decision.sites[1]?.pinned, undefined);
});

Deno.test("evaluate() skips a deleting UPDATE only when its image volumes did not change either", async () => {
  const { evaluator } = setup();
  const update = pod([], { volumes: ["quay.io/x"], operation: "UPDATE" });
  const object = update.object as { metadata?: unknown };
  const deleting = {
    ...update,
    object: { ...object, metadata: { deletionTimestamp: "2026-01-01T00:00:00Z" } },
    oldObject: update.object,
  };
  assert.equal((await evaluator.evaluate(deleting)).outcome, "skip");
  const changed = { ...deleting, oldObject: pod([], { volumes: ["quay.io/old"] }).object };
  const decision = await evaluator.evaluate(changed);
  assert.equal(decision.allowed, false);
  assert.match(decision.reasons[0] ?? "", /\(image volume "data" at spec\.volumes\[0\]/);
  const added = { ...deleting, oldObject: pod([]).object };
  assert.equal((await evaluator.evaluate(added)).allowed, false);
});

Deno.test("evaluate() denies a review naming more distinct images than the bound, before any check", async () => {
  const { evaluator, verifier } = setup({ maxImagesPerReview: 3 });
  const images = ["a", "b", "c", "d"].map((t) => `registry.example.com/app:${t}`);
  const decision = await evaluator.evaluate(pod([...images, images[0]!]));
  assert.equal(decision.allowed, false);
  assert.deepEqual(decision.reasons, [
    "policy denied the request: the object names 4 distinct images; at most 3 are checked per request",
  ]);
  assert.equal(verifier.calls.length, 0);
  // The same image in many containers is one image.
  const same = await evaluator.evaluate(pod(Array(50).fill(images[0]!)));
  assert.equal(same.allowed, true);
  assert.equal(verifier.calls.length, 1);
  assert.equal(evaluator.bounds?.().maxImagesPerReview, 3);
});

Deno.test("evaluate() caches valid references only, within its byte bound, and quotes a bounded prefix of invalid ones", async () => {
  const { evaluator } = setup();
  const huge = `registry.example.com/${"A".repeat(2_900_000)}`;
  const decision = await evaluator.evaluate(pod([huge]));
  assert.equal(decision.allowed, false);
  const reason = decision.reasons[0]!;
  assert.ok(reason.length < 2000, `the denial is ${reason.length} characters`);
  assert.match(reason, /…\(2900021 bytes\)"\)$/);
  const parse = evaluator.bounds!().caches.find((c) => c.name === "parse")!;
  assert.equal(parse.entries, 0, "an invalid image is not cached");
  await evaluator.evaluate(pod(["registry.example.com/app:1"]));
  const after = evaluator.bounds!().caches.find((c) => c.name === "parse")!;
  assert.equal(after.entries, 1);
  assert.ok(after.bytes > 0 && after.bytes <= after.maxBytes);
});

Deno.test("evaluate() runs at most maxVerificationsInFlight verifications across reviews", async () => {
  const { evaluator, verifier } = setup({ maxVerificationsInFlight: 2 });
  verifier.delayMs = 20;
  const reviews = [0, 1, 2].map((r) =>
    evaluator.evaluate(pod([0, 1, 2].map((i) => `registry.example.com/app:r${r}-${i}`)))
  );
  // Choosing the policies takes a few microtasks before the verifications start.
  for (let i = 0; i < 100 && evaluator.bounds!().verificationsInFlight < 2; i++) {
    await Promise.resolve();
  }
  assert.equal(evaluator.bounds!().verificationsInFlight, 2);
  assert.ok(evaluator.bounds!().verificationsWaiting > 0);
  const decisions = await Promise.all(reviews);
  assert.ok(decisions.every((d) => d.allowed));
  assert.equal(verifier.most, 2);
  assert.equal(verifier.calls.length, 9);
  assert.equal(evaluator.bounds!().verificationsInFlight, 0);
});

Deno.test("evaluate(): waiting for a verification slot counts against the review's budget", async () => {
  const { evaluator, verifier } = setup({ maxVerificationsInFlight: 1, budgetMs: 100 });
  verifier.delayMs = 60;
  const decision = await evaluator.evaluate(
    pod([0, 1, 2, 3].map((i) => `registry.example.com/app:${i}`)),
  );
  assert.equal(decision.allowed, false);
  assert.ok(decision.reasons.some((r) => r.includes("within the time budget of 100ms")));
  assert.ok(verifier.calls.length < 4, "the images still waiting at the deadline were not checked");
});

Deno.test("evaluate(): a namespace whose registry never answers leaves slots to another registry's images", async () => {
  const { evaluator } = setup({ maxVerificationsInFlight: 8, budgetMs: 300 });
  const flood = evaluator.evaluate(
    pod(Array.from({ length: 40 }, (_, i) => `silent.example/app:${i}`), { namespace: "flood" }),
  );
  for (let i = 0; i < 100 && evaluator.bounds!().verificationsInFlight < 6; i++) {
    await Promise.resolve();
  }
  // No host holds more than three quarters of the slots, even alone.
  assert.equal(evaluator.bounds!().verificationsInFlight, 6);
  const victims = await Promise.all(
    [0, 1, 2].map((i) =>
      evaluator.evaluate(pod([`other.example/app:${i}`], { namespace: "victim" }))
    ),
  );
  assert.ok(victims.every((d) => d.allowed), "admitted while the flood waits");
  // Same namespace, other host: served as well.
  const mixed = await evaluator.evaluate(
    pod(["registry.example.com/app:1"], { namespace: "flood" }),
  );
  assert.equal(mixed.allowed, true);
  const denied = await flood;
  assert.equal(denied.allowed, false);
  assert.match(denied.reasons[0]!, /within the time budget of 300ms/);
  // The review's deadline reached its verifications: every slot is back.
  assert.deepEqual(
    [evaluator.bounds!().verificationsInFlight, evaluator.bounds!().verificationsWaiting],
    [0, 0],
  );
});

Deno.test("evaluate(): a client gone ends the review's verifications and returns their slots", async () => {
  const { evaluator } = setup({ maxVerificationsInFlight: 4, budgetMs: 60_000 });
  const gone = new AbortController();
  const review = evaluator.evaluate(
    pod(Array.from({ length: 10 }, (_, i) => `silent.example/app:${i}`)),
    gone.signal,
  );
  for (let i = 0; i < 100 && evaluator.bounds!().verificationsWaiting < 7; i++) {
    await new Promise((r) => setTimeout(r, 1));
  }
  assert.equal(evaluator.bounds!().verificationsInFlight, 3);
  assert.equal(evaluator.bounds!().verificationsWaiting, 7);
  gone.abort(new Error("client gone"));
  const decision = await review;
  assert.equal(decision.allowed, false);
  assert.deepEqual(
    [evaluator.bounds!().verificationsInFlight, evaluator.bounds!().verificationsWaiting],
    [0, 0],
  );
});

Deno.test("evaluate(): a verdict the verifier knows takes no slot, even when all are held", async () => {
  const { evaluator, verifier } = setup({ maxVerificationsInFlight: 1, budgetMs: 300 });
  verifier.known = (task: VerifyTask) =>
    task.reference.path === "known" ? { allowed: true, digest: DIGEST, cached: true } : undefined;
  const review = pod(["registry.example.com/known:1"]);
  assert.equal((await evaluator.evaluate(review)).allowed, true); // its policy chosen
  const flood = evaluator.evaluate(pod(["silent.example/a:1", "other.example/b:1"]));
  for (let i = 0; i < 100 && evaluator.bounds!().verificationsWaiting < 1; i++) {
    await new Promise((r) => setTimeout(r, 1));
  }
  assert.equal(evaluator.bounds!().verificationsInFlight, 1);
  const decision = evaluator.evaluate(review);
  assert.ok(!(decision instanceof Promise), "answered at once");
  assert.equal(decision.allowed, true);
  assert.equal((await flood).allowed, false);
});

Deno.test("evaluate() admits only on a verdict that is explicitly allowed", async () => {
  // Verdicts a broken verifier could return: none of them is an allow.
  const malformed: unknown[] = [
    { allowed: "yes", digest: DIGEST },
    { allowed: 1 },
    { allowed: false },
    { allowed: false, cause: "policy", reason: undefined },
    {},
    undefined,
  ];
  for (const verdict of malformed) {
    const source = filePolicySource(
      parsePolicyManifests(POLICIES, "policies.yaml", { groups: ["toolkit.dev"] }),
    );
    const verifier: ImageVerifier = {
      verify: () => Promise.resolve(verdict as ImageVerdict),
    };
    const evaluator = createAdmissionEvaluator({ source, verifier, settings: SETTINGS });
    const decision = await evaluator.evaluate(pod(["registry.example.com/team/app:1"]));
    const what = JSON.stringify(verdict);
    assert.equal(decision.allowed, false, what);
    assert.equal(decision.outcome, "deny", what);
    assert.equal(decision.patch.length, 0, what);
    assert.equal(decision.reasons.length, 1, what);
    assert.match(decision.reasons[0]!, /^policy denied the request: \S/, what);
  }
});
