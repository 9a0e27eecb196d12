import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { e2eSkipReason, pushTestImage, startRegistry } from "../../tests/env/mod.ts";
import { createRegistryClient } from "../registry/client.ts";
import { appendCosignSignature, pushCosignBundle } from "./cosign_push.ts";
import { computeDigest } from "../registry/digest.ts";
import { RegistryError } from "../registry/errors.ts";
import { OCI_INDEX, OCI_MANIFEST } from "../registry/media_types.ts";
import { pushManifest } from "./registry_push.ts";
import { serve } from "../../tests/fakes/loopback_server.ts";
import {
  COSIGN_SIGNATURE_ANNOTATION,
  cosignSignatureTag,
  OCI_EMPTY_CONFIG_DIGEST,
  referrersFallbackTag,
} from "../signature/cosign_media_types.ts";

const ignore = e2eSkipReason(["docker-registry", "skopeo"]) !== undefined;
const encoder = new TextEncoder();
const PREDICATE = "https://sigstore.dev/cosign/sign/v1";

/** The distribution registry with an image pushed, and a client for it. */
async function withImage() {
  const registry = await startRegistry();
  const client = createRegistryClient({ insecureRegistries: [registry.host] });
  const digest = await pushTestImage(`${registry.host}/demo/app:1`);
  const repo = parseReference(`${registry.host}/demo/app`);
  return {
    registry,
    client,
    digest,
    repo,
    async [Symbol.asyncDispose]() {
      client.close();
      await registry.stop();
    },
  };
}

async function manifestJson(url: string, repo: string, reference: string) {
  const response = await fetch(`${url}/v2/${repo}/manifests/${reference}`, {
    headers: { accept: `${OCI_INDEX}, ${OCI_MANIFEST}` },
  });
  return response.ok ? await response.json() : (await response.body?.cancel(), undefined);
}

Deno.test({
  name: "appendCosignSignature() adds layers, keeps the others and skips the same signature",
  ignore,
  fn: async () => {
    await using setup = await withImage();
    const { registry, client, digest, repo } = setup;
    const layer = (text: string) => ({
      payload: encoder.encode(text),
      signatureBase64: btoa(text),
    });
    const never = { isSameSignature: () => Promise.resolve(false) };

    const first = await appendCosignSignature(client, repo, digest, layer("one"), never);
    assert.deepEqual([first.tag, first.added, first.signatures], [
      cosignSignatureTag(digest),
      true,
      1,
    ]);
    const second = await appendCosignSignature(client, repo, digest, layer("two"), never);
    assert.equal(second.signatures, 2);
    const manifest = await manifestJson(registry.url, "demo/app", first.tag);
    assert.equal(manifest.mediaType, OCI_MANIFEST);
    assert.deepEqual(
      manifest.layers.map((l: { annotations: Record<string, string> }) =>
        l.annotations[COSIGN_SIGNATURE_ANNOTATION]
      ),
      [btoa("one"), btoa("two")],
    );
    const config = await (await fetch(
      `${registry.url}/v2/demo/app/blobs/${manifest.config.digest}`,
    )).json();
    assert.deepEqual(config.rootfs.diff_ids, [
      await computeDigest(encoder.encode("one")),
      await computeDigest(encoder.encode("two")),
    ]);
    assert.equal(config.history.length, 2);

    // The same payload whose signature the key verifies: nothing is written.
    const seen: string[] = [];
    const same = await appendCosignSignature(client, repo, digest, layer("one"), {
      isSameSignature: (payload, signature) => {
        seen.push(new TextDecoder().decode(payload), new TextDecoder().decode(signature));
        return Promise.resolve(true);
      },
    });
    assert.deepEqual([same.added, same.signatures, same.manifestDigest], [
      false,
      2,
      second.manifestDigest,
    ]);
    assert.deepEqual(seen, ["one", "one"], "only the layer with the same payload is checked");
  },
});

Deno.test({
  name: "the cosign writers refuse to overwrite tags that hold something else",
  ignore,
  fn: async () => {
    await using setup = await withImage();
    const { client, digest, repo } = setup;
    const subject = await client.headManifest({ ...repo, digest });
    const index = encoder.encode(JSON.stringify({ schemaVersion: 2, mediaType: OCI_INDEX }));
    for (const tag of [cosignSignatureTag(digest), referrersFallbackTag(digest)]) {
      await pushManifest(client, repo, tag, { bytes: index, mediaType: OCI_INDEX });
    }
    await assert.rejects(
      appendCosignSignature(client, repo, digest, {
        payload: encoder.encode("x"),
        signatureBase64: "eA==",
      }, {
        isSameSignature: () => Promise.resolve(false),
      }),
      (e) =>
        e instanceof RegistryError &&
        /holds something else than a signature manifest/.test(e.message),
    );
    await assert.rejects(
      pushCosignBundle(client, repo, subject, encoder.encode("{}"), {
        predicateType: PREDICATE,
        created: new Date(0),
      }),
      (e) =>
        e instanceof RegistryError &&
        /holds something else than an OCI image index/.test(e.message),
    );
  },
});

