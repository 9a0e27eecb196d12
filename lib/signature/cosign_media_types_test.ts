import assert from "node:assert/strict";
import { computeDigest } from "../registry/digest.ts";
import {
  cosignSignatureTag,
  OCI_EMPTY_CONFIG,
  OCI_EMPTY_CONFIG_DIGEST,
  referrersFallbackTag,
} from "./cosign_media_types.ts";

const digest = `sha256:${"ab".repeat(32)}`;

Deno.test("cosignSignatureTag() is the digest with ':' as '-' and '.sig'", () => {
  assert.equal(cosignSignatureTag(digest), `sha256-${"ab".repeat(32)}.sig`);
});

Deno.test("referrersFallbackTag() is the digest with ':' as '-'", () => {
  assert.equal(referrersFallbackTag(digest), `sha256-${"ab".repeat(32)}`);
  assert.equal(referrersFallbackTag(`sha512:${"cd".repeat(64)}`), `sha512-${"cd".repeat(64)}`);
});

Deno.test("the tags refuse what is not a digest (no tag injection)", () => {
  for (const bad of ["latest", "sha256:", "sha256:XYZ", `sha256:${"ab".repeat(32)}/x`, ""]) {
    assert.throws(() => cosignSignatureTag(bad), TypeError);
    assert.throws(() => referrersFallbackTag(bad), TypeError);
  }
});

Deno.test("OCI_EMPTY_CONFIG_DIGEST is the digest of OCI_EMPTY_CONFIG", async () => {
  assert.equal(await computeDigest(OCI_EMPTY_CONFIG), OCI_EMPTY_CONFIG_DIGEST);
});
