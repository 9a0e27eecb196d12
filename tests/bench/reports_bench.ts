/**
 * What the PolicyReport controller costs (run by `deno task bench`, or alone with
 * `deno run -A tests/bench/reports_bench.ts`): `ReportController` (`lib/reports`) over 5,000
 * realistic Pods (`_pod_shapes.ts`, with the `status` and `managedFields` the API server adds) in
 * 50 namespaces, listed and watched through `lib/kube`'s client from the in-memory API server of
 * `tests/fakes/kube_api.ts`, its PolicyReports written there.
 *
 * The audit is a stand-in that passes every image (the verification's own cost is
 * `audit_bench.ts`'s): the figures are the controller's — the list and the copies it keeps, the
 * first audit and its 50 reports, a resync that finds nothing new (fingerprints, 50 unchanged
 * applies), one Pod deleted (one namespace audited again) — and the heap of the controller's copies
 * of the Pods (a Reflector with its `auditedPart`, beside whole copies; each after a forced
 * collection: the script runs itself again with `--expose-gc`).
 *
 * Flags: `--pods N` (default 5000), `--namespaces N` (default 50).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { type KubeObject, NAMESPACES, PODS, Reflector } from "../../lib/kube/mod.ts";
import {
  type AuditedImage,
  auditedPart,
  type AuditFunction,
  type BucketClock,
  ReportController,
  type WorkloadCopyStats,
} from "../../lib/reports/mod.ts";
import { FakeKubeApi } from "../fakes/kube_api.ts";
import { fakeKubeClient } from "../fakes/kube_transport.ts";
import { realisticPod } from "./_pod_shapes.ts";

// deno-lint-ignore no-console
const print = console.log;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  const status = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--v8-flags=--expose-gc", new URL(import.meta.url).pathname, ...Deno.args],
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  Deno.exit(status.code);
}
const { values } = parseArgs({
  args: Deno.args,
  options: {
    pods: { type: "string", default: "5000" },
    namespaces: { type: "string", default: "50" },
  },
});
const PODS_COUNT = Number(values.pods);
const NS_COUNT = Number(values.namespaces);

/** As the API server stores a running Pod: its status and the managers' field sets. */
function storedPod(i: number): KubeObject {
  const namespace = `ns${i % NS_COUNT}`;
  const pod = realisticPod(`checkout-${i}`, namespace, {
    init: `registry.example.com/shop/migrate:${i % 100}`,
    containers: [
      `registry.example.com/shop/checkout:${i % 100}`,
      "registry.example.com/mesh/envoy:1.30",
      "registry.example.com/ops/log-shipper:3",
    ],
  }) as KubeObject;
  const fields = (n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, k) => [`f:field${k}`, {}]));
  return {
    ...pod,
    metadata: {
      ...pod.metadata,
      managedFields: [
        { manager: "kube-controller-manager", operation: "Update", fieldsV1: fields(60) },
        { manager: "kubelet", operation: "Update", subresource: "status", fieldsV1: fields(40) },
      ],
    },
    status: {
      phase: "Running",
      podIP: "10.0.0.1",
      conditions: ["Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({
        type,
        status: "True",
        lastTransitionTime: "2026-11-01T00:00:00Z",
      })),
      containerStatuses: ["checkout", "envoy-proxy", "log-shipper"].map((name) => ({
        name,
        ready: true,
        restartCount: 0,
        image: "registry.example.com/shop/app:1",
        imageID: `registry.example.com/shop/app@sha256:${"ab".repeat(32)}`,
        containerID: `containerd://${"cd".repeat(32)}`,
        state: { running: { startedAt: "2026-11-01T00:00:00Z" } },
      })),
    },
  };
}

const api = new FakeKubeApi();
for (let n = 0; n < NS_COUNT; n++) api.seed(NAMESPACES, { metadata: { name: `ns${n}` } });
for (let i = 0; i < PODS_COUNT; i++) api.seed(PODS, storedPod(i));
const client = fakeKubeClient((request) => api.transport().open(request));
const podBytes = JSON.stringify(api.list(PODS, "ns0")[0]).length;

