/**
 * What deciding costs, warm, without HTTP (run by `deno task bench`, or alone with
 * `deno run -A tests/bench/decision_bench.ts`): the evaluator and the verifier with real keys,
 * real signatures and a real registry (the admission fuzz's world and decision path,
 * `tests/admission/_fuzz_world.ts` and `_fuzz_harness.ts`), their caches warm, deciding a Pod of one image, a Pod of four and a Deployment of ten, one review at a time
 * (the latency one review adds) and 16 at once (the CPU a review costs under load).
 *
 * This is the part of issue #28's "added p50" that is the decision's own: `pod_create_bench.ts`
 * measures the whole path through the API server, with toolkit's transport alone as a row.
 *
 * Flags: `--reviews N` (default 20000 a shape and mode). Profile with `deno run -A --cpu-prof`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { filePolicySource } from "../../lib/admission/file_source.ts";
import { parseAdmissionReview } from "../../lib/admission/review.ts";
import { DEFAULT_EXEMPT_LABEL } from "../../lib/admission/source.ts";
import { startFuzzWorld } from "../admission/_fuzz_world.ts";
import { createFuzzEvaluator } from "../admission/_fuzz_harness.ts";
import { median } from "./_stats.ts";

// deno-lint-ignore no-console
const print = console.log;
const { values } = parseArgs({
  args: Deno.args,
  options: { reviews: { type: "string", default: "20000" } },
});
const REVIEWS = Number(values.reviews);

await using world = await startFuzzWorld();
const source = filePolicySource(world.worlds[0]!.documents, { exemptLabel: DEFAULT_EXEMPT_LABEL });
const evaluator = createFuzzEvaluator(world, source, 3_600_000);

/** An AdmissionReview creating `kind` with containers running `images`. */
function review(kind: "Pod" | "Deployment", images: readonly string[]) {
  const containers = images.map((image, i) => ({ name: `c${i}`, image }));
  const spec = { containers, serviceAccountName: "default" };
  const object = kind === "Pod"
    ? { apiVersion: "v1", kind, metadata: { name: "p", namespace: "dev" }, spec }
    : {
      apiVersion: "apps/v1",
      kind,
      metadata: { name: "d", namespace: "dev" },
      spec: { replicas: 1, template: { metadata: { labels: { app: "d" } }, spec } },
    };
  const resource = kind === "Pod"
    ? { group: "", version: "v1", resource: "pods" }
    : { group: "apps", version: "v1", resource: "deployments" };
  return parseAdmissionReview({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "u",
      kind: { group: resource.group, version: "v1", kind },
      resource,
      namespace: "dev",
      operation: "CREATE",
      object,
    },
  });
}

// Images the world's first policies admit, one of each repository and tag; repeated to ten.
const admitted: string[] = [];
for (const image of world.favoured) {
  const decision = await evaluator.evaluate(review("Pod", [image]));
  if (decision.allowed && decision.patch.length === 1) admitted.push(image);
}
if (admitted.length === 0) throw new Error("no image of the fuzz world is admitted");
const pick = (n: number) => Array.from({ length: n }, (_, i) => admitted[i % admitted.length]!);
const shapes = [
  { name: "Pod, one image", request: review("Pod", pick(1)) },
  { name: "Pod, four images", request: review("Pod", pick(4)) },
  { name: "Deployment, ten images", request: review("Deployment", pick(10)) },
];

const SPACED = Math.min(REVIEWS, 1000);
print(
  `Warm decisions in-process (${admitted.length} distinct signed images; ${REVIEWS} reviews a shape back to back and 16 at once, ${SPACED} one every millisecond)`,
);
print(
  "| shape | back to back: µs a review | one every ms: median µs | 16 at once: µs of CPU a review |",
);
print("|---|---|---|---|");
for (const { name, request } of shapes) {
  const first = await evaluator.evaluate(request);
  if (!first.allowed) throw new Error(`${name} is not admitted: ${first.reasons.join("; ")}`);
  for (let i = 0; i < 2000; i++) await evaluator.evaluate(request); // warm-up (JIT)
  let start = performance.now();
  for (let i = 0; i < REVIEWS; i++) await evaluator.evaluate(request);
  const sequential = (performance.now() - start) * 1000 / REVIEWS;
  // As the webhook meets reviews: one now and then, the process idle in between.
  const spaced: number[] = [];
  for (let i = 0; i < SPACED; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    const at = performance.now();
    await evaluator.evaluate(request);
    spaced.push((performance.now() - at) * 1000);
  }
  start = performance.now();
  for (let i = 0; i < REVIEWS; i += 16) {
    await Promise.all(Array.from({ length: 16 }, () => evaluator.evaluate(request)));
  }
  const concurrent = (performance.now() - start) * 1000 / REVIEWS;
  print(
    `| ${name} | ${sequential.toFixed(1)} | ${median(spaced).toFixed(1)} | ${
      concurrent.toFixed(1)
    } |`,
  );
}
