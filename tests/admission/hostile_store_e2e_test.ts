/**
 * Hostile signature stores and registries against the real `webhook/main.ts` process, run with
 * the runtime flags of the release build: 64 concurrent reviews, twice, of images whose
 * policies point at stores that answer 128 signatures of 4 MiB, 128 of 200 KiB, endless bodies,
 * slow drips and redirect loops, and at a registry whose manifests and tokens never end.
 *
 * Every review is denied with its uid and a reason that names the bound it met; the process's
 * peak resident memory stays under the chart's limit (256 MiB); `/healthz`, probed all along,
 * answers every time; the webhook's own event-loop monitor is read from `/metrics`. The timing
 * figures are printed, not asserted (tests/bench/hostile_load.ts measures them); the only time
 * bound asserted is the webhook's own budget.
 */
import { WEBHOOK_MEMORY_LIMIT } from "../../lib/admission/memory_budget.ts";
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { eventually, RELEASE_RUNTIME_FLAGS } from "./_webhook.ts";
import { startWorld } from "./_world.ts";
import { podReviewBody, postReview, probeHealthWhile, processMemory } from "./_hostile.ts";
import {
  HOSTILE_STORES,
  hostileImage,
  hostilePolicyFile,
  type HostileStore,
  startHostileServer,
} from "./_hostile_store.ts";

const MiB = 1024 * 1024;
// The figures go to the test's output; benchmarks measure them properly.
// deno-lint-ignore no-console
const report = (line: string) => console.log(line);
const BUDGET_MS = 4000;
/** The chart's memory limit of the admission path (lib/admission/memory_budget.ts). */
const CHART_MEMORY_LIMIT = WEBHOOK_MEMORY_LIMIT;

/** What each kind of hostile image is denied with. */
const EXPECTED: Readonly<Record<HostileStore | "registry" | "token", RegExp>> = {
  huge: /larger than the limit of 262144 bytes/,
  many: /passed the limit of 1 MiB read for one image/,
  endless: /larger than the limit of 262144 bytes|passed the limit of 1 MiB/,
  drip: /no answer within|did not finish within|budget/,
  loop: /redirect/i,
  registry: /passed the limit of 1 MiB read for one image|larger than/,
  token: /passed the limit of 1 MiB read for one image|larger than/,
};

Deno.test({
  name: "hostile signature stores and registries cannot take the webhook out of memory or time",
  ignore: e2eSkipReason(["gpg", "openssl"]) !== undefined,
  fn: async (t) => {
    // Keys to sign with, and no registry: the registry and stores are the hostile server's.
    await using world = await startWorld({ cluster: false, images: "keys" });
    const server = world.use(await startHostileServer());
    const key = await world.signer();
    const policies = await world.file(
      "policies.yaml",
      hostilePolicyFile(server, key.publicKeyArmored),
    );
    const webhook = await world.startWebhook({
      policies,
      insecureRegistries: [server.host],
      // The gpg home's registries.d is not the hostile stores': the policies name them.
      registriesD: false,
      args: ["--budget", `${BUDGET_MS}ms`],
      runtimeFlags: RELEASE_RUNTIME_FLAGS,
    });
    const client = Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
    try {
      const kinds = [...HOSTILE_STORES, "registry", "token"] as const;
      for (const wave of [1, 2]) {
        await t.step(
          `wave ${wave}: 64 concurrent reviews are denied, each naming its bound`,
          async () => {
            const reviews = Array.from({ length: 64 }, (_, i) => {
              const kind = kinds[i % kinds.length]!;
              const image = kind === "registry" || kind === "token"
                ? `${server.host}/${kind}/app:w${wave}-${i}`
                : hostileImage(server, kind, wave * 1000 + i);
              const uid = `w${wave}-${i}-${kind}`;
              const sent = performance.now();
              return postReview(webhook, client, podReviewBody(uid, [image])).then((answer) => ({
                kind,
                uid,
                answer,
                ms: answer.at - sent,
              }));
            });
            const all = Promise.all(reviews);
            const probes = await probeHealthWhile(webhook, all);
            const results = await all;
            for (const { kind, uid, answer, ms } of results) {
              assert.equal(answer.status, 200, `${uid}: ${answer.message}`);
              assert.equal(answer.uid, uid);
              assert.equal(answer.allowed, false, uid);
              assert.match(answer.message ?? "", EXPECTED[kind], `${uid}: ${answer.message}`);
              assert.ok(ms < BUDGET_MS + 2000, `${uid} answered in ${Math.round(ms)} ms`);
            }
            assert.ok(probes.length > 0 && probes.every((p) => p.ok), "/healthz answered ok");
            const memory = processMemory(webhook.process.pid);
            const metrics = await (await fetch(`https://127.0.0.1:${webhook.port}/metrics`, {
              client,
            })).text();
            const gauge = (name: string) =>
              Number(new RegExp(`^${name} ([0-9.e-]+)$`, "m").exec(metrics)?.[1]);
            const stall = gauge("toolkit_admission_event_loop_max_stall_seconds");
            const busy = gauge("toolkit_admission_event_loop_max_busy_stall_seconds");
            const slowestProbe = Math.max(...probes.map((p) => p.answered - p.sent));
            report(
              `wave ${wave}: peak RSS ${(memory.peak / MiB).toFixed(0)} MiB, ` +
                `slowest /healthz ${slowestProbe.toFixed(1)} ms over ${probes.length} probes, ` +
                `longest event-loop stall ${(stall * 1000).toFixed(1)} ms ` +
                `(${(busy * 1000).toFixed(1)} ms of it the webhook's own CPU), ` +
                `slowest review ${Math.max(...results.map((r) => r.ms)).toFixed(0)} ms, ` +
                `${(server.sentBytes / MiB).toFixed(0)} MiB sent by the hostile server`,
            );
            assert.ok(
              memory.peak < CHART_MEMORY_LIMIT,
              `peak RSS ${(memory.peak / MiB).toFixed(0)} MiB`,
            );
            // Work that outlived its review ends at its own deadline and gives its budget back.
            await eventually("the read pool to be given back", async () => {
              const text = await (await fetch(`https://127.0.0.1:${webhook.port}/metrics`, {
                client,
              })).text();
              return /^toolkit_admission_read_pool_bytes\{state="reserved"\} 0$/m.test(text);
            });
          },
        );
      }
      await t.step("the webhook stops promptly on SIGTERM under that load", async () => {
        const pending = Array.from({ length: 16 }, (_, i) =>
          postReview(
            webhook,
            client,
            podReviewBody(`term-${i}`, [hostileImage(server, "drip", 9000 + i)]),
          ).catch((error) => error));
        await new Promise((r) => setTimeout(r, 200));
        const sent = performance.now();
        Deno.kill(webhook.process.pid, "SIGTERM");
        const status = await webhook.process.status;
        const ms = performance.now() - sent;
        report(`stopped ${ms.toFixed(0)} ms after SIGTERM with 16 reviews in flight`);
        assert.ok(ms < BUDGET_MS + 3000, `stopped after ${Math.round(ms)} ms`);
        assert.equal(status.code, 0);
        await Promise.all(pending);
      });
    } finally {
      client.close();
    }
  },
});
