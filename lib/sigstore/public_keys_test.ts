import assert from "node:assert/strict";
import { InvalidKeyError } from "../signature/keys.ts";
import { KeyNotAcceptedError } from "../signature/key_bounds.ts";
import { dsaSpkiPem, oddNumberOfBits, rsaSpkiPem } from "../../tests/fakes/hostile_keys.ts";
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
    [p521, /Cannot use key "sha256:[0-9a-f]{64}" \(PEM block 1\): ECDSA on secp521r1 is not/],
    [
      `${good}${rsa1024}`,
      /\(PEM block 2\): RSA modulus of 1024 bits \(too weak: at least 2048 bits\)$/,
    ],
    [privatePem, /it is a PRIVATE KEY, not a PUBLIC KEY \(never give a private key/],
    ["-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----", /not a PKIX public key/],
    ["-----BEGIN PUBLIC KEY-----\nAAAA\n", /no PEM block/],
  ];
  for (const [text, message] of cases) {
    await assert.rejects(readSigstorePublicKeys(text), InvalidKeyError);
    await assert.rejects(readSigstorePublicKeys(text), message);
  }
});

/** The problem reading `pem` with `bounds` reports, or "accepted". */
async function refusal(pem: string, bounds = {}): Promise<string> {
  try {
    await readSigstorePublicKeys(pem, bounds);
    return "accepted";
  } catch (error) {
    if (!(error instanceof KeyNotAcceptedError)) throw error;
    assert.match(error.key, /^key "sha256:[0-9a-f]{64}" \(PEM block 1\)$/);
    return error.problem;
  }
}

Deno.test("readSigstorePublicKeys() refuses RSA keys too large to check in bounded time, before parsing them", async () => {
  // The key of issue #33, as cosign PEM: a 24,576-bit modulus and exponent.
  const huge = oddNumberOfBits(24576);
  assert.equal(
    await refusal(rsaSpkiPem(huge, huge)),
    "RSA modulus of 24576 bits, more than 4096",
  );
  assert.equal(
    await refusal(rsaSpkiPem(oddNumberOfBits(4096), huge)),
    "RSA public exponent of 24576 bits, more than 2^32 (65537 is usual)",
  );
  assert.equal(
    await refusal(rsaSpkiPem(oddNumberOfBits(4096), 65536n)),
    "RSA public exponent 65536 (not an odd number of at least 3; 65537 is usual)",
  );
  // A bound that allows 8192 bits still stops at what the runtime's RSA verifies.
  assert.equal(
    await refusal(rsaSpkiPem(oddNumberOfBits(8192), 65537n), {
      maxRsaBits: 8192,
      maxRsaBitsSetting: "--max-rsa-key-bits",
    }),
    "RSA modulus of 8192 bits, more than 4096 (the most the runtime's RSA verifies, for cosign keys)",
  );
  assert.equal(
    await refusal(rsaSpkiPem(oddNumberOfBits(4096), 65537n), { maxRsaBits: 3072 }),
    "RSA modulus of 4096 bits, more than 3072",
  );
  assert.equal(await refusal(rsaSpkiPem(oddNumberOfBits(4096), 2n ** 32n - 1n)), "accepted");
  assert.equal(
    await refusal(dsaSpkiPem()),
    "DSA keys are not accepted (use ECDSA, Ed25519 or RSA)",
  );
});

Deno.test("readSigstorePublicKeys() reads at most 64 KiB of key text", async () => {
  const pem = testKeyPair().publicPem;
  await assert.rejects(
    readSigstorePublicKeys(`${"#".repeat(64 * 1024)}\n${pem}`),
    /^InvalidKeyError: Cannot read public keys: the text is \d+ bytes, more than 65536/,
  );
  assert.equal((await readSigstorePublicKeys(`${"#".repeat(60 * 1024)}\n${pem}`)).length, 1);
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
