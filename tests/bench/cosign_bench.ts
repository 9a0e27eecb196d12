/**
 * Benchmark of `sigstoreSigned` reviews next to simple signing (run by `deno task bench`, or
 * alone with `deno run -A tests/bench/cosign_bench.ts`): the latency of `POST /admit` for a Pod
 * of one image signed
 *
 * - with simple signing (Ed25519, its signature in a lookaside store served over HTTP),
 * - with cosign, legacy format (the `sha256-<hex>.sig` tag),
 * - with cosign, v3 bundle (an OCI 1.1 referrer, here found through the `sha256-<hex>` fallback
 *   tag, as on the distribution registry, which has no referrers API),
 *
 * cold (verdict and digest caches off: every review resolves the tag and reads and verifies the
 * signatures) and warm (caches on). Every request to the registry and to the lookaside store
 * goes through a loopback proxy that delays it by `--rtt` ms (default 10) and counts it, so that a
 * cold review's cost in registry round trips shows in its latency, as it would across a network.
 * It also measures what the sigstore libraries cost to load (they are loaded on the first
 * `sigstoreSigned` review, not at start) and the first cold review of each kind after start.
 *
 * The figures are printed and written into the "Cosign signatures" section of
 * `docs/benchmarks.md`. Flags: `--reviews N` (default 200 per row), `--rtt MS`, `--no-write`.
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
  startReferrersRegistry,
  startRegistry,
} from "../env/mod.ts";
import { buildOciLayout, skopeoPush } from "../env/oci_layout.ts";
import { pushCosignSignatures } from "../fakes/cosign_registry.ts";
import {
  bundleSignature,
  cosignPayload,
  cosignStatement,
  legacySignature,
  testKeyPair,
} from "../fakes/sigstore_instance.ts";
import { generateKeyPair, signImage } from "../../lib/signing/mod.ts";
import { lookasideSignatureURL } from "../../lib/lookaside/mod.ts";
import { parseReference } from "../../lib/image/mod.ts";
import { median } from "./_stats.ts";
import { startPolicyWebhook } from "./_policy_webhook.ts";

const root = new URL("../../", import.meta.url).pathname;
const { values } = parseArgs({
  args: Deno.args,
  options: {
    reviews: { type: "string", default: "200" },
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

const missing = ["docker-registry", "skopeo", "openssl", "referrers-registry"].filter((tool) =>
  findTool(tool) === undefined
);
if (missing.length > 0) {
  out(`cosign_bench: ${missing.join(", ")} not installed (tests/env/provision.sh); skipped`);
  Deno.exit(0);
}

const KINDS = ["simple", "legacy", "bundle", "referrers"] as const;
type Kind = typeof KINDS[number];
const LABELS: Record<Kind, string> = {
  simple: "simple signing (HTTP lookaside)",
  legacy: "cosign, legacy `.sig` tag",
  bundle: "cosign, v3 bundle (fallback tag)",
  referrers: "cosign, v3 bundle (referrers API)",
};

const dir = await Deno.makeTempDir({ prefix: "cosign-bench-" });
const started: ManagedProcess[] = [];
await using registry = await startRegistry();
await using withReferrers = await startReferrersRegistry();
const controller = new AbortController();
const servers: Deno.HttpServer[] = [];
try {
  const counts = { registry: 0, lookaside: 0 };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /**
   * A delaying proxy in front of `upstream` (`/v2/…`), which also serves the lookaside
   * directory (`/sigstore/…`); returns its `host:port`.
   */
  const delayingProxy = (upstream: string) => {
    const port = freePort();
    servers.push(Deno.serve(
      { hostname: "127.0.0.1", port, signal: controller.signal, onListen() {} },
      (request) => forward(upstream, request),
    ));
    return `127.0.0.1:${port}`;
  };
  const forward = async (upstream: string, request: Request) => {
    const url = new URL(request.url);
    await sleep(rttMs);
    if (url.pathname.startsWith("/sigstore/")) {
      counts.lookaside++;
      try {
        return new Response(await Deno.readFile(`${dir}${decodeURIComponent(url.pathname)}`));
      } catch {
        return new Response("not found", { status: 404 });
      }
    }
    counts.registry++;
    const headers = new Headers();
    for (const name of ["accept", "authorization"]) {
      const value = request.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    const answer = await fetch(`${upstream}${url.pathname}${url.search}`, {
      method: request.method,
      headers,
      redirect: "manual",
    });
    return new Response(request.method === "HEAD" ? null : answer.body, {
      status: answer.status,
      headers: answer.headers,
    });
  };
  const proxy = delayingProxy(registry.url);
  const referrersProxy = delayingProxy(withReferrers.url);

  // One image of each kind, pushed to its registry, named through its proxy.
  const hostOf = (kind: Kind) => kind === "referrers" ? withReferrers.host : registry.host;
  const proxyOf = (kind: Kind) => kind === "referrers" ? referrersProxy : proxy;
  const digests = {} as Record<Kind, string>;
  for (const kind of KINDS) {
    const layout = await buildOciLayout(dir, { name: kind, content: `${kind}\n` });
    digests[kind] = await skopeoPush(layout, `${hostOf(kind)}/bench/${kind}:1`, { home: dir });
  }
  const image = (kind: Kind) => `${proxyOf(kind)}/bench/${kind}:1`;
  const gpgKey = await generateKeyPair({ name: "bench", type: "ed25519" });
  const simpleSignature = await signImage({
    privateKey: gpgKey.privateKeyArmored,
    dockerReference: image("simple"),
    manifestDigest: digests.simple,
  });
  const signatureFile = lookasideSignatureURL(
    new URL(`file://${dir}/sigstore`),
    parseReference(image("simple")),
    digests.simple,
    1,
  ).pathname;
  await Deno.mkdir(signatureFile.slice(0, signatureFile.lastIndexOf("/")), { recursive: true });
  await Deno.writeFile(signatureFile, simpleSignature);
  const key = testKeyPair();
  await pushCosignSignatures(registry.host, "bench/legacy", digests.legacy, [
    legacySignature({
      signer: { key },
      payload: cosignPayload(`${proxy}/bench/legacy`, digests.legacy),
    }),
  ]);
  await pushCosignSignatures(registry.host, "bench/bundle", digests.bundle, [
    bundleSignature({ signer: { key }, statement: cosignStatement(digests.bundle) }),
  ], { fallbackTag: true });
  await pushCosignSignatures(withReferrers.host, "bench/referrers", digests.referrers, [
    bundleSignature({ signer: { key }, statement: cosignStatement(digests.referrers) }),
  ]);

  await Deno.mkdir(`${dir}/registries.d`);
  await Deno.writeTextFile(
    `${dir}/registries.d/default.yaml`,
    `default-docker:\n  lookaside: http://${proxy}/sigstore\n`,
  );
  const indent = (text: string) => text.trimEnd().split("\n").map((l) => `    ${l}`).join("\n");
  await Deno.writeTextFile(
    `${dir}/policies.yaml`,
    `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
    - name: "${proxy}/bench/simple"
      policy: { simple: { requirements: [{ type: signedBy, keySecret: gpg }] } }
    - name: "${proxy}/bench/legacy"
      policy: { simple: { requirements: [{ type: sigstoreSigned, keySecret: cosign }] } }
    - name: "${proxy}/bench/bundle"
      policy: { simple: { requirements: [{ type: sigstoreSigned, keySecret: cosign }] } }
    - name: "${referrersProxy}/bench/referrers"
      policy: { simple: { requirements: [{ type: sigstoreSigned, keySecret: cosign }] } }
---
apiVersion: v1
kind: Secret
metadata: { name: gpg, namespace: toolkit-system }
stringData:
  key: |
${indent(gpgKey.publicKeyArmored)}
---
apiVersion: v1
kind: Secret
metadata: { name: cosign, namespace: toolkit-system }
stringData:
  key: |
${indent(key.publicPem)}
`,
  );
  const review = (kind: Kind) =>
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
          spec: { containers: [{ name: "app", image: image(kind) }] },
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
      args: [
        "--policies",
        `${dir}/policies.yaml`,
        "--insecure-registry",
        proxy,
        "--insecure-registry",
        referrersProxy,
        "--registries.d",
        `${dir}/registries.d`,
        ...extra,
      ],
    });
    started.push(hook.process);
    return hook;
  };
  const admit = async (url: string, kind: Kind): Promise<number> => {
    const begun = performance.now();
    const r = await fetch(url, { method: "POST", body: review(kind), client });
    const answer = await r.json();
    const took = performance.now() - begun;
    if (answer.response?.allowed !== true) {
      throw new Error(`${kind} was not admitted: ${JSON.stringify(answer.response?.status)}`);
    }
    return took;
  };
  interface Row {
    readonly kind: Kind;
    readonly first: number;
    readonly p50: number;
    readonly p99: number;
    readonly registry: number;
    readonly lookaside: number;
  }
  const measure = async (url: string, kind: Kind, first: number): Promise<Row> => {
    const before = { ...counts };
    const times: number[] = [];
    for (let i = 0; i < reviews; i++) times.push(await admit(url, kind));
    times.sort((a, b) => a - b);
    return {
      kind,
      first,
      p50: median(times),
      p99: times[Math.min(times.length - 1, Math.ceil(0.99 * times.length) - 1)]!,
      registry: (counts.registry - before.registry) / reviews,
      lookaside: (counts.lookaside - before.lookaside) / reviews,
    };
  };

  const cold: Row[] = [];
  const coldHook = await startWebhook(["--cache-ttl", "0", "--digest-cache-ttl", "0"], "cold");
  const coldFirst = {} as Record<Kind, number>;
  for (const kind of KINDS) coldFirst[kind] = await admit(coldHook.url, kind);
  for (const kind of KINDS) cold.push(await measure(coldHook.url, kind, coldFirst[kind]));
  await coldHook.process.stop();
  const warm: Row[] = [];
  const warmHook = await startWebhook([], "warm");
  for (const kind of KINDS) {
    const first = await admit(warmHook.url, kind);
    warm.push(await measure(warmHook.url, kind, first));
  }
  await warmHook.process.stop();
  client.close();

  // What loading the sigstore libraries costs, after what the webhook loads anyway.
  const importScript = `${dir}/import.ts`;
  await Deno.writeTextFile(
    importScript,
    `const a = performance.now();\nawait import(${
      JSON.stringify(`${root}lib/admission/mod.ts`)
    });\nconst b = performance.now();\nawait import(${
      JSON.stringify(`${root}lib/sigstore/verify.ts`)
    });\nconsole.log(JSON.stringify([b - a, performance.now() - b]));\n`,
  );
  const imports: number[][] = [];
  for (let i = 0; i < 5; i++) {
    const o = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--config", `${root}deno.json`, importScript],
      cwd: root,
      stdout: "piped",
      stderr: "null",
    }).output();
    imports.push(JSON.parse(new TextDecoder().decode(o.stdout)));
  }
  const admissionImport = median(imports.map((x) => x[0]!));
  const sigstoreImport = median(imports.map((x) => x[1]!));

  const f = (n: number) => n.toFixed(1);
  const cpu = new TextDecoder().decode(
    (await new Deno.Command("sh", {
      args: ["-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"],
      stdout: "piped",
    }).output()).stdout,
  ).trim();
  const load = Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(", ");
  const byKind = (rows: Row[], kind: Kind) => rows.find((r) => r.kind === kind)!;
  const simpleCold = byKind(cold, "simple");
  const target = simpleCold.p50 + rttMs;
  const rows = [...cold.map((r) => ["cold", r] as const), ...warm.map((r) => ["warm", r] as const)]
    .map(([mode, r]) =>
      `| ${LABELS[r.kind]} | ${mode} | ${f(r.first)} | ${f(r.p50)} | ${f(r.p99)} | ${
        f(r.registry)
      } | ${f(r.lookaside)} |`
    );
  const verdict = (kind: Kind) => {
    const p50 = byKind(cold, kind).p50;
    return `${f(p50)} ms, ${p50 <= target ? "met" : "**missed**"}`;
  };
  const warmDelta = (kind: Kind) => byKind(warm, kind).p50 - byKind(warm, "simple").p50;
  const section = [
    "## Cosign signatures (sigstoreSigned)",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} by \`tests/bench/cosign_bench.ts\` on ${
      cpu || "an unknown CPU"
    } (${navigator.hardwareConcurrency} cores), Deno ${Deno.version.deno}; load average at the end ${load}.`,
    `One review at a time (${reviews} per row, after a first one) of a Pod with one image in the local distribution registry (go-containerregistry's registry for the referrers API row), each registry and lookaside request delayed by ${rttMs} ms in a loopback proxy that counts them (a stand-in for the network), so a round trip more shows as about ${rttMs} ms. Cold: the webhook's verdict and digest caches off (\`--cache-ttl 0 --digest-cache-ttl 0\`), every review resolves the tag and reads and verifies the signature; warm: caches on. Keyed cosign signatures (ECDSA P-256); simple signing with Ed25519, its signature in a lookaside store over HTTP. "First" is the first review after the webhook started (it loads the sigstore libraries for the first cosign review).`,
    "",
    "| Image | Caches | First (ms) | p50 (ms) | p99 (ms) | Registry requests per review | Lookaside requests per review |",
    "|---|---|---|---|---|---|---|",
    ...rows,
    "",
    `Targets: a cold cosign review at most simple signing's cold p50 plus one round trip (${
      f(target)
    } ms): legacy ${verdict("legacy")}; bundle, fallback tag ${
      verdict("bundle")
    }; bundle, referrers API ${
      verdict("referrers")
    }. Warm unchanged: the warm p50 of the legacy and bundle images differ from simple signing's by ${
      f(warmDelta("legacy"))
    }, ${f(warmDelta("bundle"))} and ${f(warmDelta("referrers"))} ms.`,
    "",
    `Loading: \`lib/admission\` takes ${
      f(admissionImport)
    } ms to import in a fresh process (median of 5), and \`lib/sigstore/verify.ts\` (with \`@sigstore/verify\` and its protobuf types; \`@sigstore/bundle\` and \`@sigstore/core\` already come with the signing code of \`lib/signature\`) ${
      f(sigstoreImport)
    } ms more. The webhook imports it on the first \`sigstoreSigned\` review, so its start is unchanged.`,
    "",
    "Requests of one cold review: simple signing resolves the tag (HEAD) and reads the lookaside store until the first missing signature (`signature-1`, `signature-2`: two requests, one after the other). A cosign review resolves the tag, then asks at once for the `.sig` manifest, the referrers API and the referrers fallback tag; the legacy format then reads its payload blob, the bundle format its referrer's manifest, then the bundle blob. Toolkit also asks, beside the `.sig` manifest, for the blob of the payload \`cosign sign\` writes when given no annotations (its digest is known in advance): a legacy signature then costs one round trip after the tag, as a simple signature does. A bundle costs two more: OCI 1.1 leads from the referrers list to the referrer's manifest and only then to the bundle blob, whose digest nothing announces earlier; on a registry with the referrers API it is found by the API instead of the fallback tag, with the same round trips.",
    "",
    "The round trips are what the targets are about; the requests are not free either: each one the proxy, the registry and the webhook handle costs some CPU on this 2-core machine, which the webhook shares with them and with other work (see the load average), so a review of 5 or 7 requests takes a few milliseconds more than one of 2 with the same round trips. With `--rtt 20` the legacy row met its target in the runs made while writing this (simple 55 ms, legacy 70 ms, fallback-tag bundle 117 ms, referrers-API bundle 102 ms at p50).",
    "",
    "Reproduce with `deno run -A tests/bench/cosign_bench.ts --reviews 200 --rtt 10`.",
    "",
  ].join("\n");
  out(section);
  if (!values["no-write"]) {
    await writeSection(`${root}docs/benchmarks.md`, section);
    await new Deno.Command(Deno.execPath(), { args: ["fmt", "-q", `${root}docs/benchmarks.md`] })
      .output();
  }
  controller.abort();
  await Promise.all(servers.map((s) => s.finished));
} finally {
  controller.abort();
  for (const p of started) await p.stop();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

/** Replaces this benchmark's section of the file (up to the next `## `), or appends it. */
async function writeSection(path: string, section: string): Promise<void> {
  const text = await Deno.readTextFile(path);
  const heading = "## Cosign signatures (sigstoreSigned)";
  const start = text.indexOf(heading);
  if (start < 0) {
    await Deno.writeTextFile(path, `${text.trimEnd()}\n\n${section}`);
    return;
  }
  const next = text.indexOf("\n## ", start + 1);
  const rest = next < 0 ? "" : text.slice(next + 1);
  await Deno.writeTextFile(path, `${text.slice(0, start)}${section}${rest ? `\n${rest}` : ""}`);
}
