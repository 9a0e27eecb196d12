import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { fakeRequester } from "../../tests/fakes/registry_requester.ts";
import { computeDigest } from "./digest.ts";
import { DigestMismatchError, RegistryError } from "./errors.ts";
import { createManifestReader, DEFAULT_MAX_MANIFEST_BYTES } from "./manifests.ts";
import { MANIFEST_ACCEPT, OCI_MANIFEST } from "./media_types.ts";

const BYTES = new TextEncoder().encode(`{"schemaVersion":2,"mediaType":"${OCI_MANIFEST}"}`);

Deno.test("createManifestReader() asks for every manifest type by tag (latest by default), within its bound", async () => {
  const fake = fakeRequester(() => ({ body: BYTES, headers: { "content-type": OCI_MANIFEST } }));
  const reader = createManifestReader(fake.request, 1024);
  const manifest = await reader.getManifest(parseReference("reg.example/team/app"), {
    maxBytes: 1 << 20,
  });
  assert.equal(manifest.digest, await computeDigest(BYTES));
  assert.equal(manifest.mediaType, OCI_MANIFEST);
  const [sent] = fake.requests;
  assert.equal(sent!.method, "GET");
  assert.equal(sent!.path, "/v2/team/app/manifests/latest");
  assert.deepEqual(sent!.headers, { accept: MANIFEST_ACCEPT });
  assert.equal(sent!.maxBytes, 1024, "never more than the reader's own bound");
  assert.deepEqual(sent!.actions, ["pull"]);
  assert.equal(createManifestReader(fake.request) !== undefined, true);
  await createManifestReader(fake.request).getManifest(parseReference("reg.example/team/app:1"));
  assert.equal(fake.requests[1]!.maxBytes, DEFAULT_MAX_MANIFEST_BYTES);
});

Deno.test("headManifest() tells the announced digest and size, and checks it against the reference", async () => {
  const digest = await computeDigest(BYTES);
  const fake = fakeRequester(() => ({
    headers: { "docker-content-digest": digest, "content-length": "42" },
  }));
  const reader = createManifestReader(fake.request);
  assert.deepEqual(await reader.headManifest(parseReference("reg.example/team/app:1")), {
    digest,
    mediaType: "",
    size: 42,
  });
  const other = `sha256:${"0".repeat(64)}`;
  await assert.rejects(
    reader.headManifest(parseReference(`reg.example/team/app@${other}`)),
    DigestMismatchError,
  );
});

Deno.test("resolveDigest() asks with a GET when the HEAD answer does not tell the digest, and not after another error", async () => {
  const fake = fakeRequester((req) =>
    req.method === "HEAD"
      ? { status: 404 }
      : { body: BYTES, headers: { "content-type": OCI_MANIFEST } }
  );
  const reader = createManifestReader(fake.request);
  assert.equal(
    await reader.resolveDigest(parseReference("reg.example/team/app:1")),
    await computeDigest(BYTES),
  );
  assert.deepEqual(fake.requests.map((r) => r.method), ["HEAD", "GET"]);
  const denied = fakeRequester(() => ({ status: 403 }));
  await assert.rejects(
    createManifestReader(denied.request).resolveDigest(parseReference("reg.example/team/app:1")),
    /^RegistryError: Cannot read manifest of "reg.example\/team\/app:1": HTTP 403$/,
  );
  assert.equal(denied.requests.length, 1);
});

Deno.test("createManifestReader() refuses a reference it cannot put in a path before sending it", async () => {
  const fake = fakeRequester(() => ({ body: BYTES }));
  const reader = createManifestReader(fake.request);
  await assert.rejects(
    reader.getManifest({ domain: "reg.example", path: "Team/App", tag: "1" }),
    (e: unknown) => e instanceof RegistryError && e.message.endsWith("invalid repository path"),
  );
  assert.equal(fake.requests.length, 0);
});
