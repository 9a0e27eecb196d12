import assert from "node:assert/strict";
import { e2eSkipReason, startRegistry } from "../../tests/env/mod.ts";
import { parseReference } from "../image/mod.ts";
import { SIGSTORE_BUNDLE_V03_MEDIA_TYPE } from "../signature/cosign_media_types.ts";
import type { StoredCosignSignature } from "./cosign_store.ts";
import {
  cosignLayout,
  junkReferrers,
  mergeLayouts,
  pushCosignSignatures,
  serveReferrersRegistry,
  unrelatedReferrer,
} from "../../tests/fakes/cosign_registry.ts";
import { buildOciLayout, skopeoPush } from "../../tests/env/oci_layout.ts";
import { createRegistryClient } from "./client.ts";
import { openCosignSignatures, readCosignSignatures } from "./cosign_store.ts";
import { OCI_MANIFEST } from "./media_types.ts";
import { cosignDockerReference } from "../signature/cosign_payloads.ts";
import { DigestMismatchError } from "./errors.ts";
import { serve } from "../../tests/fakes/loopback_server.ts";
import { readBudget } from "../read_budget.ts";
import { CosignListings } from "./cosign_listings.ts";

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
  // Asked for bundles only; this registry ignores the filter, the reader filters itself.
  assert.ok(
    server.requests.some((r) =>
      r.path ===
        `/v2/team/app/referrers/${DIGEST}?artifactType=${
          encodeURIComponent(SIGSTORE_BUNDLE_V03_MEDIA_TYPE)
        }`
    ),
  );
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

Deno.test("readCosignSignatures() refuses a referrers answer of thousands of candidates by its count of values, without reading one, and still reads the .sig", async () => {
  const layout = await cosignLayout(DIGEST, [legacy(1), bundle(1)]);
  // 400 × 13 values in some 110 KB: within the bytes, over the values.
  const many = Array.from({ length: 400 }, (_, i) => unrelatedReferrer(i));
  await using server = serveReferrersRegistry({ layout, referrers: () => many });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const read = await readCosignSignatures(
    client,
    parseReference(`${server.host}/team/app`),
    DIGEST,
  );
  assert.deepEqual(read.signatures.map((s) => s.format), ["legacy"]);
  assert.match(
    read.skipped.join("\n"),
    /the referrers list was not used: .*the referrers answer holds more than 4096 JSON values/,
  );
  // No referrer manifest was read: the lookups and the .sig's blobs only.
  assert.equal(server.requests.filter((r) => r.path.includes("/manifests/sha256:")).length, 0);
});

Deno.test("readCosignSignatures() refuses {},{},… by its bytes, or in one linear pass by its values, without parsing them", async () => {
  const layout = await cosignLayout(DIGEST, [legacy(1)]);
  let count = 333_260; // 999,887 bytes
  await using server = serveReferrersRegistry({
    layout,
    referrersBody: () => `{"manifests":[${"{},".repeat(count - 1)}{}]}`,
  });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const ref = parseReference(`${server.host}/team/app`);
  const huge = await readCosignSignatures(client, ref, DIGEST);
  assert.equal(huge.signatures.length, 1);
  assert.match(huge.skipped.join("\n"), /the referrers list was not used: .*larger than/);
  count = 43_000; // 129,016 bytes, under the 128 KiB
  const many = await readCosignSignatures(client, ref, DIGEST);
  assert.equal(many.signatures.length, 1);
  assert.match(many.skipped.join("\n"), /holds more than 4096 JSON values/);
});

Deno.test("openCosignSignatures() reads no referrer while the .sig signature is all the verifier needs", async () => {
  const junk = await junkReferrers(DIGEST, 70, "garbage-bundle");
  const layout = mergeLayouts(await cosignLayout(DIGEST, [legacy(1)]), junk);
  await using server = serveReferrersRegistry({ layout });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  {
    using source = openCosignSignatures(
      client,
      parseReference(`${server.host}/team/app`),
      DIGEST,
    );
    for await (const signature of source.signatures()) {
      assert.equal(signature.format, "legacy");
      break;
    }
  }
  // No junk manifest was read, nor its blob: the .sig's payload (guessed, then listed) only.
  const referrerReads = server.requests.filter((r) => r.path.includes("/manifests/sha256:"));
  assert.equal(referrerReads.length, 0, referrerReads.map((r) => r.path).join(", "));
  assert.ok(server.requests.filter((r) => r.path.includes("/blobs/")).length <= 2);
});

