/**
 * The audit over the admission fuzz's in-process world (real keys, real signatures, a loopback
 * registry and lookaside store) and the in-memory API server of `tests/fakes/kube_api.ts`:
 * the workloads it reports, the name of each image site, each verdict against the evaluator's
 * own decision of the image alone, and one verification per distinct image however many
 * workloads run it (the registry's requests counted).
 */
import assert from "node:assert/strict";
import { filePolicySource } from "../admission/file_source.ts";
import { DEFAULT_EXEMPT_LABEL } from "../admission/source.ts";
import type { AdmissionEvaluator } from "../admission/evaluate.ts";
import {
  CRON_JOBS,
  DEPLOYMENTS,
  JOBS,
  type KubeObject,
  NAMESPACES,
  PODS,
  REPLICA_SETS,
} from "../kube/mod.ts";
import { FakeKubeApi } from "../../tests/fakes/kube_api.ts";
import { startFuzzWorld } from "../../tests/admission/_fuzz_world.ts";
import { createFuzzEvaluator } from "../../tests/admission/_fuzz_harness.ts";
import {
  type AuditedImage,
  type AuditKube,
  auditVerifier,
  auditWorkloads,
  createRequest,
} from "./mod.ts";

function kubeOf(api: FakeKubeApi): AuditKube {
  return {
    list: ((type, namespace) => Promise.resolve(api.list(type, namespace))) as AuditKube["list"],
  };
}

const containers = (images: readonly string[]) =>
  images.map((image, i) => ({ name: `c${i}`, image }));

function pod(namespace: string, name: string, images: readonly string[], owner?: KubeObject) {
  return {
    metadata: {
      name,
      namespace,
      ...(owner
        ? {
          ownerReferences: [{
            apiVersion: owner.apiVersion,
            kind: owner.kind,
            name: owner.metadata.name,
            uid: owner.metadata.uid,
            controller: true,
          }],
        }
        : {}),
    },
    spec: { containers: containers(images) },
  };
}

function template(images: readonly string[], init: readonly string[] = []) {
  return {
    metadata: { labels: { app: "a" } },
    spec: {
      initContainers: init.map((image, i) => ({ name: `init${i}`, image })),
      containers: containers(images),
    },
  };
}

/** The verdict the evaluator gives `image` alone, in a Pod of `namespace`. */
async function alone(
  evaluator: AdmissionEvaluator,
  namespace: string,
  image: string,
): Promise<AuditedImage["verdict"]> {
  const decision = await evaluator.evaluate(
    createRequest(PODS, {
      metadata: { name: "alone", namespace },
      spec: { containers: [{ name: "c", image }] },
    }),
  );
  const site = decision.sites[0];
  if (decision.outcome === "exempt") return "pass";
  assert.ok(site, `a decision for ${image}`);
  return site.outcome === "allow"
    ? "pass"
    : site.outcome === "warn"
    ? "warn"
    : site.cause === "error"
    ? "error"
    : "fail";
}

