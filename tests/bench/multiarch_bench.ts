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
import { parseArgs } from "node:util";
import { findTool } from "../env/tools.ts";
import {
  freePort,
  issueCert,
  LOOPBACK_SANS,
  makeCA,
  type ManagedProcess,
  startRegistry,
} from "../env/mod.ts";
import { buildOciLayout, skopeoPush } from "../env/oci_layout.ts";
import { pushCosignSignatures } from "../fakes/cosign_registry.ts";
import { cosignPayload, legacySignature, testKeyPair } from "../fakes/sigstore_instance.ts";
import { OCI_INDEX } from "../../lib/registry/media_types.ts";
import { median } from "./_stats.ts";
import { startPolicyWebhook } from "./_policy_webhook.ts";

const root = new URL("../../", import.meta.url).pathname;
const { values } = parseArgs({
  args: Deno.args,
  options: {
    reviews: { type: "string", default: "50" },
    rtt: { type: "string", default: "10" },
    "no-write": { type: "boolean" },
  },
});
const reviews = Number(values.reviews);
const rttMs = Number(values.rtt);

function out(line: string): void {
  // deno-lint-ignore no-console
  console.log(line);
}

const missing = ["docker-registry", "skopeo", "openssl"].filter((tool) =>
  findTool(tool) === undefined
);
if (missing.length > 0) {
  out(`multiarch_bench: ${missing.join(", ")} not installed (tests/env/provision.sh); skipped`);
  Deno.exit(0);
}

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
  let requests = 0;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const port = freePort();
  const proxy = `127.0.0.1:${port}`;
  server = Deno.serve(
    { hostname: "127.0.0.1", port, signal: controller.signal, onListen() {} },
    async (request) => {
      const url = new URL(request.url);
      await sleep(rttMs);
      requests++;
      const headers = new Headers();
      for (const name of ["accept", "authorization"]) {
        const value = request.headers.get(name);
        if (value !== null) headers.set(name, value);
      }
      const answer = await fetch(`${registry.url}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        redirect: "manual",
      });
      return new Response(request.method === "HEAD" ? null : answer.body, {
        status: answer.status,
        headers: answer.headers,
      });
    },
  );

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
    `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
${
      CASES.map((c) =>
        `    - name: "${proxy}/${repo(c)}"
      policy: { simple: { requirements: [{ type: sigstoreSigned, keySecret: cosign, multiArch: ${c.rule} }] } }`
      ).join("\n")
    }
---
apiVersion: v1
kind: Secret
metadata: { name: cosign, namespace: toolkit-system }
stringData:
  key: |
${key.publicPem.trimEnd().split("\n").map((l) => `    ${l}`).join("\n")}
`,
  );
  const review = (c: Case) =>
    JSON.stringify({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: {
        uid: crypto.randomUUID(),
        kind: { group: "", version: "v1", kind: "Pod" },
        resource: { group: "", version: "v1", resource: "pods" },
        name: "app",
        namespace: "bench",
        operation: "CREATE",
        userInfo: { username: "bench" },
        object: {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: "app", namespace: "bench" },
          spec: { containers: [{ name: "app", image: `${proxy}/${repo(c)}:1` }] },
        },
      },
    });

  const ca = await makeCA(dir, "bench-ca");
  const cert = await issueCert(dir, ca, { name: "serving", cn: "webhook", sans: LOOPBACK_SANS });
  const client = Deno.createHttpClient({ caCerts: [ca.certPem] });
  const startWebhook = async (extra: string[], name: string) => {
    const hook = await startPolicyWebhook({
      dir,
      name,
      certFile: cert.certFile,
      keyFile: cert.keyFile,
      client,
      args: ["--policies", `${dir}/policies.yaml`, "--insecure-registry", proxy, ...extra],
    });
    started.push(hook.process);
    return hook;
  };
  const admit = async (url: string, c: Case): Promise<number> => {
    const begun = performance.now();
    const r = await fetch(url, { method: "POST", body: review(c), client });
    const answer = await r.json();
    const took = performance.now() - begun;
    if (answer.response?.allowed !== true) {
      throw new Error(`${repo(c)} was not admitted: ${JSON.stringify(answer.response?.status)}`);
    }
    return took;
  };
  interface Row {
    readonly c: Case;
    readonly mode: "cold" | "warm";
    readonly p50: number;
    readonly p99: number;
    readonly requests: number;
  }
  const measure = async (url: string, c: Case, mode: Row["mode"]): Promise<Row> => {
    await admit(url, c); // the first, which loads the sigstore libraries or fills the caches
    const before = requests;
    const times: number[] = [];
    for (let i = 0; i < reviews; i++) times.push(await admit(url, c));
    times.sort((a, b) => a - b);
    return {
      c,
      mode,
      p50: median(times),
      p99: times[Math.min(times.length - 1, Math.ceil(0.99 * times.length) - 1)]!,
      requests: (requests - before) / reviews,
    };
  };
  const rows: Row[] = [];
  const coldHook = await startWebhook(["--cache-ttl", "0", "--digest-cache-ttl", "0"], "cold");
  for (const c of CASES) rows.push(await measure(coldHook.url, c, "cold"));
  await coldHook.process.stop();
  const warmHook = await startWebhook([], "warm");
  for (const c of CASES) rows.push(await measure(warmHook.url, c, "warm"));
  await warmHook.process.stop();
  client.close();

  const f = (n: number) => n.toFixed(1);
  const cpu = new TextDecoder().decode(
    (await new Deno.Command("sh", {
      args: ["-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"],
      stdout: "piped",
    }).output()).stdout,
  ).trim();
  const rowOf = (size: Size, rule: Rule, mode: Row["mode"]) =>
    rows.find((r) => r.c.size === size && r.c.rule === rule && r.mode === mode)!;
  const delta = (size: Size) =>
    rowOf(size, "everyPlatform", "cold").p50 - rowOf(size, "index", "cold").p50;
  const load = Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(", ");
  const section = [
    "## Multi-platform images",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} by \`tests/bench/multiarch_bench.ts\` on ${
      cpu || "an unknown CPU"
    } (${navigator.hardwareConcurrency} cores), Deno ${Deno.version.deno}; load average at the end ${load}.`,
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
  if (!values["no-write"]) {
    await writeSection(`${root}docs/benchmarks.md`, section);
    await new Deno.Command(Deno.execPath(), { args: ["fmt", "-q", `${root}docs/benchmarks.md`] })
      .output();
  }
  controller.abort();
  await server.finished;
} finally {
  controller.abort();
  for (const p of started) await p.stop();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

/** Replaces this benchmark's section of the file (up to the next `## `), or appends it. */
async function writeSection(path: string, section: string): Promise<void> {
  const text = await Deno.readTextFile(path);
  const heading = "## Multi-platform images";
  const start = text.indexOf(heading);
  if (start < 0) {
    await Deno.writeTextFile(path, `${text.trimEnd()}\n\n${section}`);
    return;
  }
  const next = text.indexOf("\n## ", start + 1);
  const rest = next < 0 ? "" : text.slice(next + 1);
  await Deno.writeTextFile(path, `${text.slice(0, start)}${section}${rest ? `\n${rest}` : ""}`);
}
