import assert from "node:assert/strict";
import { InvalidKeyError } from "../signature/keys.ts";
import { signBytes, testKeyPair } from "../../tests/fakes/sigstore_instance.ts";
import { isPemPublicKey, readSigstorePublicKeys, verifyWithKey } from "./public_keys.ts";

Deno.test("readSigstorePublicKeys() reads the accepted key types, several in one text, once each", async () => {
  const pairs = (["ecdsa-p256", "ecdsa-p384", "ed25519", "rsa-2048"] as const).map((t) =>
    testKeyPair(t)
  );
  const text = `# team keys\n${pairs.map((p) => p.publicPem).join("\n")}${pairs[0]!.publicPem}`;
  const keys = await readSigstorePublicKeys(text);
  assert.deepEqual(keys.map((k) => k.algorithm), ["ecdsa-p256", "ecdsa-p384", "ed25519", "rsa"]);
  assert.equal(keys[3]!.bits, 2048);
  assert.ok(keys.every((k) => /^sha256:[0-9a-f]{64}$/.test(k.id)));
  assert.equal(new Set(keys.map((k) => k.id)).size, 4);
  // The same key re-encoded has the same id.
  assert.equal((await readSigstorePublicKeys(keys[0]!.pem))[0]!.id, keys[0]!.id);
});

Deno.test("readSigstorePublicKeys() refuses what is not an accepted public key, saying which block", async () => {
  const p521 = testKeyPair("ecdsa-p521").publicPem;
  const rsa1024 = testKeyPair("rsa-1024").publicPem;
  const good = testKeyPair().publicPem;
  const privatePem = testKeyPair().privateKey.export({ type: "pkcs8", format: "pem" }) as string;
  const cases: [string, RegExp][] = [
    ["", /no PEM block/],
    ["-----BEGIN PGP PUBLIC KEY BLOCK-----\nxx\n-----END PGP PUBLIC KEY BLOCK-----", /OpenPGP key/],
    [p521, /ECDSA on secp521r1/],
    [`${good}${rsa1024}`, /PEM block 2: RSA 1024-bit \(too weak/],
    [privatePem, /it is a PRIVATE KEY, not a PUBLIC KEY \(never give a private key/],
    ["-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----", /not a PKIX public key/],
    ["-----BEGIN PUBLIC KEY-----\nAAAA\n", /no PEM block/],
  ];
  for (const [text, message] of cases) {
    await assert.rejects(readSigstorePublicKeys(text), InvalidKeyError);
    await assert.rejects(readSigstorePublicKeys(text), message);
  }
});

Deno.test("verifyWithKey() checks DER ECDSA, Ed25519 and RSA signatures over the key type's digest", async () => {
  const data = new TextEncoder().encode("payload");
  for (const type of ["ecdsa-p256", "ecdsa-p384", "ed25519", "rsa-2048"] as const) {
    const pair = testKeyPair(type);
    const [key] = await readSigstorePublicKeys(pair.publicPem);
    const signature = signBytes(pair.privateKey, data);
    assert.ok(verifyWithKey(key!.key, data, signature), type);
    assert.ok(!verifyWithKey(key!.key, new TextEncoder().encode("other"), signature), type);
  }
  assert.ok(!verifyWithKey(testKeyPair("ecdsa-p521").publicKey, data, new Uint8Array(64)));
});

Deno.test("isPemPublicKey() tells a PEM public key from an OpenPGP key", () => {
  assert.ok(isPemPublicKey(testKeyPair().publicPem));
  assert.ok(!isPemPublicKey("-----BEGIN PGP PUBLIC KEY BLOCK-----"));
  assert.ok(isPemPublicKey(new TextEncoder().encode(testKeyPair("ed25519").publicPem)));
});
