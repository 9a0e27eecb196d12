/**
 * The verifier's rule for multi-platform images (`multiArch`, `platform_scope.ts`) end to end in
 * process: an index and its platform manifests served from memory by the referrers registry
 * stand-in, cosign signatures (legacy and bundles) of the index or of its platforms.
 */
import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import type { PolicyMatch, Requirement } from "../policy/mod.ts";
import { computeDigest } from "../registry/digest.ts";
import { OCI_INDEX, OCI_MANIFEST } from "../registry/media_types.ts";
import {
  type CosignLayout,
  cosignLayout,
  mergeLayouts,
  serveReferrersRegistry,
} from "../../tests/fakes/cosign_registry.ts";
import {
  bundleSignature,
  cosignPayload,
  cosignStatement,
  legacySignature,
  testKeyPair,
} from "../../tests/fakes/sigstore_instance.ts";
import { ANONYMOUS } from "./credentials.ts";
import { filePolicySource } from "./file_source.ts";
import { FairSlots } from "./fair_slots.ts";
import { createImageVerifier, type ImageVerdict } from "./verifier.ts";

const CONTROLLER = "toolkit-system";
const encoder = new TextEncoder();

function match(...requirements: Requirement[]): PolicyMatch {
  return {
    policy: { simple: { requirements } },
    pattern: "*",
    source: 'ClusterImagePolicy "p"',
    kind: "ClusterImagePolicy",
    name: "p",
  };
}

interface World {
  layout: CosignLayout;
  index: string;
  platforms: string[];
}

/** An index of `names` platforms (each a tiny manifest), in a layout to serve. */
async function multiPlatform(names: readonly string[]): Promise<World> {
  const manifests = new Map<string, { bytes: Uint8Array; mediaType: string; tag?: string }>();
  const platforms: string[] = [];
  const entries = [];
  for (const name of names) {
    const bytes = encoder.encode(JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      config: {
        mediaType: "application/vnd.oci.image.config.v1+json",
        digest: `sha256:${"0".repeat(64)}`,
        size: 2,
      },
      layers: [],
      annotations: { platform: name },
    }));
    const digest = await computeDigest(bytes);
    manifests.set(digest, { bytes, mediaType: OCI_MANIFEST });
    platforms.push(digest);
    const [os, architecture] = name.split("/");
    entries.push({
      mediaType: OCI_MANIFEST,
      digest,
      size: bytes.length,
      platform: { os, architecture },
    });
  }
  const indexBytes = encoder.encode(
    JSON.stringify({ schemaVersion: 2, mediaType: OCI_INDEX, manifests: entries }),
  );
  const index = await computeDigest(indexBytes);
  manifests.set(index, { bytes: indexBytes, mediaType: OCI_INDEX, tag: "1" });
  return { layout: { blobs: new Map(), manifests }, index, platforms };
}