Deno.test("readCosignSignatures() finds a bundle among junk referrers: other types passed over, garbage bundles skipped, the bound named", async () => {
  const valid = await cosignLayout(DIGEST, [bundle(7)]);
  // Junk of other types the registry lists as "may be a signature" (go-containerregistry
  // reports the empty config type): read after every referrer named a signature.
  const other = await junkReferrers(DIGEST, 80, "other-type", { created: "2099-01-01T00:00:00Z" });
  const garbage = await junkReferrers(DIGEST, 30, "garbage-bundle");
  const notBundle = await junkReferrers(DIGEST, 5, "not-a-bundle");
  const layout = mergeLayouts(mergeLayouts(mergeLayouts(valid, other), garbage), notBundle);
  await using server = serveReferrersRegistry({ layout });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const read = await readCosignSignatures(
    client,
    parseReference(`${server.host}/team/app`),
    DIGEST,
  );
  const texts = read.signatures.map((s) =>
    new TextDecoder().decode(s.format === "bundle" ? s.bundle : s.payload)
  );
  assert.ok(texts.includes('{"bundle":7}'), texts.join(", "));
  assert.equal(read.signatures.length, 31); // the valid one and 30 garbage bundles, for the verifier
  assert.match(
    read.skipped.join("\n"),
    /it has 116 referrers that may be signatures, more than 64: 64 were read \(those naming a signature first, newest first\), the other 52 were not/,
  );
  assert.equal(read.skipped.filter((r) => /not a sigstore bundle referrer/.test(r)).length, 33);
});

Deno.test("readCosignSignatures() with a registry that applies the artifactType filter reads only what it lists", async () => {
  const valid = await cosignLayout(DIGEST, [bundle(7)]);
  const other = await junkReferrers(DIGEST, 200, "other-type");
  const layout = mergeLayouts(valid, other);
  const listed = [...layout.manifests].map(([digest, object]) => {
    const doc = JSON.parse(new TextDecoder().decode(object.bytes));
    return {
      mediaType: OCI_MANIFEST,
      digest,
      size: object.bytes.byteLength,
      artifactType: doc.artifactType,
      annotations: doc.annotations,
    };
  });
  await using server = serveReferrersRegistry({
    layout,
    referrers: () => listed,
    applyFilter: true,
  });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const read = await readCosignSignatures(
    client,
    parseReference(`${server.host}/team/app`),
    DIGEST,
  );
  assert.equal(read.signatures.length, 1);
  assert.deepEqual(read.skipped, []);
  const manifestReads = server.requests.filter((r) => r.path.includes("/manifests/sha256:"));
  assert.equal(manifestReads.length, 1);
});

Deno.test("readCosignSignatures() denies naming the bound when junk newer than the signature fills it", async () => {
  const valid = await cosignLayout(DIGEST, [bundle(7)], { distinct: false });
  const garbage = await junkReferrers(DIGEST, 65, "garbage-bundle", {
    created: "2099-01-01T00:00:00Z",
  });
  await using server = serveReferrersRegistry({ layout: mergeLayouts(valid, garbage) });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const read = await readCosignSignatures(
    client,
    parseReference(`${server.host}/team/app`),
    DIGEST,
  );
  assert.equal(read.signatures.length, 64);
  assert.match(read.skipped.join("\n"), /it has 66 referrers that may be signatures, more than 64/);
});

