import assert from "node:assert/strict";
import { checkDigest, computeDigest, digestAlgorithm } from "./digest.ts";

const EMPTY_SHA256 = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

Deno.test("computeDigest() returns the sha256 of the bytes by default", async () => {
  assert.equal(await computeDigest(new Uint8Array()), EMPTY_SHA256);
});

Deno.test("computeDigest() supports sha512", async () => {
  const digest = await computeDigest(new TextEncoder().encode("abc"), "sha512");
  assert.match(digest, /^sha512:ddaf35a193617aba[0-9a-f]{112}$/);
});

Deno.test("checkDigest() compares with the algorithm of the expected digest", async () => {
  const bytes = new TextEncoder().encode("abc");
  const sha512 = await computeDigest(bytes, "sha512");
  assert.deepEqual(await checkDigest(bytes, sha512), { matches: true, actual: sha512 });
  const other = await checkDigest(bytes, EMPTY_SHA256);
  assert.equal(other.matches, false);
  assert.equal(other.actual, await computeDigest(bytes));
});

Deno.test("checkDigest() never matches an invalid expected digest", async () => {
  const result = await checkDigest(new Uint8Array(), EMPTY_SHA256.toUpperCase());
  assert.equal(result.matches, false);
});

Deno.test("digestAlgorithm() names the algorithm of a valid digest only", () => {
  assert.equal(digestAlgorithm(EMPTY_SHA256), "sha256");
  assert.equal(digestAlgorithm("md5:abc"), undefined);
});

Deno.test("computeDigest() names an algorithm it does not support, even an Object property", async () => {
  for (const algorithm of ["constructor", "toString", "__proto__", "md5"]) {
    await assert.rejects(
      () => computeDigest(new Uint8Array(), algorithm as "sha256"),
      (e: unknown) => {
        assert.ok(e instanceof TypeError);
        assert.equal(e.message, `Unsupported digest algorithm "${algorithm}"`);
        return true;
      },
    );
    assert.equal(digestAlgorithm(`${algorithm}:${"a".repeat(64)}`), undefined);
  }
});