Deno.test("createImageVerifier() applies multiArch to an index, in both cosign formats", async (t) => {
  const signer = testKeyPair();
  const world = await multiPlatform(["linux/amd64", "linux/arm64"]);
  const [amd64, arm64] = world.platforms as [string, string];
  let layout = world.layout;
  const served = { ...layout };
  await using registry = serveReferrersRegistry({ layout: served });
  const repo = `${registry.host}/team/app`;
  const legacy = (digest: string) =>
    legacySignature({ signer: { key: signer }, payload: cosignPayload(repo, digest) });
  const bundle = (digest: string) =>
    bundleSignature({ signer: { key: signer }, statement: cosignStatement(digest) });
  // The index signed (legacy) in one repository, the platforms only (bundles, legacy) in another.
  const signIt = async (digest: string, format: "legacy" | "bundle") =>
    layout = mergeLayouts(
      layout,
      await cosignLayout(digest, [format === "legacy" ? legacy(digest) : bundle(digest)]),
    );
  await signIt(world.index, "legacy");
  Object.assign(served, layout);

  const source = filePolicySource({
    policies: [],
    secrets: [{
      metadata: { name: "cosign-pub", namespace: CONTROLLER, resourceVersion: "1" },
      data: { key: btoa(signer.publicPem) },
    }],
    configMaps: [],
    serviceAccounts: [],
    namespaces: [],
  });
  const verifier = () =>
    createImageVerifier({
      source,
      clusterKeyNamespace: CONTROLLER,
      insecureRegistries: [registry.host],
      flightTimeoutMs: 20_000,
      verdictCache: { ttlMs: 60_000, maxEntries: 100 },
      digestCache: { ttlMs: 60_000, maxEntries: 100 },
    });
  const rule = (multiArch?: "index" | "everyPlatform" | "either", platforms?: string[]) =>
    match({
      type: "sigstoreSigned",
      keySecret: "cosign-pub",
      ...(multiArch ? { multiArch } : {}),
      ...(platforms ? { platforms } : {}),
    });
  const slots = new FairSlots(4).for({ tenant: "dev", host: registry.host });
  const check = (v: ReturnType<typeof verifier>, m: PolicyMatch): Promise<ImageVerdict> =>
    v.verify({
      reference: parseReference(`${repo}:1`),
      match: m,
      namespace: "dev",
      credentials: () => Promise.resolve(ANONYMOUS),
      slots,
    });

  await t.step("index signed only: index and either admit, everyPlatform denies", async () => {
    const v = verifier();
    const byIndex = await check(v, rule());
    assert.equal(byIndex.allowed, true);
    assert.equal(byIndex.digest, world.index);
    assert.equal((byIndex as { notes?: unknown }).notes, undefined);
    assert.equal((await check(v, rule("either"))).allowed, true);
    const every = await check(v, rule("everyPlatform"));
    assert.equal(every.allowed, false);
    assert.match(
      (every as { reason: string }).reason,
      new RegExp(`\\(multiArch: everyPlatform\\): platform linux/amd64 \\(${amd64}\\): `),
    );
  });

  await t.step(
    "every platform signed (one legacy, one bundle): everyPlatform admits, pinned by the index, with a note",
    async () => {
      await signIt(amd64, "legacy");
      await signIt(arm64, "bundle");
      Object.assign(served, layout);
      const v = verifier();
      const every = await check(v, rule("everyPlatform"));
      assert.equal(every.allowed, true);
      assert.equal(every.digest, world.index);
      assert.deepEqual((every as { notes?: readonly string[] }).notes, [
        `the image index ${world.index} was admitted by the signatures of its platforms linux/amd64, linux/arm64 (multiArch: everyPlatform), not by its own; it is still pinned by its digest`,
      ]);
      const again = await check(v, rule("everyPlatform"));
      assert.equal((again as { cached?: boolean }).cached, true);
      assert.deepEqual(
        (again as { notes?: readonly string[] }).notes,
        (every as { notes?: readonly string[] }).notes,
      );
      // The platforms' verdicts are cached by their digest: another rule over them reads no signature.
      const before = registry.requests.length;
      const some = await check(v, rule("everyPlatform", ["linux/arm64"]));
      assert.equal(some.allowed, true);
      const after = registry.requests.slice(before).map((r) => r.path);
      assert.ok(
        after.every((p) => !p.includes("/referrers/") && !p.endsWith(".sig")),
        `no signature read again: ${after.join(" ")}`,
      );
    },
  );

  await t.step("a platform manifest the registry no longer has denies, named", async () => {
    served.manifests = new Map([...layout.manifests].filter(([d]) => d !== arm64));
    const v = verifier();
    const every = await check(v, rule("everyPlatform"));
    assert.equal(every.allowed, false);
    assert.match(
      (every as { reason: string }).reason,
      new RegExp(
        `platform linux/arm64 \\(${arm64}\\): the registry no longer has this platform's manifest`,
      ),
    );
    assert.equal((await check(v, rule("either"))).allowed, true, "the index is signed");
    assert.equal((await check(v, rule("everyPlatform", ["linux/amd64"]))).allowed, true);
    served.manifests = layout.manifests;
  });
});
