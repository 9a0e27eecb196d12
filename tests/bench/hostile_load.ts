/**
 * Measures the webhook under hostile reviews (run alone: `deno run -A
 * tests/bench/hostile_load.ts`), each against a fresh webhook process from `--policies` files
 * that requires signatures for every image of a local registry:
 *
 * - one Pod review naming 20,000 distinct tags: how long the answer takes, what it says, how
 *   long `/healthz` (probed one request after another meanwhile) took at worst, peak RSS;
 * - 100 reviews, one after another, each of one distinct 2.9 MB invalid image string: RSS and
 *   JavaScript heap after them, peak RSS;
 * - 16 concurrent reviews of 256 distinct tags each (4,096 registry lookups at once): the
 *   slowest answer, `/healthz` at worst, peak RSS;
 * - hostile signature stores and registries (issue #21): 64 concurrent reviews, twice, of images
 *   whose stores answer 128 × 4 MiB, 128 × 200 KiB, endless bodies, slow drips and redirect
 *   loops and whose registry's manifests and tokens never end, with the release's runtime flags:
 *   peak RSS, `/healthz` at worst, and the longest event-loop stall the webhook saw;
 * - hostile policy patterns: 512 patterns of 20 wildcards each in one namespace and the pattern
 *   that froze the webhook when `*` was a backtracking `.*`, against 64 concurrent reviews of
 *   names of 200 characters: the same figures.
 *
 * It prints the figures; docs/benchmarks.md ("Hostile load") records them. Not a test: it
 * asserts nothing.
 *
 * @module
 */
import { startGpg, startRegistry } from "../env/mod.ts";
import { startWebhook } from "../admission/_webhook.ts";
import {
  HOSTILE_STORES,
  hostileImage,
  hostilePolicyFile,
  startHostileServer,
} from "../admission/_hostile_store.ts";
import {
  distinctTags,
  hugeInvalidImage,
  podReviewBody,
  postReview,
  probeHealthWhile,
  processMemory,
  signedPolicyFile,
} from "../admission/_hostile.ts";

const MB = 1024 * 1024;

function out(line: string): void {
  // deno-lint-ignore no-console
  console.log(line);
}

const dir = await Deno.makeTempDir({ prefix: "hostile-load-" });
await using registry = await startRegistry();
await using gpg = await startGpg();
const key = await gpg.generateKey({ type: "ed25519" });
const policies = `${dir}/policies.yaml`;
await Deno.writeTextFile(policies, signedPolicyFile(registry, key.publicKeyArmored));
const args = [
  "--policies",
  policies,
  "--insecure-registry",
  registry.host,
  "--registries.d",
  gpg.registriesD,
];

async function heapUsed(
  webhook: Awaited<ReturnType<typeof startWebhook>>,
  client: Deno.HttpClient,
) {
  const text = await (await fetch(`https://127.0.0.1:${webhook.port}/metrics`, { client })).text();
  return Number(/^deno_heap_used_bytes (\d+)/m.exec(text)?.[1] ?? NaN);
}

{
  await using webhook = await startWebhook(args);
  const client = Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
  const body = podReviewBody("tags-20000", distinctTags(registry, 20_000));
  const started = performance.now();
  const answer = postReview(webhook, client, body);
  const probes = await probeHealthWhile(webhook, answer);
  const result = await answer;
  const memory = processMemory(webhook.process.pid);
  const worst = Math.max(0, ...probes.map((p) => p.answered - p.sent));
  const during = probes.filter((p) => p.answered < result.at).length;
  out(`20,000 distinct tags (${(body.length / MB).toFixed(1)} MB review):`);
  out(
    `  answered in ${((result.at - started) / 1000).toFixed(1)} s, status ${result.status}, ` +
      `uid ${
        result.uid === "tags-20000" ? "intact" : String(result.uid)
      }, allowed ${result.allowed}`,
  );
  out(`  message: ${(result.message ?? "").slice(0, 160)}`);
  out(
    `  /healthz: ${probes.length} probes, ${during} answered before the review, ` +
      `slowest ${(worst / 1000).toFixed(2)} s`,
  );
  out(`  RSS ${Math.round(memory.rss / MB)} MB, peak ${Math.round(memory.peak / MB)} MB`);
  client.close();
}

