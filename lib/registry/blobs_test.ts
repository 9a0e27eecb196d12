import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { fakeRequester } from "../../tests/fakes/registry_requester.ts";
import { readBlob } from "./blobs.ts";
import { computeDigest } from "./digest.ts";
import { DigestMismatchError, RegistryError } from "./errors.ts";

const REF = parseReference("reg.example/team/app:1");
const BLOB = new TextEncoder().encode("layer bytes");

Deno.test("readBlob() reads a blob by digest within the caller's bound and checks its digest", async () => {
  const digest = await computeDigest(BLOB);
  const fake = fakeRequester(() => ({ body: BLOB }));
  assert.deepEqual(await readBlob(fake.request, REF, digest, { maxBytes: 11 }), BLOB);
  assert.equal(fake.requests[0]!.path, `/v2/team/app/blobs/${digest}`);
  assert.equal(fake.requests[0]!.maxBytes, 11);
  assert.equal(fake.requests[0]!.subject, `reg.example/team/app@${digest}`);
  const other = `sha256:${"0".repeat(64)}`;
  await assert.rejects(readBlob(fake.request, REF, other, { maxBytes: 11 }), DigestMismatchError);
});

Deno.test("readBlob() refuses an invalid digest unsent, and reports an error answer", async () => {
  const fake = fakeRequester(() => ({ status: 404, body: `{"errors":[{"code":"BLOB_UNKNOWN"}]}` }));
  await assert.rejects(
    readBlob(fake.request, REF, "sha256:../../x", { maxBytes: 1 }),
    /^RegistryError: Cannot read blob of "reg.example\/team\/app@sha256:..\/..\/x": invalid digest$/,
  );
  assert.equal(fake.requests.length, 0);
  await assert.rejects(
    readBlob(fake.request, REF, await computeDigest(BLOB), { maxBytes: 1 }),
    (e: unknown) => e instanceof RegistryError && e.code === "BLOB_UNKNOWN",
  );
});
