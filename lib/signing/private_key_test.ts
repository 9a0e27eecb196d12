import assert from "node:assert/strict";
import { InvalidKeyError, keyFingerprint } from "../signature/mod.ts";
import { generateKeyPair } from "./openpgp_key_generation.ts";
import { readPrivateKey } from "./private_key.ts";

const clock = () => new Date("2026-03-01T10:00:00Z");
// RSA generation takes about a second: each kind once for the whole file.
const rsa = await generateKeyPair({
  name: "RSA Signer",
  email: "rsa@example.com",
  type: "rsa",
  clock,
});
const protectedPair = await generateKeyPair({
  name: "Protected",
  email: "protected@example.com",
  type: "ed25519",
  passphrase: "correct horse",
  clock,
});

Deno.test("readPrivateKey() reads an unprotected key", async () => {
  const key = await readPrivateKey(rsa.privateKeyArmored);
  assert.equal(keyFingerprint(key), rsa.fingerprint);
  assert.equal(key.isDecrypted(), true);
  const binary = await readPrivateKey(key.write());
  assert.equal(keyFingerprint(binary), rsa.fingerprint);
});

Deno.test("readPrivateKey() decrypts a protected key with the passphrase", async () => {
  const key = await readPrivateKey(protectedPair.privateKeyArmored, {
    passphrase: "correct horse",
  });
  assert.equal(key.isDecrypted(), true);
  await assert.rejects(readPrivateKey(protectedPair.privateKeyArmored), /none was given/);
  await assert.rejects(
    readPrivateKey(protectedPair.privateKeyArmored, { passphrase: "wrong" }),
    /passphrase is wrong/,
  );
});

Deno.test("readPrivateKey() rejects a public key and garbage", async () => {
  await assert.rejects(readPrivateKey(rsa.publicKeyArmored), InvalidKeyError);
  await assert.rejects(readPrivateKey("nothing"), InvalidKeyError);
});
