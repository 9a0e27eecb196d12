import assert from "node:assert/strict";
import type { ImageReference } from "../image/mod.ts";
import {
  ImageIndexBoundError,
  ImageIndexFormatError,
  MAX_INDEX_MANIFESTS,
  readImageManifestShape,
} from "./image_index.ts";
import { DOCKER_MANIFEST_LIST, OCI_INDEX, OCI_MANIFEST } from "./media_types.ts";
import type { Manifest } from "./client_types.ts";

const digest = (n: number) => `sha256:${n.toString(16).padStart(64, "0")}`;
const ref = { domain: "r.example", path: "app", digest: digest(1) };

function entry(n: number, platform?: string, mediaType = OCI_MANIFEST, extra = {}) {
  const [os, architecture, variant] = platform?.split("/") ?? [];
  return {
    mediaType,
    digest: digest(n),
    size: 500,
    ...(platform ? { platform: { os, architecture, ...(variant ? { variant } : {}) } } : {}),
    ...extra,
  };
}

function fakeClient(manifests: Record<string, { mediaType: string; body: unknown }>) {
  const asked: string[] = [];
  return {
    asked,
    getManifest(r: ImageReference): Promise<Manifest> {
      asked.push(r.digest!);
      const m = manifests[r.digest!];
      if (m === undefined) return Promise.reject(new Error(`no manifest ${r.digest}`));
      const bytes = new TextEncoder().encode(JSON.stringify(m.body));
      return Promise.resolve({
        digest: r.digest!,
        mediaType: m.mediaType,
        size: bytes.length,
        bytes,
      });
    },
  };
}

Deno.test("readImageManifestShape() says an image is not an index, in one read", async () => {
  const client = fakeClient({ [digest(1)]: { mediaType: OCI_MANIFEST, body: { config: {} } } });
  assert.deepEqual(await readImageManifestShape(client, ref), {
    index: false,
    mediaType: OCI_MANIFEST,
  });
  assert.deepEqual(client.asked, [digest(1)]);
});

Deno.test("readImageManifestShape() lists the platforms of an index, attestations marked", async () => {
  const client = fakeClient({
    [digest(1)]: {
      mediaType: DOCKER_MANIFEST_LIST,
      body: {
        manifests: [
          entry(2, "linux/amd64"),
          entry(3, "linux/arm64/v8"),
          entry(4, "unknown/unknown", OCI_MANIFEST, {
            annotations: { "vnd.docker.reference.type": "attestation-manifest" },
          }),
          entry(5),
        ],
      },
    },
  });
  const shape = await readImageManifestShape(client, ref);
  assert.ok(shape.index);
  assert.deepEqual(
    shape.manifests.map((m) => [m.digest, m.platform, m.attestation]),
    [
      [digest(2), "linux/amd64", false],
      [digest(3), "linux/arm64/v8", false],
      [digest(4), "unknown/unknown", true],
      [digest(5), undefined, false],
    ],
  );
});

Deno.test("readImageManifestShape() reads one level of nested indexes", async () => {
  const client = fakeClient({
    [digest(1)]: {
      mediaType: OCI_INDEX,
      body: { manifests: [entry(2, "linux/amd64"), entry(9, undefined, OCI_INDEX)] },
    },
    [digest(9)]: { mediaType: OCI_INDEX, body: { manifests: [entry(3, "linux/arm64")] } },
  });
  const shape = await readImageManifestShape(client, ref);
  assert.ok(shape.index);
  assert.deepEqual(shape.manifests.map((m) => m.platform), ["linux/amd64", "linux/arm64"]);
});

Deno.test("readImageManifestShape() refuses an index over its bounds before reading what it lists", async () => {
  const many = Array.from(
    { length: MAX_INDEX_MANIFESTS + 1 },
    (_, i) => entry(10 + i, "linux/amd64"),
  );
  const big = fakeClient({ [digest(1)]: { mediaType: OCI_INDEX, body: { manifests: many } } });
  await assert.rejects(
    readImageManifestShape(big, ref),
    (e: unknown) =>
      e instanceof ImageIndexBoundError &&
      e.message ===
        `the image index r.example/app@${
          digest(1)
        } lists 65 manifests (its nested indexes' included); at most 64 are read`,
  );
  assert.deepEqual(big.asked, [digest(1)]);

  const deep = fakeClient({
    [digest(1)]: { mediaType: OCI_INDEX, body: { manifests: [entry(9, undefined, OCI_INDEX)] } },
    [digest(9)]: { mediaType: OCI_INDEX, body: { manifests: [entry(8, undefined, OCI_INDEX)] } },
  });
  await assert.rejects(
    readImageManifestShape(deep, ref),
    (e: unknown) =>
      e instanceof ImageIndexBoundError && e.bound === "nesting" &&
      e.message ===
        `the image index r.example/app@${digest(1)} nests indexes 2 levels deep; at most 1 is read`,
  );
  assert.deepEqual(deep.asked, [digest(1), digest(9)]);

  const spread = fakeClient({
    [digest(1)]: {
      mediaType: OCI_INDEX,
      body: { manifests: [entry(9, undefined, OCI_INDEX), entry(8, undefined, OCI_INDEX)] },
    },
    [digest(9)]: { mediaType: OCI_INDEX, body: { manifests: many.slice(0, 40) } },
    [digest(8)]: { mediaType: OCI_INDEX, body: { manifests: many.slice(0, 40) } },
  });
  await assert.rejects(
    readImageManifestShape(spread, ref),
    (e: unknown) => e instanceof ImageIndexBoundError && e.bound === "manifests",
  );
});

Deno.test("readImageManifestShape() refuses an index without valid entries", async () => {
  const client = fakeClient({
    [digest(1)]: { mediaType: OCI_INDEX, body: { manifests: [{ digest: "sha256:nope" }] } },
  });
  await assert.rejects(
    readImageManifestShape(client, ref),
    (e: unknown) =>
      e instanceof ImageIndexFormatError && /manifests\[0\] has no valid digest/.test(e.message),
  );
});
