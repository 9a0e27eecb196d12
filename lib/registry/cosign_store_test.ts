import assert from "node:assert/strict";
import { e2eSkipReason, startRegistry } from "../../tests/env/mod.ts";
import { parseReference } from "../image/mod.ts";
import { SIGSTORE_BUNDLE_V03_MEDIA_TYPE } from "../signature/cosign_media_types.ts";
import type { StoredCosignSignature } from "./cosign_store.ts";
import {
  cosignLayout,
  pushCosignSignatures,
  serveReferrersRegistry,
  unrelatedReferrer,
} from "../../tests/fakes/cosign_registry.ts";
import { buildOciLayout, skopeoPush } from "../../tests/env/oci_layout.ts";
import { createRegistryClient } from "./client.ts";
import { readCosignSignatures } from "./cosign_store.ts";
import { cosignDockerReference } from "../signature/cosign_payloads.ts";
import { DigestMismatchError } from "./errors.ts";
import { readBudget } from "../read_budget.ts";

const encoder = new TextEncoder();

function legacy(n: number): StoredCosignSignature {
  return {
    format: "legacy",
    payload: encoder.encode(`{"payload":${n}}`),
    annotations: { "dev.cosignproject.cosign/signature": `c2lnbmF0dXJl${n}` },
    where: "",
  };
}

function bundle(n: number): StoredCosignSignature {
  return { format: "bundle", bundle: encoder.encode(`{"bundle":${n}}`), where: "" };
}

const DIGEST = `sha256:${"ab".repeat(32)}`;

Deno.test({
  name:
    "readCosignSignatures() reads both formats from the distribution registry (no referrers API: the fallback tag)",
  ignore: e2eSkipReason(["docker-registry", "skopeo"]) !== undefined,
  async fn() {
    await using registry = await startRegistry();
    const home = await Deno.makeTempDir({ prefix: "toolkit-cosign-store-" });
    const layout = await buildOciLayout(home);
    const digest = await skopeoPush(layout, `${registry.host}/team/app:1`, { home });
    using client = createRegistryClient({ insecureRegistries: [registry.host] });
    const ref = parseReference(`${registry.host}/team/app:1`);
    assert.deepEqual(await readCosignSignatures(client, ref, digest), {
      signatures: [],
      skipped: [],
    });
    await pushCosignSignatures(
      registry.host,
      "team/app",
      digest,
      [legacy(1), legacy(2), bundle(3)],
      { fallbackTag: true },
    );
    const read = await readCosignSignatures(client, ref, digest);
    assert.deepEqual(read.skipped, []);
    assert.deepEqual(
      read.signatures.map((s) =>
        new TextDecoder().decode(s.format === "legacy" ? s.payload : s.bundle)
      ),
      ['{"payload":1}', '{"payload":2}', '{"bundle":3}'],
    );
    assert.match(
      read.signatures[0]!.where,
      /^layer sha256:[0-9a-f]{64} of sha256-[0-9a-f]{64}\.sig$/,
    );
    assert.match(read.signatures[2]!.where, /^referrer sha256:[0-9a-f]{64}$/);
    await Deno.remove(home, { recursive: true });
  },
});

Deno.test("readCosignSignatures() finds bundles through the referrers API whatever its artifactType says", async () => {
  const layout = await cosignLayout(DIGEST, [bundle(1)]);
  // The stand-in reports the config media type as artifactType, as go-containerregistry does.
  await using server = serveReferrersRegistry({ layout });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const read = await readCosignSignatures(
    client,
    parseReference(`${server.host}/team/app`),
    DIGEST,
  );
  assert.equal(read.signatures.length, 1);
  assert.ok(server.requests.some((r) => r.path === `/v2/team/app/referrers/${DIGEST}`));
});

Deno.test("readCosignSignatures() skips referrers of another subject listed for the image", async () => {
  const other = `sha256:${"cd".repeat(32)}`;
  const layout = await cosignLayout(other, [bundle(1)]);
  const listed = [...layout.manifests].map(([digest, object]) => ({
    mediaType: object.mediaType,
    digest,
    size: object.bytes.byteLength,
    artifactType: SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
  }));
  await using server = serveReferrersRegistry({ layout, referrers: () => listed });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const read = await readCosignSignatures(
    client,
    parseReference(`${server.host}/team/app`),
    DIGEST,
  );
  assert.deepEqual(read.signatures, []);
  assert.match(read.skipped[0]!, new RegExp(`its subject is ${other}, not the image`));
});

Deno.test("readCosignSignatures() refuses thousands of referrers that may be signatures, without reading them", async () => {
  const layout = await cosignLayout(DIGEST, [bundle(1)]);
  const many = Array.from({ length: 3000 }, (_, i) => unrelatedReferrer(i));
  await using server = serveReferrersRegistry({ layout, referrers: () => many });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  await assert.rejects(
    readCosignSignatures(client, parseReference(`${server.host}/team/app`), DIGEST),
    /it has 3000 referrers that may be signatures, more than 64/,
  );
  // Only the three lookups were made: no referrer manifest was read.
  assert.ok(server.requests.length <= 4, `${server.requests.length} requests`);
});