{
  await using webhook = await startWebhook(args);
  const client = Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
  const reviews = 100;
  const size = 2.9 * 1e6;
  const started = performance.now();
  let status = "";
  for (let i = 0; i < reviews; i++) {
    const answer = await postReview(
      webhook,
      client,
      podReviewBody(`huge-${i}`, [
        hugeInvalidImage(i, size),
      ]),
    );
    if (i === 0) {
      status = `status ${answer.status}, message ${answer.message?.length ?? 0} chars`;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const memory = processMemory(webhook.process.pid);
  const heap = await heapUsed(webhook, client);
  out(`${reviews} reviews of one distinct 2.9 MB invalid image each (${status}):`);
  out(
    `  ${seconds.toFixed(1)} s; RSS ${Math.round(memory.rss / MB)} MB, peak ${
      Math.round(memory.peak / MB)
    } MB, heap used ${Math.round(heap / MB)} MB`,
  );
  client.close();
}
{
  await using webhook = await startWebhook(args);
  const client = Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
  const started = performance.now();
  const tags = distinctTags(registry, 16 * 256);
  const answers = Promise.all(
    Array.from(
      { length: 16 },
      (_, r) =>
        postReview(webhook, client, podReviewBody(`r${r}`, tags.slice(r * 256, (r + 1) * 256))),
    ),
  );
  const probes = await probeHealthWhile(webhook, answers);
  const results = await answers;
  const memory = processMemory(webhook.process.pid);
  const slowest = Math.max(...results.map((a) => a.at - started));
  const intact = results.every((a, r) => a.uid === `r${r}` && a.allowed === false);
  const worst = Math.max(0, ...probes.map((p) => p.answered - p.sent));
  out("16 concurrent reviews of 256 distinct tags each:");
  out(
    `  slowest answered in ${(slowest / 1000).toFixed(1)} s, all denied with their uid: ${intact}`,
  );
  out(`  first message: ${(results[0]?.message ?? "").slice(0, 160)}`);
  out(`  /healthz: ${probes.length} probes, slowest ${(worst / 1000).toFixed(2)} s`);
  out(`  RSS ${Math.round(memory.rss / MB)} MB, peak ${Math.round(memory.peak / MB)} MB`);
  client.close();
}
/** The webhook's event-loop figures from `/metrics`: the longest stall and counts over 10/50/100/500 ms. */
async function stalls(webhook: Awaited<ReturnType<typeof startWebhook>>, client: Deno.HttpClient) {
  const text = await (await fetch(`https://127.0.0.1:${webhook.port}/metrics`, { client })).text();
  const max = Number(/^toolkit_admission_event_loop_max_stall_seconds (\S+)$/m.exec(text)?.[1]);
  const busy = Number(
    /^toolkit_admission_event_loop_max_busy_stall_seconds (\S+)$/m.exec(text)?.[1],
  );
  const over = [10, 50, 100, 500].map((ms) =>
    Number(
      new RegExp(`^toolkit_admission_event_loop_stalls_total\\{over="${ms}ms"\\} (\\d+)$`, "m")
        .exec(text)?.[1] ?? NaN,
    )
  );
  return { maxMs: max * 1000, busyMs: busy * 1000, over };
}

/** Runs `reviews` against a fresh webhook (release runtime flags) and prints the figures. */
async function underLoad(
  title: string,
  webhookArgs: string[],
  reviews: (wave: number) => { uid: string; images: string[] }[],
): Promise<void> {
  await using webhook = await startWebhook(webhookArgs, undefined, {
    runtimeFlags: ["--v8-flags=--max-semi-space-size=4"],
  });
  const client = Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
  const before = await stalls(webhook, client);
  out(`${title}:`);
  for (const wave of [1, 2]) {
    const started = performance.now();
    const batch = reviews(wave);
    const uids = batch.map((r) => r.uid);
    const answers = Promise.all(
      batch.map((r) => postReview(webhook, client, podReviewBody(r.uid, r.images))),
    );
    const probes = await probeHealthWhile(webhook, answers);
    const results = await answers;
    const slowest = Math.max(...results.map((a) => a.at - started));
    const answered = results.filter((a, i) => a.status === 200 && a.uid === uids[i]).length;
    const worst = Math.max(0, ...probes.map((p) => p.answered - p.sent));
    const memory = processMemory(webhook.process.pid);
    const after = await stalls(webhook, client);
    const during = after.over.map((n, i) => n - before.over[i]!);
    out(
      `  wave ${wave}: ${answered}/${results.length} answered with their uid, slowest ${
        (slowest / 1000).toFixed(2)
      } s; /healthz ${probes.length} probes, slowest ${worst.toFixed(1)} ms; peak RSS ${
        Math.round(memory.peak / MB)
      } MB`,
    );
    out(
      `    event loop: longest stall since start ${after.maxMs.toFixed(1)} ms, of it the ` +
        `webhook's own CPU ${after.busyMs.toFixed(1)} ms (at start ${before.maxMs.toFixed(1)} / ${
          before.busyMs.toFixed(1)
        } ms); stalls during the load over 10/50/100/500 ms: ${during.join("/")}`,
    );
  }
  client.close();
}

{
  await using server = await startHostileServer();
  const stores = `${dir}/hostile-stores.yaml`;
  await Deno.writeTextFile(stores, hostilePolicyFile(server, key.publicKeyArmored));
  const kinds = [...HOSTILE_STORES, "registry", "token"] as const;
  await underLoad(
    "64 concurrent reviews against hostile signature stores and registries, twice",
    ["--policies", stores, "--insecure-registry", server.host, "--budget", "4s"],
    (wave) =>
      Array.from({ length: 64 }, (_, i) => {
        const kind = kinds[i % kinds.length]!;
        const image = kind === "registry" || kind === "token"
          ? `${server.host}/${kind}/app:w${wave}-${i}`
          : hostileImage(server, kind, wave * 1000 + i);
        return { uid: `w${wave}-${i}`, images: [image] };
      }),
  );
  out(`  the hostile server sent ${Math.round(server.sentBytes / MB)} MB in all`);
}

{
  const patterns = `${dir}/hostile-patterns.yaml`;
  const many = Array.from(
    { length: 511 },
    (_, i) => `    - name: "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*c${i}*b"`,
  );
  await Deno.writeTextFile(
    patterns,
    `apiVersion: toolkit.dev/v1
kind: ImagePolicy
metadata: { name: hostile, namespace: dev }
spec:
  repositories:
    - name: "evil.io/*a*a*a*a*a*a*a*a*b"
${many.join("\n")}
`,
  );
  await underLoad(
    "64 concurrent reviews of 200-character names against 512 patterns of 20 wildcards, twice",
    ["--policies", patterns],
    (wave) =>
      Array.from({ length: 64 }, (_, i) => ({
        uid: `p${wave}-${i}`,
        images: Array.from(
          { length: 4 },
          (_, j) => `evil.io/${"a".repeat(200)}:w${wave}-${i}-${j}b`, // passes first and last pieces, scanned to its end
        ),
      })),
  );
}
await Deno.remove(dir, { recursive: true });
