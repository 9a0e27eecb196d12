/**
 * Benchmark of multi-platform images (issue #36; run by `deno task bench`, or alone with
 * `deno run -A tests/bench/multiarch_bench.ts`): the latency of `POST /admit` for a Pod of one
 * index of two or of eight platform images, each platform and the index signed with cosign
 * (legacy `.sig`, ECDSA P-256), under `multiArch: index` (the index's signature alone, as before)
 * and `multiArch: everyPlatform` (every platform's), cold (verdict and digest caches off) and warm
 * (caches on). Every registry request goes through a loopback proxy that delays it by `--rtt` ms
 * (default 10) and counts it.
 *
 * The figures are printed and written into the "Multi-platform images" section of
 * `docs/benchmarks.md`. Flags: `--reviews N` (default 50 per row), `--rtt MS`, `--no-write`.
 *
 * @module
 */
import { type ManagedProcess, startRegistry } from "../env/mod.ts";
import { buildOciLayout, skopeoPush } from "../env/oci_layout.ts";
import { pushCosignSignatures } from "../fakes/cosign_registry.ts";
import { cosignPayload, legacySignature, testKeyPair } from "../fakes/sigstore_instance.ts";
import { OCI_INDEX } from "../../lib/registry/media_types.ts";
import {
  benchWebhooks,
  CACHES_OFF,
  latencyBenchFlags,
  measuredLine,
  out,
  podReview,
  policiesYaml,
  type ProxyCounts,
  skipWithout,
  startDelayingProxy,
  timeReviews,
  writeBenchSection,
} from "./_harness.ts";

const { reviews, rttMs, write } = latencyBenchFlags(50);

skipWithout("multiarch_bench", ["docker-registry", "skopeo", "openssl"]);

const HEADING = "## Multi-platform images";
const ARCHES = ["amd64", "arm64", "arm", "386", "ppc64le", "s390x", "riscv64", "mips64le"];
const SIZES = [2, 8] as const;
const RULES = ["index", "everyPlatform"] as const;
type Size = typeof SIZES[number];
type Rule = typeof RULES[number];
interface Case {
  readonly size: Size;
  readonly rule: Rule;
}
const CASES: Case[] = SIZES.flatMap((size) => RULES.map((rule) => ({ size, rule })));
const repo = (c: Case) => `bench/${c.rule === "index" ? "index" : "every"}-${c.size}`;