Deno.test("readCosignSignatures() passes over referrers of other artifact types, and refuses an index over its bound", async () => {
  const layout = await cosignLayout(DIGEST, [bundle(1)]);
  const sboms = Array.from(
    { length: 3000 },
    (_, i) => unrelatedReferrer(i, "application/spdx+json"),
  );
  const signature = [...layout.manifests].map(([digest, object]) => ({
    mediaType: object.mediaType,
    digest,
    size: object.bytes.byteLength,
  }));
  await using server = serveReferrersRegistry({
    layout,
    referrers: () => [...sboms, ...signature],
  });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const ref = parseReference(`${server.host}/team/app`);
  assert.equal((await readCosignSignatures(client, ref, DIGEST)).signatures.length, 1);
  await assert.rejects(
    readCosignSignatures(client, ref, DIGEST, { bounds: { maxIndexBytes: 64 * 1024 } }),
    /larger than/,
  );
});

Deno.test("readCosignSignatures() follows referrers pages on the same registry", async () => {
  const layout = await cosignLayout(DIGEST, [bundle(1), bundle(2), bundle(3)]);
  await using server = serveReferrersRegistry({ layout, pageSize: 1 });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const read = await readCosignSignatures(
    client,
    parseReference(`${server.host}/team/app`),
    DIGEST,
  );
  assert.equal(read.signatures.length, 3);
});

Deno.test("readCosignSignatures() bounds the signature layers, each blob and the bytes of one image", async () => {
  const layout = await cosignLayout(DIGEST, Array.from({ length: 65 }, (_, i) => legacy(i)));
  await using server = serveReferrersRegistry({ layout, referrers: "unsupported" });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const ref = parseReference(`${server.host}/team/app`);
  await assert.rejects(
    readCosignSignatures(client, ref, DIGEST),
    /holds 65 signatures, more than 64/,
  );
  // {"payload":0} … 9 are 13 bytes, 10 … 64 are 14.
  const small = await readCosignSignatures(client, ref, DIGEST, {
    bounds: { maxSignatures: 100, maxBlobBytes: 13 },
  });
  assert.equal(small.signatures.length, 10);
  assert.equal(small.skipped.length, 55);
  assert.match(small.skipped[0]!, /its blob of 14 bytes is larger than 13/);
  await assert.rejects(
    readCosignSignatures(client, ref, DIGEST, {
      bounds: { maxSignatures: 100 },
      budget: readBudget(4096),
    }),
    /passed the limit of 4 KiB read for one image/,
  );
});

Deno.test("readCosignSignatures() refuses a blob whose bytes are not its digest", async () => {
  const layout = await cosignLayout(DIGEST, [legacy(1)]);
  for (const [digest] of layout.blobs) {
    if (layout.blobs.get(digest)!.byteLength < 20) {
      layout.blobs.set(digest, encoder.encode('{"payload":9}'));
    }
  }
  await using server = serveReferrersRegistry({ layout, referrers: "unsupported" });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  await assert.rejects(
    readCosignSignatures(client, parseReference(`${server.host}/team/app`), DIGEST),
    DigestMismatchError,
  );
});

Deno.test("readCosignSignatures() reads the payload cosign writes beside the .sig manifest, saving a round trip", async () => {
  const plain = (repository: string): StoredCosignSignature => ({
    format: "legacy",
    payload: encoder.encode(JSON.stringify({
      critical: {
        identity: { "docker-reference": repository },
        image: { "docker-manifest-digest": DIGEST },
        type: "cosign container image signature",
      },
      optional: null,
    })),
    annotations: { "dev.cosignproject.cosign/signature": "c2ln" },
    where: "",
  });
  for (const [named, blobReads] of [["the image", 1], ["another repository", 2]] as const) {
    const layout = { blobs: new Map(), manifests: new Map() };
    await using server = serveReferrersRegistry({ layout, referrers: "unsupported" });
    const ref = parseReference(`${server.host}/team/app`);
    const repository = named === "the image"
      ? cosignDockerReference(ref.domain, ref.path)
      : "reg.test/other";
    const filled = await cosignLayout(DIGEST, [plain(repository)]);
    for (const [d, b] of filled.blobs) layout.blobs.set(d, b);
    for (const [d, m] of filled.manifests) layout.manifests.set(d, m);
    using client = createRegistryClient({ insecureRegistries: [server.host] });
    const read = await readCosignSignatures(client, ref, DIGEST);
    assert.equal(read.signatures.length, 1, named);
    const blobs = server.requests.filter((r) => r.path.includes("/blobs/"));
    assert.equal(blobs.length, blobReads, `${named}: ${blobs.map((b) => b.path).join(", ")}`);
  }
});
