import assert from "node:assert/strict";
import { FakeKubeApi } from "../../tests/fakes/kube_api.ts";
import { fakeKubeClient } from "../../tests/fakes/kube_transport.ts";
import {
  CRON_JOBS,
  DEPLOYMENTS,
  type KubeObject,
  NAMESPACES,
  PODS,
  POLICY_REPORTS,
  type ResourceType,
} from "../kube/mod.ts";
import { workloadImages } from "../admission/mod.ts";
import { createRequest } from "../audit/mod.ts";
import type { AuditedImage, AuditFunction } from "./audited.ts";
import { auditedPart, ReportController } from "./controller.ts";
import { POLICY_REPORT_NAME, REPORTER_ANNOTATION } from "./report.ts";
import type { BucketClock } from "./token_bucket.ts";

/** A clock whose sleeps end when the test moves it on (or their signal aborts). */
function manualClock(): BucketClock & { advance(ms: number): void } {
  let time = 0;
  const sleepers = new Set<{ due: number; done: () => void }>();
  return {
    now: () => time,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const sleeper = { due: time + ms, done: resolve };
        sleepers.add(sleeper);
        signal?.addEventListener("abort", () => {
          sleepers.delete(sleeper);
          reject(signal.reason);
        }, { once: true });
      }),
    advance(ms) {
      time += ms;
      for (const s of [...sleepers]) {
        if (s.due <= time) {
          sleepers.delete(s);
          s.done();
        }
      }
    },
  };
}

function pod(namespace: string, name: string, image: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace },
    spec: { containers: [{ name: "app", image }] },
  };
}

/** Judges from a table of images: the ones in `denied` fail. */
function tableAudit(
  denied: Set<string>,
  calls: Array<readonly string[] | undefined>,
): AuditFunction {
  return async (lister, namespaces, _signal) => {
    calls.push(namespaces);
    const out: AuditedImage[] = [];
    for (const type of [PODS, DEPLOYMENTS]) {
      for (const namespace of namespaces ?? [undefined]) {
        for (const o of await lister.list(type, namespace)) {
          const spec = o.spec as { containers: Array<{ name: string; image: string }> };
          for (const c of spec.containers ?? []) {
            out.push({
              namespace: o.metadata.namespace!,
              workload: { kind: type.kind, name: o.metadata.name, uid: String(o.metadata.uid) },
              container: c.name,
              image: c.image,
              verdict: denied.has(c.image) ? "fail" : "pass",
              message: denied.has(c.image) ? "no valid signature" : "signed",
              policy: "ClusterImagePolicy/default",
            });
          }
        }
      }
    }
    return out;
  };
}

async function until(check: () => boolean, tick: () => void): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (check()) return;
    tick();
    await new Promise((r) => setTimeout(r, 1));
  }
  throw new Error("never happened");
}

Deno.test("the controller writes a report per namespace and keeps it current", async () => {
  const api = new FakeKubeApi();
  api.seed(NAMESPACES, { metadata: { name: "team" } }, { metadata: { name: "other" } });
  api.seed(PODS, pod("team", "signed", "reg/app:1"), pod("team", "unsigned", "reg/bad:1"));
  api.seed(PODS, pod("other", "web", "reg/app:1"));
  const client = fakeKubeClient((r) => api.transport().open(r));
  const clock = manualClock();
  const denied = new Set(["reg/bad:1"]);
  const calls: Array<readonly string[] | undefined> = [];
  const seen: Record<string, number> = {};
  const controller = new ReportController({
    client,
    workloadTypes: [DEPLOYMENTS, PODS],
    audit: tableAudit(denied, calls),
    reporter: "replica-a",
    clock,
    resyncMs: 60_000,
    debounceMs: 500,
    observer: { violations: (ns, n) => (seen[ns] = n), removed: (ns) => delete seen[ns] },
  });
  const stop = new AbortController();
  const running = controller.run(stop.signal);
  const report = (ns: string) => api.get(POLICY_REPORTS, ns, POLICY_REPORT_NAME);
  const summary = (ns: string) => (report(ns) as { summary?: Record<string, number> })?.summary;
  try {
    await until(() => report("team") !== undefined && report("other") !== undefined, () => {});
    assert.deepEqual(summary("team"), { pass: 1, fail: 1, warn: 0, error: 0, skip: 0 });
    assert.equal(report("team")!.metadata.annotations?.[REPORTER_ANNOTATION], "replica-a");
    const results =
      (report("team") as unknown as { results: Array<Record<string, unknown>> }).results;
    assert.deepEqual(results.map((r) => [r.result, (r.resources as { name: string }[])[0]!.name]), [
      ["pass", "signed"],
      ["fail", "unsigned"],
    ]);
    assert.equal(results[1]!.source, "toolkit");
    assert.deepEqual(seen, { team: 1, other: 0 });

    // A new workload in one namespace: that namespace alone is audited again.
    calls.length = 0;
    await client.create(PODS, pod("other", "bad", "reg/bad:1"));
    await until(() => summary("other")?.fail === 1, () => clock.advance(500));
    assert.deepEqual(calls, [["other"]]);
    assert.deepEqual(seen, { team: 1, other: 1 });

    // A signature deleted (no watch tells): the resync finds it.
    denied.add("reg/app:1");
    await until(() => summary("team")?.fail === 2, () => clock.advance(10_000));
    assert.equal(summary("other")?.fail, 2);

    // A policy change re-audits every namespace at once (debounced).
    denied.clear();
    controller.policyChanged();
    await until(
      () => summary("team")?.fail === 0 && summary("other")?.fail === 0,
      () => clock.advance(500),
    );

    // The last workloads of a namespace go: its report goes too.
    await client.delete(PODS, "other", "web");
    await client.delete(PODS, "other", "bad");
    await until(() => report("other") === undefined, () => clock.advance(500));
    assert.deepEqual(Object.keys(seen), ["team"]);
  } finally {
    stop.abort();
    await running;
  }
});