Deno.test("readCosignSignatures() skips a fallback-index entry that no longer exists, that entry only", async () => {
  const both = await cosignLayout(DIGEST, [bundle(1), bundle(2)], { fallbackTag: true });
  // The first bundle's referrer manifest was deleted; the index still lists it.
  const deleted =
    [...both.manifests].find(([, o]) =>
      o.tag === undefined && new TextDecoder().decode(o.bytes).includes(
        [...both.blobs].find(([, b]) => new TextDecoder().decode(b) === '{"bundle":1}')![0],
      )
    )![0];
  both.manifests.delete(deleted);
  await using server = serveReferrersRegistry({ layout: both, referrers: "unsupported" });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const read = await readCosignSignatures(
    client,
    parseReference(`${server.host}/team/app`),
    DIGEST,
  );
  assert.deepEqual(
    read.signatures.map((s) => new TextDecoder().decode((s as { bundle: Uint8Array }).bundle)),
    ['{"bundle":2}'],
  );
  assert.equal(read.skipped.length, 1);
  assert.match(
    read.skipped[0]!,
    new RegExp(`referrer ${deleted} is listed but no longer exists: .*MANIFEST_UNKNOWN`),
  );
});

Deno.test("readCosignSignatures() stops reading junk once the image's read budget is spent, and says so", async () => {
  const valid = await cosignLayout(DIGEST, [legacy(1)]);
  const garbage = await junkReferrers(DIGEST, 60, "garbage-bundle");
  await using server = serveReferrersRegistry({ layout: mergeLayouts(valid, garbage) });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const read = await readCosignSignatures(
    client,
    parseReference(`${server.host}/team/app`),
    DIGEST,
    { budget: readBudget(48 * 1024) },
  );
  assert.equal(read.signatures[0]!.format, "legacy");
  assert.match(read.skipped.join("\n"), /passed the limit of 48 KiB read for one image/);
  assert.match(read.skipped.join("\n"), /were not read: the read budget of the image was spent/);
});