Deno.test({
  name: "pushCosignBundle() lists two bundles under the fallback tag, sorted, each once",
  ignore,
  fn: async () => {
    await using setup = await withImage();
    const { registry, client, digest, repo } = setup;
    const subject = await client.headManifest({ ...repo, digest });
    const pushed = [];
    for (const body of ['{"a":1}', '{"b":2}', '{"b":2}']) {
      pushed.push(
        await pushCosignBundle(client, repo, subject, encoder.encode(body), {
          predicateType: PREDICATE,
          created: new Date("2026-11-25T14:50:48.123Z"),
        }),
      );
    }
    assert.ok(pushed.every((p) => p.listedBy === "fallback-tag"));
    assert.equal(pushed[1]!.manifestDigest, pushed[2]!.manifestDigest, "same bundle, same time");
    const index = await manifestJson(registry.url, "demo/app", referrersFallbackTag(digest));
    const digests = index.manifests.map((d: { digest: string }) => d.digest);
    assert.deepEqual(digests, [pushed[0]!.manifestDigest, pushed[1]!.manifestDigest].sort());
    const referrer = await manifestJson(registry.url, "demo/app", pushed[0]!.manifestDigest);
    assert.equal(referrer.config.digest, OCI_EMPTY_CONFIG_DIGEST);
    assert.deepEqual(referrer.subject, {
      mediaType: subject.mediaType,
      size: subject.size,
      digest,
    });
    assert.equal(referrer.annotations["org.opencontainers.image.created"], "2026-11-25T14:50:48Z");
    assert.equal(referrer.annotations["dev.sigstore.bundle.predicateType"], PREDICATE);
  },
});

/** A registry stand-in for what a real one does not show (every blob is missing). */
function fakeRegistry(options: { location?: string; ociSubject?: string }) {
  return serve((request) => {
    const url = new URL(request.url);
    if (request.method === "HEAD") return new Response(null, { status: 404 });
    if (request.method === "POST") {
      return new Response(null, {
        status: 202,
        headers: { location: options.location ?? `${url.pathname}session` },
      });
    }
    if (request.method === "PUT" && url.pathname.includes("/blobs/")) {
      return new Response(null, { status: 201 });
    }
    if (request.method === "PUT") {
      return new Response(null, {
        status: 201,
        headers: options.ociSubject ? { "oci-subject": options.ociSubject } : {},
      });
    }
    return new Response("not here", { status: 500 });
  });
}

Deno.test("a blob upload sent to another host is refused before the blob leaves", async () => {
  await using server = fakeRegistry({ location: "https://storage.example/upload?x=1" });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const repo = parseReference(`${server.host}/demo/app`);
  await assert.rejects(
    pushCosignBundle(
      client,
      repo,
      { digest: `sha256:${"a".repeat(64)}`, mediaType: OCI_MANIFEST, size: 10 },
      encoder.encode("{}"),
      { predicateType: PREDICATE, created: new Date() },
    ),
    /sends the upload to another host \(storage\.example\)/,
  );
  assert.ok(!server.requests.some((r) => r.method === "PUT"));
});

Deno.test("an OCI-Subject answer means the registry lists the referrer: no probe, no tag", async () => {
  const subject = `sha256:${"b".repeat(64)}`;
  await using server = fakeRegistry({ ociSubject: subject });
  using client = createRegistryClient({ insecureRegistries: [server.host] });
  const pushed = await pushCosignBundle(
    client,
    parseReference(`${server.host}/demo/app`),
    { digest: subject, mediaType: OCI_MANIFEST, size: 10 },
    encoder.encode("{}"),
    { predicateType: PREDICATE, created: new Date() },
  );
  assert.equal(pushed.listedBy, "referrers-api");
  assert.deepEqual(
    server.requests.map((r) => `${r.method} ${r.path.replace(/sha256(:|%3A)[0-9a-f]+/g, "D")}`),
    [
      "HEAD /v2/demo/app/blobs/D",
      "POST /v2/demo/app/blobs/uploads/",
      "PUT /v2/demo/app/blobs/uploads/session?digest=D",
      "HEAD /v2/demo/app/blobs/D",
      "POST /v2/demo/app/blobs/uploads/",
      "PUT /v2/demo/app/blobs/uploads/session?digest=D",
      "PUT /v2/demo/app/manifests/D",
    ],
  );
});
