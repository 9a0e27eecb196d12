import assert from "node:assert/strict";
import * as openpgp from "openpgp";
import { generateKeyPair } from "../signing/openpgp_key_generation.ts";
import {
  InvalidKeyError,
  keyExpiry,
  keyFingerprint,
  KeyGenerationError,
  readPublicKeys,
} from "./keys.ts";
import { KeyNotAcceptedError, MAX_RSA_EXPONENT, maxRsaBits } from "./key_bounds.ts";
import {
  curveKey,
  dsaKey,
  ed448Key,
  elgamalKey,
  mpi,
  oddNumberOfBits,
  oid,
  PGP_ALGORITHM,
  PGP_CURVE_OID,
  type PgpKeySpec,
  pgpPublicKey,
  rsaKey,
} from "../../tests/fakes/hostile_keys.ts";

const CREATED = new Date("2026-03-01T10:00:00Z");
const clock = () => CREATED;

// RSA generation takes about a second: generate each kind once for the whole file.
const rsa = await generateKeyPair({
  name: "RSA Signer",
  email: "rsa@example.com",
  type: "rsa",
  clock,
});
const ed = await generateKeyPair({ name: "Ed Signer", email: "ed@example.com", clock });
const protectedPair = await generateKeyPair({
  name: "Protected",
  email: "protected@example.com",
  type: "ed25519",
  passphrase: "correct horse",
  clock,
});