Deno.test("readCosignSignatures() passes over referrers of other artifact types, and skips a list over its bounds", async () => {
  const layout = await cosignLayout(DIGEST, [bundle(1)]);
  const sboms = (n: number) =>
    Array.from({ length: n }, (_, i) => unrelatedReferrer(i, "application/spdx+json"));
  const signature = [...layout.manifests].map(([digest, object]) => ({
    mediaType: object.mediaType,
    digest,
    size: object.bytes.byteLength,
  }));
  let listed = sboms(200);
  await using server = serveReferrersRegistry({
    layout,
    referrers: () => [...listed, ...signature],
  });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const ref = parseReference(`${server.host}/team/app`);
  assert.equal((await readCosignSignatures(client, ref, DIGEST)).signatures.length, 1);
  // Only the signature's manifest was read.
  assert.equal(server.requests.filter((r) => r.path.includes("/manifests/sha256:")).length, 1);
  const small = await readCosignSignatures(client, ref, DIGEST, {
    bounds: { maxIndexBytes: 16 * 1024 },
  });
  assert.equal(small.signatures.length, 0);
  assert.match(small.skipped.join("\n"), /the referrers list was not used: .*larger than/);
  // Hundreds of other artifacts on a registry that does not filter: more values than counted.
  listed = sboms(400);
  const many = await readCosignSignatures(client, ref, DIGEST);
  assert.equal(many.signatures.length, 0);
  assert.match(many.skipped.join("\n"), /holds more than 4096 JSON values/);
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

Deno.test("openCosignSignatures() aborts what it still reads once disposed of", async () => {
  const layout = await cosignLayout(DIGEST, [legacy(1)]);
  let aborted = 0;
  let waiting = 0;
  await using server = serve(async (request) => {
    const url = new URL(request.url);
    if (
      url.pathname.includes("/referrers/") || url.pathname.endsWith(`sha256-${"ab".repeat(32)}`)
    ) {
      // Never answered: the referrers list and the fallback index wait for the client.
      waiting++;
      await new Promise((resolve) => request.signal.addEventListener("abort", resolve));
      aborted++;
      return new Response(null, { status: 504 });
    }
    const parts = url.pathname.split("/");
    const reference = decodeURIComponent(parts.at(-1)!);
    if (parts.at(-2) === "blobs") {
      const bytes = layout.blobs.get(reference);
      return bytes ? new Response(bytes as BodyInit) : new Response(null, { status: 404 });
    }
    const object = [...layout.manifests.values()].find((o) => o.tag === reference);
    return object
      ? new Response(object.bytes as BodyInit, { headers: { "content-type": OCI_MANIFEST } })
      : Response.json({ errors: [{ code: "MANIFEST_UNKNOWN" }] }, { status: 404 });
  });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  {
    using source = openCosignSignatures(client, parseReference(`${server.host}/team/app`), DIGEST);
    for await (const signature of source.signatures()) {
      assert.equal(signature.format, "legacy");
      break;
    }
    for (let i = 0; i < 500 && waiting < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(waiting, 2);
  }
  // Both unanswered requests were given up when the source was disposed of.
  for (let i = 0; i < 100 && aborted < 2; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(aborted, 2);
});

Deno.test("openCosignSignatures(attestations) reads the .att layers and the referrers announcing a predicate type, and signatures stay apart", async () => {
  const envelope = (n: number): StoredCosignSignature => ({
    format: "legacy",
    payload: encoder.encode(`{"envelope":${n}}`),
    annotations: { "dev.cosignproject.cosign/signature": "" },
    where: "",
  });
  const slsa = "https://slsa.dev/provenance/v1";
  const layout = mergeLayouts(
    mergeLayouts(
      await cosignLayout(DIGEST, [envelope(1), bundle(2)], { attestationType: slsa }),
      await cosignLayout(DIGEST, [legacy(3), bundle(4)]),
    ),
    { blobs: new Map(), manifests: new Map() },
  );
  await using server = serveReferrersRegistry({ layout });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const ref = parseReference(`${server.host}/team/app`);
  const text = (s: StoredCosignSignature) =>
    new TextDecoder().decode(s.format === "legacy" ? s.payload : s.bundle);
  const attestations = [];
  {
    using source = openCosignSignatures(client, ref, DIGEST, { attestations: true });
    for await (const s of source.signatures()) attestations.push(text(s));
    assert.deepEqual(source.skipped, []);
  }
  assert.deepEqual(attestations, ['{"envelope":1}', '{"bundle":2}']);
  const signatures = await readCosignSignatures(client, ref, DIGEST);
  assert.deepEqual(signatures.signatures.map(text), ['{"payload":3}', '{"bundle":4}']);
});

Deno.test("openCosignSignatures() readers given one CosignListings ask once for each list, and read from it what each alone would", async () => {
  const slsa = "https://slsa.dev/provenance/v1";
  const layout = mergeLayouts(
    await cosignLayout(DIGEST, [legacy(1), bundle(2)], { fallbackTag: true }),
    await cosignLayout(DIGEST, [bundle(3)], { attestationType: slsa }),
  );
  const text = (s: StoredCosignSignature) =>
    new TextDecoder().decode(s.format === "legacy" ? s.payload : s.bundle);
  for (const hostile of [false, true]) {
    // A referrers answer over its bound is skipped by each reader, with its reason.
    const many = Array.from({ length: 400 }, (_, i) => unrelatedReferrer(i));
    await using server = serveReferrersRegistry({
      layout,
      ...(hostile ? { referrers: () => many } : {}),
    });
    using client = createRegistryClient({ insecureRegistries: [server.host] });
    const ref = parseReference(`${server.host}/team/app`);
    const read = async (listings?: CosignListings) => {
      using signatures = openCosignSignatures(client, ref, DIGEST, { listings });
      using attestations = openCosignSignatures(client, ref, DIGEST, {
        listings,
        attestations: true,
      });
      const [s, a] = await Promise.all([signatures, attestations].map(async (source) => {
        const all = [];
        for await (const one of source.signatures()) all.push(text(one));
        return all;
      }));
      return { s, a, skipped: [[...signatures.skipped], [...attestations.skipped]] };
    };
    const lists = () =>
      server.requests.filter((r) =>
        r.path.includes("/referrers/") || r.path.endsWith(`/sha256-${"ab".repeat(32)}`)
      ).length;
    const alone = await read();
    assert.equal(lists(), 4);
    const shared = await read(new CosignListings());
    assert.equal(lists(), 6, "the referrers list and the fallback index, once each");
    assert.deepEqual(shared, alone);
    // The signature bundle is in the fallback index too; the attestation only in the list.
    assert.deepEqual(shared.s, ['{"payload":1}', '{"bundle":2}']);
    assert.deepEqual(shared.a, hostile ? [] : ['{"bundle":3}']);
    if (hostile) {
      for (const skipped of shared.skipped) {
        assert.match(skipped.join("\n"), /the referrers list was not used: .*4096 JSON values/);
      }
    }
  }
});