Deno.test("a resync that finds nothing new leaves the report as it was", async () => {
  const api = new FakeKubeApi();
  api.seed(NAMESPACES, { metadata: { name: "team" } });
  api.seed(PODS, pod("team", "a", "reg/app:1"));
  const client = fakeKubeClient((r) => api.transport().open(r));
  const clock = manualClock();
  const calls: Array<readonly string[] | undefined> = [];
  const controller = new ReportController({
    client,
    workloadTypes: [PODS],
    audit: tableAudit(new Set(), calls),
    reporter: "replica-a",
    clock,
    resyncMs: 1000,
  });
  const stop = new AbortController();
  const running = controller.run(stop.signal);
  try {
    await until(() => api.get(POLICY_REPORTS, "team", POLICY_REPORT_NAME) !== undefined, () => {});
    const first = api.get(POLICY_REPORTS, "team", POLICY_REPORT_NAME)!;
    await until(() => calls.length >= 3, () => clock.advance(1000));
    const later = api.get(POLICY_REPORTS, "team", POLICY_REPORT_NAME)!;
    assert.equal(later.metadata.resourceVersion, first.metadata.resourceVersion);
  } finally {
    stop.abort();
    await running;
  }
});

Deno.test("the controller keeps of a workload what its audit reads, the same sites", () => {
  const podSpec = {
    serviceAccountName: "builder",
    imagePullSecrets: [{ name: "pull" }],
    initContainers: [{ name: "init", image: "reg/init:1", env: [{ name: "A", value: "x" }] }],
    containers: [
      { name: "app", image: "reg/app:1", resources: { limits: { memory: "1Gi" } } },
      { name: "blank", image: "" },
    ],
    volumes: [
      { name: "config", configMap: { name: "c" } },
      { name: "data", image: { reference: "reg/data:1", pullPolicy: "IfNotPresent" } },
    ],
    nodeSelector: { zone: "a" },
  };
  const metadata = {
    name: "w",
    namespace: "n",
    uid: "u1",
    labels: { app: "w" },
    annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{…}" },
    managedFields: [{ manager: "kubectl" }],
    ownerReferences: [{ kind: "ReplicaSet", name: "rs", uid: "u0", controller: true }],
  };
  const workloads: Array<[ResourceType, KubeObject]> = [
    [PODS, {
      apiVersion: "v1",
      kind: "Pod",
      metadata,
      spec: podSpec,
      status: { phase: "Running" },
    }],
    [DEPLOYMENTS, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata,
      spec: { replicas: 2, selector: {}, template: { metadata: { labels: {} }, spec: podSpec } },
    }],
    [CRON_JOBS, {
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata,
      spec: { schedule: "* * * * *", jobTemplate: { spec: { template: { spec: podSpec } } } },
    }],
  ] as unknown as Array<[ResourceType, KubeObject]>;
  for (const [type, object] of workloads) {
    const kept = auditedPart(object);
    const full = workloadImages(createRequest(type, object));
    const part = workloadImages(createRequest(type, kept));
    assert.deepEqual(part, full, type.kind);
    assert.ok(full.sites && full.sites.length === 3, type.kind);
    assert.equal(JSON.stringify(kept).includes("last-applied"), false);
    assert.equal(JSON.stringify(kept).includes("memory"), false);
    assert.equal((kept.metadata as { uid?: string }).uid, "u1");
    assert.deepEqual(kept.metadata.ownerReferences, metadata.ownerReferences);
  }
  assert.equal(
    (auditedPart(workloads[1]![1]) as unknown as { spec: { replicas: number } }).spec.replicas,
    2,
  );
});
