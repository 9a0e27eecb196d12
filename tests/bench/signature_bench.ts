/**
 * Signature benchmark (issue 3), run by `deno task bench`:
 *
 * 1. verifications per second of one simple-signing signature on one core, for an RSA-3072
 *    and an Ed25519 key (keys parsed once, as the webhook does);
 * 2. one cold verification against the local distribution registry: a new registry client,
 *    the tag resolved to a digest, the signatures read from an HTTP lookaside store, verified.
 *    It counts the requests made to the registry and to the lookaside store, and splits the
 *    time into waiting for them and toolkit's own work.
 *
 * Targets (2-core machine): ≥ 1,000 verifications/s per key type on one core; a cold
 * verification makes at most 3 registry requests and spends < 5 ms of its own.
 *
 * @module
 */
import { startGpg, startRegistry } from "../env/mod.ts";
import { parseReference } from "../../lib/image/mod.ts";
import { createRegistryClient } from "../../lib/registry/mod.ts";
import { lookasideStore } from "../../lib/lookaside/mod.ts";
import { serveDirectory } from "../fakes/static_file_server.ts";
import { generateKeyPair, signImage } from "../../lib/signing/mod.ts";
import { readPublicKeys, verifyImageSignatures, verifySignature } from "../../lib/signature/mod.ts";

// deno-lint-ignore no-console
const print = console.log;

async function throughput(type: "rsa" | "ed25519", seconds = 3): Promise<number> {
  const pair = await generateKeyPair({ name: `bench ${type}`, type });
  const digest = `sha256:${"be".repeat(32)}`;
  const options = {
    signature: await signImage({
      privateKey: pair.privateKeyArmored,
      dockerReference: "quay.io/team/app:1",
      manifestDigest: digest,
    }),
    publicKeys: await readPublicKeys(pair.publicKeyArmored),
    expected: { manifestDigest: digest, reference: parseReference("quay.io/team/app:1") },
  };
  for (let i = 0; i < 200; i++) await verifySignature(options); // warm-up
  let count = 0;
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const result = await verifySignature(options);
    if (!result.verified) throw new Error(result.reason);
    count++;
  }
  return count / seconds;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

print("## Signature verification (issue 3)\n");
const rsa = await throughput("rsa");
const ed = await throughput("ed25519");
print("| key | verifications/s (one core) | target |");
print("| --- | --- | --- |");
print(`| RSA-3072 | ${rsa.toFixed(0)} | ≥ 1,000 |`);
print(`| Ed25519 | ${ed.toFixed(0)} | ≥ 1,000 |`);

await using registry = await startRegistry();
await using gpg = await startGpg();
const key = await gpg.generateKey({ type: "ed25519" });
const images: string[] = [];
for (let i = 0; i < 12; i++) {
  const image = `${registry.host}/bench/app:${i}`;
  await gpg.pushImage(image, { signBy: key.fingerprint, content: `image ${i}` });
  images.push(image);
}
await using lookaside = serveDirectory(gpg.sigstore);
const publicKeys = await readPublicKeys(key.publicKeyArmored);

/** Time spent waiting for HTTP answers, and how many were asked for. */
interface Meter {
  waiting: number;
  requests: number;
}

/** A fetch that reads whole answers and adds the time it waited to `meter`. */
function meteredFetch(meter: () => Meter): typeof fetch {
  return async (input, init) => {
    const m = meter();
    m.requests++;
    const started = performance.now();
    try {
      const response = await fetch(input, init);
      const body = new Uint8Array(await response.arrayBuffer());
      return new Response(init?.method === "HEAD" ? null : body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    } finally {
      m.waiting += performance.now() - started;
    }
  };
}

interface Run {
  total: number;
  own: number;
  registry: number;
  store: number;
}

let registryMeter: Meter = { waiting: 0, requests: 0 };
const newClient = () =>
  createRegistryClient({
    insecureRegistries: [registry.host],
    fetch: meteredFetch(() => registryMeter) as never,
  });

/** Verifies one image with `client` (a new one: first contact; a shared one: registry known). */
async function coldVerification(
  image: string,
  client: ReturnType<typeof createRegistryClient>,
): Promise<Run> {
  registryMeter = { waiting: 0, requests: 0 };
  const storeMeter: Meter = { waiting: 0, requests: 0 };
  const ref = parseReference(image);
  const started = performance.now();
  await client.ping(ref.domain);
  const digest = await client.resolveDigest(ref);
  const store = lookasideStore({
    readBase: new URL(lookaside.url),
    fetch: meteredFetch(() => storeMeter),
  });
  const result = await verifyImageSignatures({
    signatures: await store.readSignatures(ref, digest),
    publicKeys,
    expected: { manifestDigest: digest, reference: ref },
  });
  if (!result.verified) throw new Error(result.reason);
  const total = performance.now() - started;
  return {
    total,
    own: total - registryMeter.waiting - storeMeter.waiting,
    registry: registryMeter.requests,
    store: storeMeter.requests,
  };
}

const first: Run[] = [];
for (let i = 0; i < 25; i++) {
  using client = newClient();
  first.push(await coldVerification(images[i % images.length]!, client));
}
const known: Run[] = [];
{
  using client = newClient();
  await client.ping(registry.host);
  for (const image of images.slice(1)) known.push(await coldVerification(image, client));
}

const steady = first.slice(5);
const m = (runs: Run[], f: (r: Run) => number, digits = 0) => median(runs.map(f)).toFixed(digits);
print(
  "\n| cold verification against the local registry (median) | first contact with the registry | registry already met | target |",
);
print("| --- | --- | --- | --- |");
print(
  `| registry requests | ${m(steady, (r) => r.registry)} (ping, manifest HEAD) | ${
    m(known, (r) => r.registry)
  } (manifest HEAD) | ≤ 3 with the signatures |`,
);
print(
  `| lookaside requests (signature-1, then the 404 that ends the list) | ${
    m(steady, (r) => r.store)
  } | ${m(known, (r) => r.store)} | |`,
);
print(`| total time | ${m(steady, (r) => r.total, 2)} ms | ${m(known, (r) => r.total, 2)} ms | |`);
print(
  `| toolkit's own time beyond the requests | ${m(steady, (r) => r.own, 2)} ms | ${
    m(known, (r) => r.own, 2)
  } ms | < 5 ms |`,
);