const dir = await Deno.makeTempDir({ prefix: "multiarch-bench-" });
const started: ManagedProcess[] = [];
await using registry = await startRegistry();
const controller = new AbortController();
let server: Deno.HttpServer | undefined;
try {
  const counts: ProxyCounts = { registry: 0, lookaside: 0 };
  const delaying = startDelayingProxy({
    upstream: registry.url,
    rttMs,
    signal: controller.signal,
    counts,
  });
  server = delaying.server;
  const proxy = delaying.host;

  // Each image pushed, its index and every platform signed (legacy cosign, one key).
  const key = testKeyPair();
  for (const c of CASES) {
    const layout = await buildOciLayout(dir, {
      name: repo(c).replace("/", "-"),
      content: `${repo(c)}\n`,
      platforms: ARCHES.slice(0, c.size),
    });
    const index = await skopeoPush(layout, `${registry.host}/${repo(c)}:1`, { home: dir });
    const answer = await fetch(`${registry.url}/v2/${repo(c)}/manifests/${index}`, {
      headers: { accept: OCI_INDEX },
    });
    const manifests = (await answer.json()).manifests as { digest: string }[];
    for (const digest of [index, ...manifests.map((m) => m.digest)]) {
      await pushCosignSignatures(registry.host, repo(c), digest, [
        legacySignature({ signer: { key }, payload: cosignPayload(`${proxy}/${repo(c)}`, digest) }),
      ]);
    }
  }
  await Deno.writeTextFile(
    `${dir}/policies.yaml`,
    policiesYaml(
      CASES.map((c) =>
        `    - name: "${proxy}/${repo(c)}"
      policy: { simple: { requirements: [{ type: sigstoreSigned, keySecret: cosign, multiArch: ${c.rule} }] } }`
      ).join("\n"),
      { cosign: key.publicPem },
    ),
  );
  const review = (c: Case) => podReview(`${proxy}/${repo(c)}:1`);

  const webhooks = await benchWebhooks(dir, `${dir}/policies.yaml`, started);
  const startWebhook = (extra: readonly string[], name: string) =>
    webhooks.start(name, ["--insecure-registry", proxy, ...extra]);
  const admit = (url: string, c: Case) => webhooks.admit(url, review(c), repo(c));
  interface Row {
    readonly c: Case;
    readonly mode: "cold" | "warm";
    readonly p50: number;
    readonly p99: number;
    readonly requests: number;
  }
  const measure = async (url: string, c: Case, mode: Row["mode"]): Promise<Row> => {
    await admit(url, c); // the first, which loads the sigstore libraries or fills the caches
    const before = counts.registry;
    const { p50, p99 } = await timeReviews(reviews, () => admit(url, c));
    return { c, mode, p50, p99, requests: (counts.registry - before) / reviews };
  };
  const rows: Row[] = [];
  const coldHook = await startWebhook(CACHES_OFF, "cold");
  for (const c of CASES) rows.push(await measure(coldHook.url, c, "cold"));
  await coldHook.process.stop();
  const warmHook = await startWebhook([], "warm");
  for (const c of CASES) rows.push(await measure(warmHook.url, c, "warm"));
  await warmHook.process.stop();
  webhooks.client.close();

  const f = (n: number) => n.toFixed(1);
  const rowOf = (size: Size, rule: Rule, mode: Row["mode"]) =>
    rows.find((r) => r.c.size === size && r.c.rule === rule && r.mode === mode)!;
  const delta = (size: Size) =>
    rowOf(size, "everyPlatform", "cold").p50 - rowOf(size, "index", "cold").p50;
  const section = [
    HEADING,
    "",
    await measuredLine("multiarch_bench.ts"),
    `One review at a time (${reviews} per row, after a first one) of a Pod with one image: an OCI index of 2 or 8 platform images in the local distribution registry, the index and each platform signed with cosign (legacy \`.sig\`, keyed ECDSA P-256), each registry request delayed by ${rttMs} ms in a loopback proxy that counts them. \`multiArch: index\` verifies the index's signature (as before); \`everyPlatform\` reads the index and verifies every platform's signature and that its manifest is there (one at a time on the review's slot, up to 4 at once with free slots: an idle webhook has them). Cold: verdict and digest caches off (\`--cache-ttl 0 --digest-cache-ttl 0\`); warm: caches on (the index's verdict, and each platform's by its digest).`,
    "",
    "| Image | Rule | Caches | p50 (ms) | p99 (ms) | Registry requests per review |",
    "|---|---|---|---|---|---|",
    ...rows.map((r) =>
      `| ${r.c.size} platforms | ${r.c.rule} | ${r.mode} | ${f(r.p50)} | ${f(r.p99)} | ${
        f(r.requests)
      } |`
    ),
    "",
    `A cold \`everyPlatform\` review pays the index's read (one round trip after the tag) and, per platform, the requests of a cold cosign review of one image (the platform manifest's HEAD, the \`.sig\` manifest, the referrers API and fallback tag asked at once, then the payload blob: two round trips), the platforms four at a time: at p50, two platforms cost ${
      f(delta(2))
    } ms more than the index alone, eight ${
      f(delta(8))
    } ms more (two rounds of four, and the CPU of ${
      f(rowOf(8, "everyPlatform", "cold").requests)
    } requests on this shared 2-core machine). A warm review costs what any warm review costs: the verdict of the index under the rule is remembered whole.`,
    "",
    "Reproduce with `deno run -A tests/bench/multiarch_bench.ts --reviews 50 --rtt 10`.",
    "",
  ].join("\n");
  out(section);
  if (write) await writeBenchSection(HEADING, section);
  controller.abort();
  await server.finished;
} finally {
  controller.abort();
  for (const p of started) await p.stop();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
