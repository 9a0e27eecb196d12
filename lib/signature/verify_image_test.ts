import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { generateKeyPair } from "../signing/openpgp_key_generation.ts";
import { readPublicKeys } from "./keys.ts";
import { signImage } from "../signing/sign.ts";
import { NO_SIGNATURE_REASON, verifyImageSignatures } from "./verify_image.ts";

const DIGEST = `sha256:${"a".repeat(64)}`;
const OTHER = `sha256:${"b".repeat(64)}`;
const pair = await generateKeyPair({ name: "Signer", type: "ed25519" });
const keys = await readPublicKeys(pair.publicKeyArmored);
const expected = { manifestDigest: DIGEST, reference: parseReference("quay.io/a/b:1") };

Deno.test("verifyImageSignatures() says no signature exists for an empty list", async () => {
  const result = await verifyImageSignatures({ signatures: [], publicKeys: keys, expected });
  assert.deepEqual(result, { verified: false, reason: NO_SIGNATURE_REASON, reasons: [] });
});

Deno.test("verifyImageSignatures() accepts any one valid signature among bad ones", async () => {
  const good = await signImage({
    privateKey: pair.privateKeyArmored,
    dockerReference: "quay.io/a/b:1",
    manifestDigest: DIGEST,
  });
  const result = await verifyImageSignatures({
    signatures: [new Uint8Array([1, 2, 3]), good],
    publicKeys: keys,
    expected,
  });
  assert.equal(result.verified, true);
});

Deno.test("verifyImageSignatures() keeps the reason of every rejected signature", async () => {
  const wrongDigest = await signImage({
    privateKey: pair.privateKeyArmored,
    dockerReference: "quay.io/a/b:1",
    manifestDigest: OTHER,
  });
  const result = await verifyImageSignatures({
    signatures: [wrongDigest, new Uint8Array([1, 2, 3])],
    publicKeys: keys,
    expected,
  });
  assert.equal(result.verified, false);
  if (!result.verified) {
    assert.equal(result.reasons.length, 2);
    assert.match(
      result.reason,
      /^None of the signatures were accepted, reasons: .*does not match.*; /,
    );
  }
});
