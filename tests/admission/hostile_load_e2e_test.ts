/**
 * The webhook under hostile load: the real `webhook/main.ts` process, serving from `--policies`
 * files (every image of the test registry must be signed), sent hostile AdmissionReviews
 * straight over HTTPS, and a Pod naming too many images through the real kube-apiserver.
 *
 * - `/metrics` shows every cache's size and bounds, and the limits;
 * - 100 reviews of distinct 2.9 MB invalid image strings leave the process's memory, the
 *   answers and the log bounded;
 * - a review of 20,000 distinct tags is denied with its uid, within the webhook's own budget,
 *   and `/healthz`, probed meanwhile, answers within that budget too.
 *
 * No assertion is about time except the webhook's own budget (`--budget`).
 */
import assert from "node:assert/strict";
import { type ClusterOptions, e2eSkipReason } from "../env/mod.ts";
import {
  createNamespaces,
  eventually,
  kubectlOk,
  podManifest,
  WEBHOOK_NAME,
  webhookConfiguration,
} from "./_webhook.ts";
import {
  distinctTags,
  hugeInvalidImage,
  podReviewBody,
  postReview,
  probeHealthWhile,
  processMemory,
  signedPolicyFile,
} from "./_hostile.ts";
import { startWorld } from "./_world.ts";

const MB = 1024 * 1024;
const BUDGET_MS = 3000;
/** Far above what the bounded webhook holds (about 140 MB at its peak), far below the old 520 MB. */
const RSS_BOUND = 384 * MB;

/**
 * The webhook of a `--policies` file (not the cluster's policies, not registered with the API
 * server) on a world of a registry, a gpg home and `cluster`; stopped with the world.
 */
async function hostileSetup(cluster: ClusterOptions | false) {
  const world = await startWorld({ cluster });
  try {
    const { registry } = world;
    const key = await world.signer();
    const webhook = await world.startWebhook({
      policies: await world.file("policies.yaml", signedPolicyFile(registry, key.publicKeyArmored)),
      insecureRegistries: [registry.host],
      args: ["--budget", `${BUDGET_MS}ms`],
    });
    const client = Deno.createHttpClient({ caCerts: [webhook.ca.certPem] });
    world.use({ [Symbol.asyncDispose]: () => Promise.resolve(client.close()) });
    return {
      world,
      registry,
      webhook,
      client,
      [Symbol.asyncDispose]: () => world[Symbol.asyncDispose](),
    };
  } catch (error) {
    await Promise.resolve(world[Symbol.asyncDispose]()).catch(() => {});
    throw error;
  }
}