let time = 0;
const sleepers = new Set<{ due: number; done: () => void }>();
const clock: BucketClock = {
  now: () => time,
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      const sleeper = { due: time + ms, done: resolve };
      sleepers.add(sleeper);
      signal?.addEventListener("abort", () => {
        sleepers.delete(sleeper);
        reject(signal.reason);
      }, { once: true });
    }),
};
const advance = (ms: number) => {
  time += ms;
  for (const s of [...sleepers]) if (s.due <= time) (sleepers.delete(s), s.done());
};

let audits = 0;
let audited = 0;
const audit: AuditFunction = async (lister, namespace, _signal, onImages) => {
  const out: AuditedImage[] = [];
  {
    for (const pod of await lister.list(PODS, namespace)) {
      const spec = pod.spec as { containers: { name: string; image: string }[] };
      for (const c of spec.containers) {
        out.push({
          namespace: pod.metadata.namespace!,
          workload: { kind: "Pod", name: pod.metadata.name },
          container: c.name,
          image: c.image,
          verdict: "pass",
          message: "signed",
        });
      }
    }
  }
  audits++;
  audited++;
  onImages(out);
};
let copyStats: (() => WorkloadCopyStats) | undefined;
const writes = { created: 0, updated: 0, unchanged: 0, deleted: 0, failed: 0 };
const controller = new ReportController({
  client,
  workloadTypes: [PODS],
  audit,
  reporter: "bench",
  clock,
  resyncMs: 600_000,
  debounceMs: 1000,
  observer: { written: (o) => writes[o]++, copies: (read) => (copyStats = read) },
});
const stop = new AbortController();

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 1));
}
const ms = (start: number) => `${(performance.now() - start).toFixed(0)} ms`;

let start = performance.now();
const running = controller.run(stop.signal);
const heap = () => (gc(), Deno.memoryUsage().heapUsed);
await until(() => writes.created === NS_COUNT);
const first = ms(start);
const counted = copyStats!();

start = performance.now();
advance(600_000);
await until(() => writes.unchanged === NS_COUNT);
const resync = ms(start);

const before = audited;
start = performance.now();
// Pod i lives in namespace i % NS_COUNT (storedPod): checkout-7's, whatever --namespaces says.
await client.delete(PODS, `ns${7 % NS_COUNT}`, "checkout-7");
advance(0);
await until(() => writes.updated === 1 || (advance(1000), false));
const oneChange = ms(start);
stop.abort();
await running;

/** The heap a Reflector's copies of the Pods hold, with `keep` or whole. */
async function copiesHeap(keep?: (o: KubeObject) => KubeObject): Promise<number> {
  const before = heap();
  const reflector = new Reflector(client, { name: "Pods", type: PODS, ...(keep ? { keep } : {}) });
  reflector.start();
  await reflector.whenSynced;
  const held = heap() - before;
  await reflector.stop();
  return held;
}
const keptHeap = await copiesHeap(auditedPart);
const wholeHeap = await copiesHeap();

print(
  `PolicyReport controller: ${PODS_COUNT} Pods (${podBytes} bytes of JSON each) in ${NS_COUNT} namespaces`,
);
print(`  first audit, list to ${NS_COUNT} reports written: ${first}`);
print(`  resync with nothing new (fingerprints, ${NS_COUNT} unchanged applies): ${resync}`);
print(
  `  one Pod deleted: ${
    audited - before
  } namespace audited again, its report updated: ${oneChange}`,
);
const perPod = (bytes: number) =>
  `${(bytes / 2 ** 20).toFixed(1)} MB (${(bytes / PODS_COUNT / 1024).toFixed(2)} KB a Pod)`;
print(`  heap of the controller's copies of the Pods (what audits read): ${perPod(keptHeap)}`);
print(`  heap of whole copies, for comparison: ${perPod(wholeHeap)}`);
print(
  `  bytes counted against the copies' bound: ${perPod(counted.bytes)} of ${
    (counted.maxBytes / 2 ** 20).toFixed(0)
  } MiB, ${counted.copies} copies, ${counted.refusedNamespaces} namespace(s) refused`,
);
print(`  audits: ${audits}; writes: ${JSON.stringify(writes)}`);
