import assert from "node:assert/strict";
import {
  makeSigningKeyPair,
  NotASigningKeyError,
  readOpenPgpSigningKey,
  signingKeyPairOf,
} from "./key_pair.ts";
import { readPublicKeys, verifySignature } from "../signature/mod.ts";
import { signImage } from "./mod.ts";
import { parseReference } from "../image/mod.ts";

Deno.test("a new OpenPGP pair reads back from its private half alone, and signs", async () => {
  const pair = await makeSigningKeyPair({ format: "simple", keyType: "ed25519", name: "CI" });
  assert.match(pair.fingerprint, /^[0-9A-F]{40}$/);
  const again = await signingKeyPairOf(pair.privateKey, "vault key x");
  assert.equal(again.fingerprint, pair.fingerprint);
  assert.equal(again.publicKey.trim(), pair.publicKey.trim());
  const [publicKey] = await readPublicKeys(again.publicKey);
  const key = await readOpenPgpSigningKey(pair.privateKey, "vault key x");
  const digest = `sha256:${"a".repeat(64)}`;
  const signature = await signImage({
    privateKey: key,
    dockerReference: "us.icr.io/team/app:1",
    manifestDigest: digest,
  });
  const verified = await verifySignature({
    signature,
    publicKeys: [publicKey!],
    expected: { reference: parseReference("us.icr.io/team/app:1"), manifestDigest: digest },
  });
  assert.ok(verified.verified, JSON.stringify(verified));
  assert.equal(verified.keyFingerprint, pair.fingerprint);
});

Deno.test("a new cosign pair reads back with its password", async () => {
  const pair = await makeSigningKeyPair({ format: "cosign", name: "unused" });
  assert.match(pair.fingerprint, /^[0-9a-f]{64}$/);
  assert.ok(pair.cosignPassword);
  const again = await signingKeyPairOf(pair.privateKey, "vault key c", {
    cosignPassword: pair.cosignPassword,
  });
  assert.equal(again.fingerprint, pair.fingerprint);
  await assert.rejects(
    () => signingKeyPairOf(pair.privateKey, "vault key c"),
    /its password is needed/,
  );
});

Deno.test("material that is no signing key is refused, naming it", async () => {
  await assert.rejects(
    () => signingKeyPairOf(new TextEncoder().encode("just some bytes"), "vault key k"),
    (e) =>
      e instanceof NotASigningKeyError &&
      e.message.startsWith(
        "vault key k is not a signing key: it holds neither an OpenPGP private key nor a cosign private key",
      ),
  );
  const pair = await makeSigningKeyPair({ format: "simple", keyType: "ed25519", name: "CI" });
  await assert.rejects(
    () => signingKeyPairOf(new TextEncoder().encode(pair.publicKey), "vault key p"),
    NotASigningKeyError,
  );
});
