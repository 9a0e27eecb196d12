/**
 * What an audit costs (run by `deno task bench`, or alone with
 * `deno run -A tests/bench/audit_bench.ts`): `auditWorkloads()` (`lib/audit`) over 5,000 Pods in
 * 50 namespaces running 500 distinct images (300 signed with simple signing, Ed25519; 200
 * unsigned, which the policy denies), with the webhook's evaluator and verifier wrapped by
 * `auditVerifier()`, 8 verifications in flight (the CLI's `--max-verifications` default).
 *
 * Prints the time, the registry requests (manifests, signatures; one verification per distinct
 * digest means at most one manifest and one signature read per image), the most requests in
 * flight at once, and the peak memory (heap and RSS, sampled every 20 ms).
 *
 * Fakes: the Pods are listed from the in-memory API server of `tests/fakes/kube_api.ts` (its
 * store, without HTTP: filling a real kube-apiserver with 5,000 Pods would take most of the run);
 * the registry and the lookaside store are a `fetch` function answering from memory, so the
 * figures are the audit's own work (policy choice, digest resolution, signature verification,
 * decisions), not the network's.
 *
 * Flags: `--pods N` (default 5000), `--images N` (default 500).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { computeDigest } from "../../lib/registry/digest.ts";
import { OCI_MANIFEST } from "../../lib/registry/media_types.ts";
import { generateKeyPair, signImage } from "../../lib/signing/mod.ts";
import { parseRegistriesYaml } from "../../lib/lookaside/mod.ts";
import {
  createAdmissionEvaluator,
  createImageVerifier,
  filePolicySource,
  parsePolicyManifests,
} from "../../lib/admission/mod.ts";
import { NAMESPACES, PODS } from "../../lib/kube/mod.ts";
import { type AuditKube, auditVerifier, auditWorkloads } from "../../lib/audit/mod.ts";
import { FakeKubeApi } from "../fakes/kube_api.ts";

// deno-lint-ignore no-console
const print = console.log;
const { values } = parseArgs({
  args: Deno.args,
  options: {
    pods: { type: "string", default: "5000" },
    images: { type: "string", default: "500" },
  },
});
const PODS_COUNT = Number(values.pods);
const IMAGES = Number(values.images);
const SIGNED = Math.round(IMAGES * 0.6);
const HOST = "registry.bench.example";
const LOOKASIDE = "http://lookaside.bench.example";
const encoder = new TextEncoder();

// The registry: 500 manifests by tag and digest; the signatures of 300 of them.
const pair = await generateKeyPair({ name: "bench", type: "ed25519" });
const manifests = new Map<string, { digest: string; bytes: Uint8Array }>(); // repo:tag → …
const signatures = new Map<string, Uint8Array>(); // repo@sha256=hex → signature
const images: string[] = [];
for (let i = 0; i < IMAGES; i++) {
  const repository = `team${i % 10}/app${i}`;
  const bytes = encoder.encode(JSON.stringify({
    schemaVersion: 2,
    mediaType: OCI_MANIFEST,
    config: {
      mediaType: "application/vnd.oci.image.config.v1+json",
      digest: `sha256:${i.toString(16).padStart(64, "0")}`,
      size: 2,
    },
    layers: [],
  }));
  const digest = await computeDigest(bytes);
  manifests.set(`${repository}:1`, { digest, bytes });
  manifests.set(`${repository}@${digest}`, { digest, bytes });
  images.push(`${HOST}/${repository}:1`);
  if (i < SIGNED) {
    signatures.set(
      `${repository}@${digest.replace(":", "=")}`,
      await signImage({
        privateKey: pair.privateKeyArmored,
        dockerReference: `${HOST}/${repository}:1`,
        manifestDigest: digest,
      }),
    );
  }
}

const requests = { manifests: 0, signatures: 0, other: 0 };
let inFlight = 0;
let mostInFlight = 0;
const registryFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const url = new URL(request.url);
  inFlight++;
  mostInFlight = Math.max(mostInFlight, inFlight);
  try {
    await Promise.resolve(); // an answer comes later, as over the network
    if (url.origin === LOOKASIDE) {
      requests.signatures++;
      const m = /^\/(.+)\/signature-(\d+)$/.exec(url.pathname);
      const blob = m && m[2] === "1" ? signatures.get(decodeURIComponent(m[1]!)) : undefined;
      return blob
        ? new Response(blob as Uint8Array<ArrayBuffer>)
        : new Response("not found", { status: 404 });
    }
    if (url.pathname === "/v2/") {
      requests.other++;
      return Response.json({});
    }
    const m = /^\/v2\/(.+)\/manifests\/([^/]+)$/.exec(url.pathname);
    requests.manifests++;
    const found = m ? manifests.get(`${m[1]}${m[2]!.includes(":") ? "@" : ":"}${m[2]}`) : undefined;
    if (!found) return Response.json({ errors: [{ code: "MANIFEST_UNKNOWN" }] }, { status: 404 });
    return new Response(
      request.method === "HEAD" ? null : found.bytes as Uint8Array<ArrayBuffer>,
      {
        headers: {
          "content-type": OCI_MANIFEST,
          "docker-content-digest": found.digest,
          "content-length": String(found.bytes.byteLength),
        },
      },
    );
  } finally {
    inFlight--;
  }
};

const documents = parsePolicyManifests(
  `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
    - name: "${HOST}/*"
      policy:
        simple: { requirements: [{ type: signedBy, keySecret: signer }] }
---
apiVersion: v1
kind: Secret
metadata: { name: signer, namespace: toolkit-system }
data:
  key: ${btoa(pair.publicKeyArmored)}
`,
  "bench-policies.yaml",
  { groups: ["toolkit.dev"] },
);
const source = filePolicySource(documents);
const verifier = auditVerifier(createImageVerifier({
  source,
  clusterKeyNamespace: "toolkit-system",
  insecureRegistries: [HOST],
  fetch: registryFetch,
  registriesD: parseRegistriesYaml(
    `docker:\n  "${HOST}":\n    lookaside: ${LOOKASIDE}\n`,
    "bench-registries.yaml",
  ),
  flightTimeoutMs: 120_000,
  retry: { maxRetries: 0 },
  verdictCache: { ttlMs: 3_600_000, maxEntries: 10_000 },
  digestCache: { ttlMs: 3_600_000, maxEntries: 10_000 },
}));
const evaluator = createAdmissionEvaluator({
  source,
  verifier,
  settings: {
    mode: "enforce",
    noMatch: "deny",
    controllerNamespace: "toolkit-system",
    budgetMs: 120_000,
    maxVerificationsInFlight: 8,
  },
});

// The cluster: 5,000 Pods in 50 namespaces, one to three containers each, every image used.
const api = new FakeKubeApi();
for (let n = 0; n < 50; n++) api.seed(NAMESPACES, { metadata: { name: `ns${n}` } });
for (let p = 0; p < PODS_COUNT; p++) {
  const count = 1 + (p % 3);
  api.seed(PODS, {
    metadata: { name: `pod${p}`, namespace: `ns${p % 50}` },
    spec: {
      containers: Array.from({ length: count }, (_, c) => ({
        name: `c${c}`,
        image: images[(p + c * 7) % IMAGES]!,
      })),
    },
  });
}
const kube: AuditKube = {
  list: ((type, namespace) => Promise.resolve(api.list(type, namespace))) as AuditKube["list"],
};

let peakHeap = 0;
let peakRss = 0;
const sample = () => {
  const m = Deno.memoryUsage();
  peakHeap = Math.max(peakHeap, m.heapUsed);
  peakRss = Math.max(peakRss, m.rss);
};
sample();
const before = Deno.memoryUsage();
const timer = setInterval(sample, 20);
const started = performance.now();
const audited = await auditWorkloads({ kube, evaluator });
const ms = performance.now() - started;
sample();
clearInterval(timer);

const verdicts = new Map<string, number>();
for (const a of audited) verdicts.set(a.verdict, (verdicts.get(a.verdict) ?? 0) + 1);
const distinct = new Set(audited.map((a) => a.image)).size;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
print(`\naudit: ${PODS_COUNT} Pods, ${audited.length} containers, ${distinct} distinct images`);
print(
  `  time ${(ms / 1000).toFixed(2)} s (${(PODS_COUNT / (ms / 1000)).toFixed(0)} Pods/s); verdicts ${
    [...verdicts].map(([v, n]) => `${v} ${n}`).join(", ")
  }`,
);
print(
  `  registry requests: ${requests.manifests} manifests, ${requests.signatures} signature reads, ${requests.other} other (${
    ((requests.manifests + requests.signatures) / distinct).toFixed(2)
  } per distinct image); at most ${mostInFlight} in flight; ${verifier.remembered} verdicts remembered`,
);
print(
  `  memory: heap ${mb(before.heapUsed)} MB before (Pods in the fake's store), peak ${
    mb(peakHeap)
  } MB; RSS ${mb(before.rss)} MB before, peak ${mb(peakRss)} MB`,
);