Deno.test("generateKeyPair() makes an RSA-3072 key with an upper-case fingerprint", async () => {
  assert.match(rsa.fingerprint, /^[0-9A-F]{40}$/);
  assert.match(rsa.publicKeyArmored, /^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
  assert.match(rsa.privateKeyArmored, /^-----BEGIN PGP PRIVATE KEY BLOCK-----/);
  assert.match(rsa.revocationCertificate, /BEGIN PGP PUBLIC KEY BLOCK/);
  const key = await openpgp.readKey({ armoredKey: rsa.publicKeyArmored });
  assert.deepEqual(key.getAlgorithmInfo(), { algorithm: "rsaEncryptSign", bits: 3072 });
  assert.equal(key.keyPacket.version, 4);
  assert.equal(key.getFingerprint().toUpperCase(), rsa.fingerprint);
  assert.deepEqual(key.getUserIDs(), ["RSA Signer <rsa@example.com>"]);
});

Deno.test("generateKeyPair() makes a v4 EdDSA key on Curve25519 by default", async () => {
  const key = await openpgp.readKey({ armoredKey: ed.publicKeyArmored });
  assert.equal(key.keyPacket.version, 4);
  assert.deepEqual(key.getAlgorithmInfo(), { algorithm: "eddsaLegacy", curve: "ed25519Legacy" });
  assert.equal(key.getCreationTime().getTime(), CREATED.getTime());
});

Deno.test("generateKeyPair() protects the private key with the passphrase", async () => {
  const key = await openpgp.readPrivateKey({ armoredKey: protectedPair.privateKeyArmored });
  assert.equal(key.isDecrypted(), false);
  const unprotected = await openpgp.readPrivateKey({ armoredKey: ed.privateKeyArmored });
  assert.equal(unprotected.isDecrypted(), true);
});

Deno.test("generateKeyPair() sets the key expiration", async () => {
  const pair = await generateKeyPair({ name: "Short", keyExpirationTime: 3600, clock });
  const key = await openpgp.readKey({ armoredKey: pair.publicKeyArmored });
  const expires = await key.getExpirationTime();
  assert.ok(expires instanceof Date);
  assert.equal(expires.getTime(), CREATED.getTime() + 3600_000);
  const [read] = await readPublicKeys(pair.publicKeyArmored);
  assert.equal((await keyExpiry(read!))?.getTime(), CREATED.getTime() + 3600_000);
  assert.equal(await keyExpiry((await readPublicKeys(ed.publicKeyArmored))[0]!), undefined);
});

Deno.test("keyExpiry() counts the signing subkey's expiry when it comes first", async () => {
  const { publicKey } = await openpgp.generateKey({
    type: "ecc",
    curve: "ed25519Legacy",
    userIDs: [{ name: "Subkey Signer" }],
    date: CREATED,
    keyExpirationTime: 30 * 86400,
    subkeys: [{ sign: true, keyExpirationTime: 5 * 86400 }],
    format: "armored",
  });
  const [key] = await readPublicKeys(publicKey);
  const during = new Date(CREATED.getTime() + 86400_000);
  assert.equal((await keyExpiry(key!, during))?.getTime(), CREATED.getTime() + 5 * 86400_000);
  // Once the subkey has expired (the primary key signs then, until its own expiry).
  const later = new Date(CREATED.getTime() + 10 * 86400_000);
  assert.equal((await keyExpiry(key!, later))?.getTime(), CREATED.getTime() + 30 * 86400_000);
  // Past both: the primary key's expiry, in the past.
  assert.equal(
    (await keyExpiry(key!, new Date(CREATED.getTime() + 40 * 86400_000)))?.getTime(),
    CREATED.getTime() + 30 * 86400_000,
  );
});

Deno.test("generateKeyPair() rejects an empty name, a bad e-mail and an unknown type", async () => {
  await assert.rejects(generateKeyPair({ name: " " }), KeyGenerationError);
  await assert.rejects(
    generateKeyPair({ name: "X", email: "not an address" }),
    (error: unknown) =>
      error instanceof KeyGenerationError &&
      error.message.startsWith('Cannot generate a key pair for "X <not an address>"'),
  );
  await assert.rejects(
    generateKeyPair({ name: "X", type: "dsa" as unknown as "rsa" }),
    /unknown key type "dsa"/,
  );
});

Deno.test("readPublicKeys() reads one armoured key", async () => {
  const keys = await readPublicKeys(rsa.publicKeyArmored);
  assert.equal(keys.length, 1);
  assert.equal(keyFingerprint(keys[0]!), rsa.fingerprint);
  assert.equal(keys[0]!.isPrivate(), false);
});

Deno.test("readPublicKeys() reads several armoured blocks one after the other", async () => {
  const text =
    `keys of the team\n${rsa.publicKeyArmored}\n\n${ed.publicKeyArmored}trailing words\n`;
  // openpgp.js alone reads only the first block.
  assert.equal((await openpgp.readKeys({ armoredKeys: text })).length, 1);
  const keys = await readPublicKeys(text);
  assert.deepEqual(keys.map(keyFingerprint), [rsa.fingerprint, ed.fingerprint]);
});

Deno.test("readPublicKeys() reads a block holding several keys, and binary keys", async () => {
  const both = [
    ...(await openpgp.readKey({ armoredKey: rsa.publicKeyArmored })).write(),
    ...(await openpgp.readKey({ armoredKey: ed.publicKeyArmored })).write(),
  ];
  const binary = new Uint8Array(both);
  const fromBinary = await readPublicKeys(binary);
  assert.deepEqual(fromBinary.map(keyFingerprint), [rsa.fingerprint, ed.fingerprint]);
  const armored = openpgp.armor(openpgp.enums.armor.publicKey, binary);
  const fromArmored = await readPublicKeys(armored);
  assert.deepEqual(fromArmored.map(keyFingerprint), [rsa.fingerprint, ed.fingerprint]);
  const fromArmoredBytes = await readPublicKeys(new TextEncoder().encode(`keys:\n${armored}`));
  assert.deepEqual(fromArmoredBytes.map(keyFingerprint), [rsa.fingerprint, ed.fingerprint]);
});

Deno.test("readPublicKeys() merges the same key given twice, keeping its revocation", async () => {
  const key = await openpgp.readPrivateKey({ armoredKey: ed.privateKeyArmored });
  const { publicKey: revoked } = await openpgp.revokeKey({
    key,
    date: new Date(CREATED.getTime() + 1000),
    format: "armored",
  });
  const keys = await readPublicKeys(ed.publicKeyArmored + revoked);
  assert.equal(keys.length, 1);
  assert.equal(keys[0]!.revocationSignatures.length, 1);
});

Deno.test("readPublicKeys() rejects empty input and text without a key block", async () => {
  await assert.rejects(readPublicKeys(""), /the input is empty/);
  await assert.rejects(readPublicKeys(" \n"), /the input is empty/);
  await assert.rejects(readPublicKeys(new Uint8Array()), /the input is empty/);
  await assert.rejects(readPublicKeys("hello"), /no armoured PGP PUBLIC KEY BLOCK found/);
  const message = await openpgp.sign({
    message: await openpgp.createMessage({ text: "x" }),
    signingKeys: await openpgp.readPrivateKey({ armoredKey: ed.privateKeyArmored }),
  });
  await assert.rejects(readPublicKeys(message), /found a PGP MESSAGE/);
  const truncated = ed.publicKeyArmored.slice(0, ed.publicKeyArmored.indexOf("-----END"));
  await assert.rejects(readPublicKeys(truncated), /not a complete PGP PUBLIC KEY BLOCK/);
});

Deno.test("readPublicKeys() rejects a private key", async () => {
  await assert.rejects(
    readPublicKeys(rsa.privateKeyArmored),
    (error: unknown) =>
      error instanceof InvalidKeyError && /holds a private key/.test(error.message),
  );
  const binary = (await openpgp.readPrivateKey({ armoredKey: ed.privateKeyArmored })).write();
  await assert.rejects(readPublicKeys(binary), /holds a private key/);
});

Deno.test("readPublicKeys() rejects damaged key material", async () => {
  const lines = ed.publicKeyArmored.split("\n");
  const damaged = lines.map((line, i) => i === 3 ? line.replace(/[A-Za-z]/, "#") : line).join("\n");
  await assert.rejects(readPublicKeys(damaged), InvalidKeyError);
  await assert.rejects(
    readPublicKeys(crypto.getRandomValues(new Uint8Array(300))),
    InvalidKeyError,
  );
});

Deno.test("readPublicKeys() rejects a key too weak to verify signatures", async () => {
  const weak = await openpgp.generateKey({
    type: "rsa",
    rsaBits: 1024,
    userIDs: [{ name: "Weak" }],
    config: { minRSABits: 1024 },
  });
  await assert.rejects(readPublicKeys(weak.publicKey), KeyNotAcceptedError);
  await assert.rejects(
    readPublicKeys(weak.publicKey),
    /^KeyNotAcceptedError: Cannot use key "[0-9A-F]{40}": RSA modulus of 1024 bits \(too weak: at least 2047 bits\)$/,
  );
});

/** What reading `primary` (with `subkeys`) throws, or "accepted". */
async function refusal(
  primary: PgpKeySpec,
  subkeys: PgpKeySpec[] = [],
  bounds: Parameters<typeof readPublicKeys>[1] = {},
): Promise<{ key: string; problem: string } | "accepted"> {
  const key = await pgpPublicKey(primary, subkeys);
  try {
    await readPublicKeys(key.armored, bounds);
    return "accepted";
  } catch (error) {
    if (!(error instanceof KeyNotAcceptedError)) throw error;
    assert.equal(error.message, `Cannot use ${error.key}: ${error.problem}`);
    return {
      key: error.key.replace(key.fingerprint, "PRIMARY").replace(
        key.subkeyFingerprints[0] ?? "-",
        "SUB",
      ),
      problem: error.problem,
    };
  }
}

Deno.test("readPublicKeys() refuses, by fingerprint, an RSA key too large to check in bounded time", async () => {
  // The key of issue #33: a 24,576-bit modulus and exponent (18 s of the event loop per check).
  const huge = oddNumberOfBits(24576);
  assert.deepEqual(await refusal(rsaKey(huge, huge)), {
    key: 'key "PRIMARY"',
    problem: "RSA modulus of 24576 bits, more than 4096",
  });
  assert.deepEqual(
    await refusal(rsaKey(huge, 65537n), [], {
      maxRsaBits: 8192,
      maxRsaBitsSetting: "--max-rsa-key-bits",
    }),
    {
      key: 'key "PRIMARY"',
      problem: "RSA modulus of 24576 bits, more than 8192 (--max-rsa-key-bits)",
    },
  );
  // 8192 bits only when allowed.
  const n8192 = oddNumberOfBits(8192);
  assert.deepEqual(await refusal(rsaKey(n8192, 65537n)), {
    key: 'key "PRIMARY"',
    problem: "RSA modulus of 8192 bits, more than 4096",
  });
  assert.equal(await refusal(rsaKey(n8192, 65537n), [], { maxRsaBits: 8192 }), "accepted");
  assert.equal(await refusal(rsaKey(oddNumberOfBits(4096), 65537n)), "accepted");
});

Deno.test("readPublicKeys() accepts RSA public exponents that are odd, from 3 to 2^32, and no other", async () => {
  const n = oddNumberOfBits(4096);
  for (const e of [3n, 17n, 65537n, MAX_RSA_EXPONENT - 1n]) {
    assert.equal(await refusal(rsaKey(n, e)), "accepted", `e = ${e}`);
  }
  const refused: [bigint, string][] = [
    [oddNumberOfBits(24576), "RSA public exponent of 24576 bits, more than 2^32 (65537 is usual)"],
    [MAX_RSA_EXPONENT + 1n, "RSA public exponent 4294967297, more than 2^32 (65537 is usual)"],
    [65536n, "RSA public exponent 65536 (not an odd number of at least 3; 65537 is usual)"],
    [1n, "RSA public exponent 1 (not an odd number of at least 3; 65537 is usual)"],
  ];
  for (const [e, problem] of refused) {
    assert.deepEqual(await refusal(rsaKey(n, e)), { key: 'key "PRIMARY"', problem });
  }
});

Deno.test("readPublicKeys() checks every subkey, naming the one refused", async () => {
  const good = rsaKey(oddNumberOfBits(3072), 65537n);
  const huge = oddNumberOfBits(24576);
  assert.deepEqual(await refusal(good, [rsaKey(huge, huge)]), {
    key: 'key "PRIMARY" subkey "SUB"',
    problem: "RSA modulus of 24576 bits, more than 4096",
  });
  // An encryption-only RSA subkey is bounded too.
  assert.deepEqual(await refusal(good, [rsaKey(huge, 65537n, PGP_ALGORITHM.rsaEncrypt)]), {
    key: 'key "PRIMARY" subkey "SUB"',
    problem: "RSA modulus of 24576 bits, more than 4096",
  });
  assert.deepEqual(await refusal(good, [elgamalKey()]), {
    key: 'key "PRIMARY" subkey "SUB"',
    problem: "ElGamal keys are not accepted (use RSA, ECDSA or Ed25519)",
  });
  assert.deepEqual(await refusal(good, [dsaKey()]), {
    key: 'key "PRIMARY" subkey "SUB"',
    problem: "DSA keys are not accepted (use RSA, ECDSA or Ed25519)",
  });
  // ECDH (encryption) subkeys on any curve are accepted: they never verify anything.
  assert.equal(
    await refusal(good, [curveKey(PGP_CURVE_OID.curve25519Legacy, 33, PGP_ALGORITHM.ecdh)]),
    "accepted",
  );
});

Deno.test("readPublicKeys() refuses DSA, ElGamal, Ed448 and curves not verified natively", async () => {
  const cases: [PgpKeySpec, string][] = [
    [dsaKey(), "DSA keys are not accepted (use RSA, ECDSA or Ed25519)"],
    [elgamalKey(), "ElGamal keys are not accepted (use RSA, ECDSA or Ed25519)"],
    [
      curveKey(PGP_CURVE_OID.secp256k1, 65),
      "ECDSA on secp256k1 is not accepted (P-256, P-384 or P-521)",
    ],
    [
      curveKey(PGP_CURVE_OID.brainpoolP512r1, 129),
      "ECDSA on brainpoolP512r1 is not accepted (P-256, P-384 or P-521)",
    ],
    [
      ed448Key(),
      "Ed448 keys are not accepted (their checks are JavaScript arithmetic; use Ed25519)",
    ],
  ];
  for (const [spec, problem] of cases) {
    assert.deepEqual(await refusal(spec), { key: 'key "PRIMARY"', problem });
  }
  assert.equal(await refusal(curveKey(PGP_CURVE_OID.nistP521, 133)), "accepted");
  assert.equal(
    await refusal(curveKey(PGP_CURVE_OID.ed25519Legacy, 33, PGP_ALGORITHM.eddsaLegacy)),
    "accepted",
  );
});

Deno.test("maxRsaBits() allows a bound from 2048 to 8192 bits", () => {
  assert.equal(maxRsaBits(), 4096);
  assert.equal(maxRsaBits({ maxRsaBits: 8192 }), 8192);
  for (const bits of [8193, 16384, 1024, 4096.5]) {
    assert.throws(() => maxRsaBits({ maxRsaBits: bits }), RangeError);
  }
});

Deno.test("readPublicKeys() reads at most 64 KiB of key text and 64 keys", async () => {
  const key = await pgpPublicKey(rsaKey(oddNumberOfBits(3072), 65537n));
  const padding = "x".repeat(64 * 1024);
  await assert.rejects(
    readPublicKeys(`${padding}\n${key.armored}`),
    /^InvalidKeyError: Cannot read public keys: the text is 6\d{4} bytes, more than 65536 \(give only the signing keys/,
  );
  // 65 distinct Ed25519 keys (their points noise).
  const many = await Promise.all(
    Array.from({ length: 65 }, (_, i) =>
      pgpPublicKey({
        algorithm: PGP_ALGORITHM.eddsaLegacy,
        fields: [oid(PGP_CURVE_OID.ed25519Legacy), mpi((0x40n << 256n) | BigInt(i + 1))],
      })),
  );
  await assert.rejects(
    readPublicKeys(many.map((k) => k.armored).join("")),
    /holds 65 keys, more than 64$/,
  );
  assert.equal((await readPublicKeys(many.slice(1).map((k) => k.armored).join(""))).length, 64);
});