Deno.test({
  name: "the webhook stays bounded under hostile AdmissionReviews sent straight to it",
  ignore: e2eSkipReason(["docker-registry", "gpg", "skopeo", "openssl"]) !== undefined,
  fn: async (t) => {
    await using env = await hostileSetup(false);
    const { registry, webhook, client } = env;
    const metrics = async () =>
      await (await fetch(`https://127.0.0.1:${webhook.port}/metrics`, { client })).text();

    await t.step("/metrics shows every cache's size and bound, and the limits", async () => {
      const text = await metrics();
      for (
        const cache of ["parse", "verdict", "digest", "registry-token", "registry-client"]
      ) {
        assert.match(
          text,
          new RegExp(`^toolkit_admission_cache_entries\\{cache="${cache}"\\} \\d+$`, "m"),
        );
        assert.match(
          text,
          new RegExp(`^toolkit_admission_cache_max_entries\\{cache="${cache}"\\} [1-9]\\d*$`, "m"),
        );
      }
      assert.match(text, /^toolkit_admission_cache_max_bytes\{cache="parse"\} [1-9]\d*$/m);
      assert.match(text, /^toolkit_admission_limit\{limit="images_per_review"\} 256$/m);
      assert.match(text, /^toolkit_admission_limit\{limit="verifications_in_flight"\} 64$/m);
      assert.match(text, /^toolkit_admission_limit\{limit="request_bytes"\} 3145728$/m);
      assert.match(text, /^toolkit_admission_verifications_in_flight 0$/m);
      assert.match(text, /^toolkit_admission_limit\{limit="image_read_bytes"\} 1048576$/m);
      assert.match(text, /^toolkit_admission_read_pool_bytes\{state="capacity"\} 67108864$/m);
      assert.match(text, /^toolkit_admission_event_loop_max_stall_seconds [0-9.e-]+$/m);
    });

    await t.step(
      "100 reviews of distinct 2.9 MB invalid images leave memory, answers and log bounded",
      async () => {
        const logBefore = (await Deno.stat(`${webhook.dir}/webhook.log`)).size;
        for (let i = 0; i < 100; i++) {
          const answer = await postReview(
            webhook,
            client,
            podReviewBody(`huge-${i}`, [hugeInvalidImage(i, 2_900_000)]),
          );
          assert.equal(answer.status, 200);
          assert.equal(answer.uid, `huge-${i}`);
          assert.equal(answer.allowed, false);
          assert.ok((answer.message ?? "").length < 4096, `${answer.message?.length} characters`);
          assert.match(answer.message ?? "", /invalid image name: .*…\(2900000 bytes\)/);
        }
        const rss = processMemory(webhook.process.pid).rss;
        assert.ok(rss < RSS_BOUND, `RSS ${Math.round(rss / MB)} MB`);
        const logged = (await Deno.stat(`${webhook.dir}/webhook.log`)).size - logBefore;
        assert.ok(logged < 1 * MB, `${logged} bytes of log for 100 reviews`);
        assert.match(await metrics(), /^toolkit_admission_cache_entries\{cache="parse"\} 0$/m);
      },
    );

    await t.step(
      "a review of 20,000 distinct tags is denied within the budget; /healthz answers meanwhile",
      async () => {
        const body = podReviewBody("tags-20000", distinctTags(registry, 20_000));
        const sent = performance.now();
        const answer = postReview(webhook, client, body);
        const probes = await probeHealthWhile(webhook, answer);
        const result = await answer;
        assert.equal(result.status, 200);
        assert.equal(result.uid, "tags-20000");
        assert.equal(result.allowed, false);
        assert.equal(
          result.message,
          "policy denied the request: the object names 20000 distinct images; at most 256 are checked per request",
        );
        assert.ok(result.at - sent < BUDGET_MS, "answered within the webhook's budget");
        assert.ok(probes.length > 0 && probes.every((p) => p.ok));
        for (const probe of probes) {
          assert.ok(probe.answered - probe.sent < BUDGET_MS, "/healthz answered within the budget");
        }
        const rss = processMemory(webhook.process.pid).rss;
        assert.ok(rss < RSS_BOUND, `RSS ${Math.round(rss / MB)} MB`);
      },
    );
  },
});

Deno.test({
  name: "a Pod naming more images than the bound is denied through the API server",
  ignore: e2eSkipReason() !== undefined,
  fn: async () => {
    await using env = await hostileSetup({});
    const { registry, webhook } = env;
    const cluster = env.world.cluster;
    await createNamespaces(cluster, ["dev"]);
    await kubectlOk(cluster, ["apply", "-f", "-"], webhookConfiguration(webhook.url, webhook.ca));
    const many = podManifest("many", "dev", { containers: distinctTags(registry, 300) });
    let stderr = "";
    await eventually("the API server to call the webhook", async () => {
      const r = await cluster.kubectl(["create", "--dry-run=server", "-f", "-"], { stdin: many });
      stderr = r.stderr;
      return r.code !== 0 && r.stderr.includes(WEBHOOK_NAME);
    });
    assert.match(
      stderr,
      /policy denied the request: the object names 300 distinct images; at most 256 are checked per request/,
    );
  },
});