Deno.test("auditWorkloads() reports each workload once, every image site, with the webhook's verdicts", async () => {
  await using world = await startFuzzWorld();
  const source = filePolicySource(world.worlds[0]!.documents, {
    exemptLabel: DEFAULT_EXEMPT_LABEL,
  });
  const evaluator = createFuzzEvaluator(world, source);
  const images = [...world.tags.keys()];
  const admitted = world.favoured[0]!;
  const others = images.filter((i) => i !== admitted).slice(0, 5);

  const api = new FakeKubeApi();
  for (const name of ["dev", "strict", "sandbox"]) api.seed(NAMESPACES, { metadata: { name } });
  api.seed(DEPLOYMENTS, {
    metadata: { name: "web", namespace: "dev" },
    spec: { template: template([admitted, others[0]!], [others[1]!]) },
  });
  const deployment = api.get(DEPLOYMENTS, "dev", "web")!;
  api.seed(REPLICA_SETS, {
    ...pod("dev", "web-1", [], deployment),
    spec: { replicas: 2, template: template([admitted, others[0]!], [others[1]!]) },
  });
  api.seed(REPLICA_SETS, {
    ...pod("dev", "web-0", [], deployment),
    spec: { replicas: 0, template: template([others[4]!]) },
  });
  const rs = api.get(REPLICA_SETS, "dev", "web-1")!;
  api.seed(PODS, pod("dev", "web-1-a", [admitted, others[0]!], rs));
  api.seed(PODS, pod("dev", "web-1-b", [admitted, others[0]!], rs));
  // A Pod its owner does not stand for: it runs an image the ReplicaSet does not name.
  api.seed(PODS, pod("dev", "web-1-c", [others[2]!], rs));
  api.seed(PODS, {
    metadata: { name: "debug", namespace: "strict" },
    spec: {
      containers: containers([admitted]),
      ephemeralContainers: [{ name: "dbg", image: others[3]! }],
      volumes: [{ name: "data", image: { reference: others[2]! } }, { name: "tmp", emptyDir: {} }],
    },
  });
  api.seed(CRON_JOBS, {
    metadata: { name: "nightly", namespace: "sandbox" },
    spec: { jobTemplate: { spec: { template: template([others[1]!]) } } },
  });
  const cron = api.get(CRON_JOBS, "sandbox", "nightly")!;
  api.seed(JOBS, {
    ...pod("sandbox", "nightly-1", [], cron),
    spec: { template: template([others[1]!]) },
  });

  const progress: [number, number][] = [];
  const audited = await auditWorkloads({ kube: kubeOf(api), evaluator }, {
    onProgress: (done, total) => progress.push([done, total]),
  });
  const rows = audited.map((a) =>
    `${a.namespace} ${a.workload.kind}/${a.workload.name} ${a.container} ${a.image}`
  );
  assert.deepEqual(rows, [
    `sandbox CronJob/nightly c0 ${others[1]}`,
    `dev Deployment/web init:init0 ${others[1]}`,
    `dev Deployment/web c0 ${admitted}`,
    `dev Deployment/web c1 ${others[0]}`,
    `dev Pod/web-1-c c0 ${others[2]}`,
    `strict Pod/debug c0 ${admitted}`,
    `strict Pod/debug ephemeral:dbg ${others[3]}`,
    `strict Pod/debug volume:data ${others[2]}`,
  ]);
  assert.deepEqual(progress.at(-1), [4, 4]);
  assert.equal(progress.length, 5);
  assert.equal(audited[1]!.workload.uid, deployment.metadata.uid);
  for (const a of audited) {
    assert.equal(
      a.verdict,
      await alone(evaluator, a.namespace, a.image),
      `${a.namespace} ${a.image}`,
    );
    if (a.verdict === "fail" || a.verdict === "error") {
      assert.match(a.message, /^policy denied the request: /);
    }
    if (a.namespace !== "sandbox") {
      assert.match(a.policy ?? "", /^(ClusterImagePolicy\/default|ImagePolicy\/strict\/strict)$/);
    }
  }
  assert.equal(audited[0]!.verdict, "pass"); // sandbox is exempt
  assert.equal(audited[0]!.message, 'namespace "sandbox" is labelled exempt');
  assert.ok(audited.some((a) => a.verdict === "fail"), "something is denied");

  // Only some namespaces.
  const strict = await auditWorkloads({ kube: kubeOf(api), evaluator }, { namespaces: ["strict"] });
  assert.deepEqual(strict.map((a) => a.workload.name), ["debug", "debug", "debug"]);
});

Deno.test("auditWorkloads() verifies each distinct image once, however many workloads run it", async () => {
  await using world = await startFuzzWorld();
  const documents = world.worlds[0]!.documents;
  const images = [...world.tags.keys()].slice(0, 6);
  let requests = 0;
  const counting: typeof fetch = (input, init) => {
    requests++;
    return world.fetch(input, init);
  };
  const counted = { ...world, fetch: counting };

  async function audit(copies: number): Promise<{ requests: number; verdicts: string[] }> {
    const api = new FakeKubeApi();
    api.seed(NAMESPACES, { metadata: { name: "dev" } });
    for (let c = 0; c < copies; c++) {
      images.forEach((image, i) =>
        api.seed(PODS, pod("dev", `p${i}-${c}`, [image, images[(i + 1) % images.length]!]))
      );
    }
    const evaluator = createFuzzEvaluator(
      counted,
      filePolicySource(documents),
      undefined,
      auditVerifier,
    );
    requests = 0;
    const audited = await auditWorkloads({ kube: kubeOf(api), evaluator, concurrency: 8 });
    assert.equal(audited.length, copies * images.length * 2);
    const verdicts = new Map(audited.map((a) => [a.image, a.verdict]));
    return { requests, verdicts: images.map((i) => `${i} ${verdicts.get(i)}`) };
  }
  const once = await audit(1);
  const many = await audit(25);
  assert.ok(once.requests > 0);
  assert.deepEqual(many.verdicts, once.verdicts);
  assert.equal(many.requests, once.requests, "the same registry requests for 150 Pods as for 6");
});

Deno.test("auditWorkloads() stops when its signal aborts", async () => {
  const api = new FakeKubeApi();
  api.seed(PODS, pod("dev", "p", ["registry.example.com/a:1"]));
  const evaluator: AdmissionEvaluator = {
    evaluate: () => {
      throw new Error("not reached");
    },
  };
  const controller = new AbortController();
  controller.abort(new Error("stopped"));
  await assert.rejects(
    auditWorkloads({ kube: kubeOf(api), evaluator }, { signal: controller.signal }),
    /stopped/,
  );
});
