import assert from "node:assert/strict";
import * as openpgp from "openpgp";
import {
  generateKeyPair,
  InvalidKeyError,
  keyFingerprint,
  KeyGenerationError,
  readPrivateKey,
  readPublicKeys,
} from "./keys.ts";

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
  await assert.rejects(
    readPublicKeys(weak.publicKey),
    /no key that can verify signatures \(RSA 1024-bit \(too weak\)/,
  );
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
