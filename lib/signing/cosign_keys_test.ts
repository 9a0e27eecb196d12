import assert from "node:assert/strict";
import { p256, p384 } from "@noble/curves/nist.js";
import { decodePem } from "../pem.ts";
import {
  encryptCosignPrivateKey,
  generateCosignKeyPair,
  isCosignPrivateKey,
  readCosignPrivateKey,
  SIGSTORE_PRIVATE_KEY_PEM_LABEL,
} from "./cosign_keys.ts";
import { InvalidKeyError } from "../signature/keys.ts";

function publicKeyBytes(pem: string): Uint8Array {
  // The SubjectPublicKeyInfo ends with the uncompressed point.
  const spki = decodePem(pem)[0]!.bytes;
  return spki.subarray(spki.length - (spki.length > 100 ? 97 : 65));
}

Deno.test("generateCosignKeyPair() writes cosign's PEM files and the key signs DER ECDSA", async () => {
  const pair = await generateCosignKeyPair({ password: "pw" });
  assert.match(pair.publicKeyPem, /^-----BEGIN PUBLIC KEY-----\n/);
  assert.match(pair.privateKeyPem, /^-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----\n/);
  assert.ok(isCosignPrivateKey(pair.privateKeyPem));
  const body = JSON.parse(new TextDecoder().decode(decodePem(pair.privateKeyPem)[0]!.bytes));
  assert.deepEqual(Object.keys(body), ["kdf", "cipher", "ciphertext"]);
  assert.deepEqual(body.kdf.params, { N: 65536, r: 8, p: 1 });
  assert.equal(body.kdf.name, "scrypt");
  assert.equal(body.cipher.name, "nacl/secretbox");

  const signer = await readCosignPrivateKey(pair.privateKeyPem, "pw");
  assert.equal(signer.algorithm, "ecdsa-p256");
  assert.equal(signer.publicKeyPem, pair.publicKeyPem);
  const payload = new TextEncoder().encode("payload");
  const der = await signer.sign(payload);
  assert.equal(der[0], 0x30);
  assert.ok(
    p256.verify(der, payload, publicKeyBytes(pair.publicKeyPem), { format: "der", lowS: false }),
    "the DER signature verifies over SHA-256 of the payload",
  );
});

Deno.test("a P-384 key signs with SHA-384", async () => {
  const pair = await generateCosignKeyPair({ password: "", algorithm: "ecdsa-p384" });
  const signer = await readCosignPrivateKey(new TextEncoder().encode(pair.privateKeyPem), "");
  assert.equal(signer.algorithm, "ecdsa-p384");
  const payload = new TextEncoder().encode("payload");
  const der = await signer.sign(payload);
  assert.ok(
    p384.verify(der, payload, publicKeyBytes(pair.publicKeyPem), { format: "der", lowS: false }),
  );
});

Deno.test("readCosignPrivateKey() refuses a wrong password", async () => {
  const pair = await generateCosignKeyPair({ password: "right" });
  await assert.rejects(
    readCosignPrivateKey(pair.privateKeyPem, "wrong"),
    (e) => e instanceof InvalidKeyError && /password is wrong/.test(e.message),
  );
});

Deno.test("readCosignPrivateKey() refuses what is not a cosign key, naming why", async () => {
  const sealed = (body: unknown) =>
    `-----BEGIN ${SIGSTORE_PRIVATE_KEY_PEM_LABEL}-----\n${
      btoa(JSON.stringify(body))
    }\n-----END ${SIGSTORE_PRIVATE_KEY_PEM_LABEL}-----\n`;
  const good = {
    kdf: { name: "scrypt", params: { N: 65536, r: 8, p: 1 }, salt: btoa("s".repeat(32)) },
    cipher: { name: "nacl/secretbox", nonce: btoa("n".repeat(24)) },
    ciphertext: btoa("c".repeat(64)),
  };
  const cases: [string, string][] = [
    ["-----BEGIN PUBLIC KEY-----\nMAA=\n-----END PUBLIC KEY-----\n", "no ENCRYPTED SIGSTORE"],
    ["not pem", "no PEM block"],
    [sealed("x"), "scrypt"],
    [sealed({ ...good, kdf: { ...good.kdf, name: "argon2" } }), "not scrypt"],
    [sealed({ ...good, cipher: { name: "aes" } }), "not nacl/secretbox"],
    [sealed({ ...good, kdf: { ...good.kdf, params: { N: 1 << 24, r: 8, p: 1 } } }), "parameters"],
    [sealed({ ...good, cipher: { ...good.cipher, nonce: btoa("n") } }), "nonce is not 24"],
    [sealed(good), "password is wrong"],
    ["x".repeat(70_000), "larger than"],
  ];
  for (const [input, message] of cases) {
    await assert.rejects(
      readCosignPrivateKey(input, "pw"),
      (e) => e instanceof InvalidKeyError && e.message.includes(message),
      message,
    );
  }
});

Deno.test("readCosignPrivateKey() refuses a key that is not ECDSA P-256/P-384", async () => {
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const pem = await encryptCosignPrivateKey(pkcs8, "pw");
  await assert.rejects(
    readCosignPrivateKey(pem, "pw"),
    (e) => e instanceof InvalidKeyError && /not an ECDSA P-256 or P-384 key/.test(e.message),
  );
});

Deno.test("CosignSigner.verify() accepts its own signatures only", async () => {
  const pair = await generateCosignKeyPair({ password: "pw" });
  const signer = await readCosignPrivateKey(pair.privateKeyPem, "pw");
  const other = await readCosignPrivateKey(
    (await generateCosignKeyPair({ password: "pw" })).privateKeyPem,
    "pw",
  );
  const payload = new TextEncoder().encode("payload");
  const signature = await signer.sign(payload);
  assert.equal(await signer.verify(payload, signature), true);
  assert.equal(await signer.verify(new TextEncoder().encode("other"), signature), false);
  assert.equal(await other.verify(payload, signature), false);
  assert.equal(await signer.verify(payload, new Uint8Array([1, 2, 3])), false);
});
