import assert from "node:assert/strict";
import * as openpgp from "openpgp";
import { parseReference } from "../image/mod.ts";
import { parseIdentityRule } from "./identity.ts";
import { generateKeyPair } from "../signing/openpgp_key_generation.ts";
import { type PrivateKey, type PublicKey, readPublicKeys } from "./keys.ts";
import { readPrivateKey } from "../signing/private_key.ts";
import { signImage } from "../signing/sign.ts";
import { MAX_SIGNATURE_SIZE, type VerificationResult, verifySignature } from "./verify.ts";

const DIGEST = "sha256:" + "5ca1ab1e".repeat(8);
const OTHER_DIGEST = "sha256:" + "0ddba11f".repeat(8);
const REF = "quay.io/team/app:1.2";
const T0 = new Date("2026-02-01T00:00:00Z");
const T1 = new Date("2026-02-01T00:10:00Z");
const at = (date: Date) => () => date;

interface Signer {
  fingerprint: string;
  privateKey: PrivateKey;
  publicKeys: PublicKey[];
}

async function signer(type: "rsa" | "ed25519", keyExpirationTime?: number): Promise<Signer> {
  const pair = await generateKeyPair({
    name: `${type} signer`,
    email: `${type}@example.com`,
    type,
    clock: at(T0),
    ...(keyExpirationTime === undefined ? {} : { keyExpirationTime }),
  });
  return {
    fingerprint: pair.fingerprint,
    privateKey: await readPrivateKey(pair.privateKeyArmored),
    publicKeys: await readPublicKeys(pair.publicKeyArmored),
  };
}

// Key generation is slow (RSA about a second): once per file.
const rsa = await signer("rsa");
const ed = await signer("ed25519");
const other = await signer("ed25519");
const shortLived = await signer("ed25519", 3600);

async function sign(key: Signer, options: { ref?: string; digest?: string; date?: Date } = {}) {
  return await signImage({
    privateKey: key.privateKey,
    dockerReference: options.ref ?? REF,
    manifestDigest: options.digest ?? DIGEST,
    clock: at(options.date ?? T1),
  });
}

/** Signs arbitrary payload bytes the way signImage() does. */
async function signRaw(key: Signer, payload: string | Uint8Array, date = T1): Promise<Uint8Array> {
  const binary = typeof payload === "string" ? new TextEncoder().encode(payload) : payload;
  return await openpgp.sign({
    message: await openpgp.createMessage({ binary, date }),
    signingKeys: key.privateKey,
    format: "binary",
    date,
  }) as Uint8Array;
}

function payloadText(critical: Record<string, unknown> = {}, ref = REF, digest = DIGEST): string {
  return JSON.stringify({
    critical: {
      identity: { "docker-reference": ref },
      image: { "docker-manifest-digest": digest },
      type: "atomic container signature",
      ...critical,
    },
    optional: {},
  });
}

async function check(
  signature: Uint8Array,
  options: {
    keys?: readonly PublicKey[];
    image?: string;
    digest?: string;
    rule?: unknown;
    date?: Date;
    maxSize?: number;
  } = {},
): Promise<VerificationResult> {
  return await verifySignature({
    signature,
    publicKeys: options.keys ?? [...rsa.publicKeys, ...ed.publicKeys],
    expected: {
      manifestDigest: options.digest ?? DIGEST,
      reference: parseReference(options.image ?? REF),
    },
    identityRule: parseIdentityRule(options.rule),
    clock: at(options.date ?? T1),
    ...(options.maxSize === undefined ? {} : { maxSize: options.maxSize }),
  });
}

/** Collects what openpgp.js's write() returns: bytes, or a stream of byte chunks. */
async function readAll(written: unknown): Promise<Uint8Array> {
  if (written instanceof Uint8Array) return written;
  const reader = (written as ReadableStream<Uint8Array>).getReader();
  const chunks: number[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return new Uint8Array(chunks);
    chunks.push(...value);
  }
}

function rejected(result: VerificationResult, pattern: RegExp): void {
  assert.equal(result.verified, false, JSON.stringify(result));
  if (!result.verified) assert.match(result.reason, pattern);
}

Deno.test("verifySignature() accepts a signImage() signature made with RSA-3072", async () => {
  const result = await check(await sign(rsa));
  assert.deepEqual(result, {
    verified: true,
    keyFingerprint: rsa.fingerprint,
    dockerReference: REF,
    manifestDigest: DIGEST,
    creator: result.verified ? result.creator : undefined,
    timestamp: T1.getTime() / 1000,
  });
  assert.match(result.verified ? result.creator ?? "" : "", /^toolkit /);
});

Deno.test("verifySignature() accepts a signImage() signature made with Ed25519", async () => {
  const result = await check(await sign(ed));
  assert.equal(result.verified, true);
  if (result.verified) assert.equal(result.keyFingerprint, ed.fingerprint);
});

Deno.test("verifySignature() accepts a signature by any one of the trusted keys", async () => {
  const keys = [...other.publicKeys, ...rsa.publicKeys, ...ed.publicKeys];
  const result = await check(await sign(ed), { keys });
  assert.equal(result.verified && result.keyFingerprint, ed.fingerprint);
});

Deno.test("verifySignature() rejects a signature by a key that is not trusted", async () => {
  const result = await check(await sign(other));
  rejected(result, new RegExp(`^signature made by an unknown key ${other.fingerprint}$`));
  rejected(await check(await sign(ed), { keys: [] }), /unknown key/);
});

Deno.test("verifySignature() rejects a payload changed after signing", async () => {
  const signature = await sign(ed);
  const text = new TextDecoder("latin1").decode(signature);
  const at = text.indexOf("quay.io/team/app");
  assert.ok(at > 0);
  const tampered = signature.slice();
  tampered[at + 6]! ^= 0x01; // quay.io → quay.hn… still valid JSON and reference syntax
  rejected(await check(tampered), new RegExp(`^invalid signature by key ${ed.fingerprint}`));
  const rsaSignature = await sign(rsa);
  const rsaTampered = rsaSignature.slice();
  const digestAt = new TextDecoder("latin1").decode(rsaSignature).indexOf("5ca1ab1e");
  rsaTampered[digestAt]! = "6".charCodeAt(0);
  rejected(await check(rsaTampered), /^invalid signature by key/);
});

Deno.test("verifySignature() rejects a signature for another digest", async () => {
  const result = await check(await sign(rsa, { digest: OTHER_DIGEST }));
  rejected(
    result,
    new RegExp(`^signed digest ${OTHER_DIGEST} does not match the image digest ${DIGEST}$`),
  );
});

Deno.test("verifySignature() compares digests exactly, case included", async () => {
  rejected(
    await check(await sign(ed), { digest: DIGEST.toUpperCase() }),
    /does not match the image digest/,
  );
  rejected(
    await check(await sign(ed), { digest: DIGEST.replace("sha256", "sha512") }),
    /does not match/,
  );
});

Deno.test("verifySignature() rejects truncated, empty, random and oversized blobs", async () => {
  const signature = await sign(ed);
  for (const length of [1, 10, 40, signature.length - 20, signature.length - 1]) {
    const result = await check(signature.slice(0, length));
    assert.equal(result.verified, false, `truncated to ${length}`);
  }
  rejected(await check(new Uint8Array()), /^signature is empty$/);
  const random = new Uint8Array(512);
  for (let i = 0; i < 20; i++) {
    crypto.getRandomValues(random);
    assert.equal((await check(random)).verified, false);
  }
  rejected(await check(new TextEncoder().encode("hello")), /^not a valid OpenPGP message$/);
  rejected(
    await check(new Uint8Array(MAX_SIGNATURE_SIZE + 1)),
    /^signature is too large \(4194305 bytes, the limit is 4194304\)$/,
  );
  rejected(await check(signature, { maxSize: 100 }), /too large/);
});

Deno.test("verifySignature() rejects a signature made after the verification time", async () => {
  const signature = await sign(ed, { date: new Date(T1.getTime() + 3600_000) });
  rejected(await check(signature), /^signature was made in the future/);
});

Deno.test("verifySignature() rejects a key that has expired by the verification time", async () => {
  const signature = await sign(shortLived);
  const keys = shortLived.publicKeys;
  assert.equal((await check(signature, { keys })).verified, true);
  const later = new Date(T0.getTime() + 7200_000);
  rejected(
    await check(signature, { keys, date: later }),
    new RegExp(`^signing key ${shortLived.fingerprint} expired on 2026-02-01T01:00:00.000Z$`),
  );
});

Deno.test("verifySignature() rejects a revoked key", async () => {
  const signature = await sign(ed);
  const { publicKey } = await openpgp.revokeKey({
    key: ed.privateKey,
    date: T1,
    reasonForRevocation: { flag: openpgp.enums.reasonForRevocation.keyCompromised },
    format: "armored",
  });
  const keys = await readPublicKeys(publicKey);
  rejected(
    await check(signature, { keys, date: new Date(T1.getTime() + 60_000) }),
    new RegExp(`^signing key ${ed.fingerprint} is revoked$`),
  );
});

Deno.test("verifySignature() rejects an unknown critical member", async () => {
  const signature = await signRaw(ed, payloadText({ extra: "value" }));
  rejected(
    await check(signature),
    /^invalid signature payload: unknown member "extra" in critical$/,
  );
});

Deno.test("verifySignature() rejects signed payloads that are not atomic container signatures", async () => {
  rejected(
    await check(await signRaw(ed, "not json")),
    /^invalid signature payload: payload is not valid JSON/,
  );
  rejected(
    await check(await signRaw(ed, payloadText({ type: "something else" }))),
    /unrecognised signature type/,
  );
  rejected(await check(await signRaw(ed, new Uint8Array([0xff, 0xfe]))), /not UTF-8/);
  const duplicated = payloadText().replace('"type":', '"type":"x","type":');
  rejected(await check(await signRaw(ed, duplicated)), /Duplicate key "type"/);
});

Deno.test("verifySignature() checks the signature before reading the payload", async () => {
  // An unknown key with a broken payload: the key is reported, the JSON is never read.
  rejected(await check(await signRaw(other, "not json")), /unknown key/);
});

Deno.test("verifySignature() applies the identity rule", async () => {
  const signature = await sign(rsa);
  rejected(
    await check(signature, { image: "quay.io/team/app:1.3" }),
    /^signed identity quay.io\/team\/app:1.2 does not match quay.io\/team\/app:1.3 \(signedIdentity matchRepoDigestOrExact\)$/,
  );
  assert.equal((await check(signature, { image: `quay.io/team/app@${DIGEST}` })).verified, true);
  assert.equal(
    (await check(signature, { image: "quay.io/team/app:9", rule: { type: "matchRepository" } }))
      .verified,
    true,
  );
  rejected(
    await check(signature, { image: "quay.io/team/other:1.2", rule: { type: "matchRepository" } }),
    /is not in the image's repository/,
  );
});

Deno.test("verifySignature() accepts armoured and compressed messages", async () => {
  const signature = await sign(ed);
  const armored = openpgp.armor(openpgp.enums.armor.message, signature);
  assert.equal((await check(new TextEncoder().encode(`\n${armored}`))).verified, true);
  for (const algorithm of [openpgp.enums.compression.zip, openpgp.enums.compression.zlib]) {
    const signed = await openpgp.sign({
      message: await openpgp.createMessage({ binary: new TextEncoder().encode(payloadText()) }),
      signingKeys: ed.privateKey,
      format: "object",
      date: T1,
    });
    // Message.compress() exists in openpgp.js but is missing from its type declarations.
    const compressible = signed as unknown as {
      compress(algorithm: openpgp.enums.compression): openpgp.Message<Uint8Array>;
    };
    const compressed = await readAll(compressible.compress(algorithm).write());
    assert.equal(compressed[0]! & 0x3f, 8, "a compressed data packet");
    const result = await check(compressed);
    assert.equal(result.verified, true, JSON.stringify(result));
  }
});

Deno.test("verifySignature() rejects a message that is not signed or signed twice", async () => {
  const literal = await openpgp.createMessage({ binary: new TextEncoder().encode(payloadText()) });
  rejected(await check(literal.write() as Uint8Array), /^not a signed OpenPGP message$/);
  const twice = await openpgp.sign({
    message: literal,
    signingKeys: [ed.privateKey, rsa.privateKey],
    format: "binary",
    date: T1,
  }) as Uint8Array;
  rejected(await check(twice), /^the message holds 2 signatures, not exactly one$/);
  const detached = await openpgp.sign({
    message: literal,
    signingKeys: ed.privateKey,
    format: "binary",
    detached: true,
    date: T1,
  }) as Uint8Array;
  assert.equal((await check(detached)).verified, false);
});

Deno.test("verifySignature() never throws, whatever it is given", async () => {
  const result = await verifySignature({
    signature: "not bytes" as unknown as Uint8Array,
    publicKeys: ed.publicKeys,
    expected: { manifestDigest: DIGEST, reference: parseReference(REF) },
  });
  rejected(result, /not binary data/);
  const broken = await verifySignature({
    signature: await sign(ed),
    publicKeys: ed.publicKeys,
    expected: { manifestDigest: DIGEST, reference: parseReference(REF) },
    clock: () => {
      throw new Error("clock broke");
    },
  });
  rejected(broken, /clock broke/);
});

Deno.test("verifySignature() refuses to decompress more than the size limit", async () => {
  const signed = await openpgp.sign({
    message: await openpgp.createMessage({ binary: new Uint8Array(MAX_SIGNATURE_SIZE + 1024) }),
    signingKeys: ed.privateKey,
    format: "object",
    date: T1,
  });
  const compressible = signed as unknown as {
    compress(algorithm: openpgp.enums.compression): openpgp.Message<Uint8Array>;
  };
  const bomb = await readAll(compressible.compress(openpgp.enums.compression.zlib).write());
  assert.ok(bomb.length < 64 * 1024, `${bomb.length} bytes`);
  rejected(await check(bomb), /^not a valid OpenPGP message \(.*/);
});

Deno.test("verifySignature() judges the key as of the verification time, like gpg", async () => {
  // The owner re-issues the key's self-signatures after signing (e.g. to extend its expiry);
  // gpg exports only the newest one, which is newer than the signature.
  const signature = await sign(ed);
  const T2 = new Date(T1.getTime() + 3600_000);
  const reissue = async (keyExpirationTime: number) =>
    await readPublicKeys(
      (await openpgp.reformatKey({
        privateKey: ed.privateKey,
        userIDs: [{ name: "ed25519 signer", email: "ed25519@example.com" }],
        date: T2,
        keyExpirationTime,
        format: "armored",
      })).publicKey,
    );
  const extended = await reissue(0);
  const later = new Date(T2.getTime() + 60_000);
  const result = await check(signature, { keys: extended, date: later });
  assert.equal(result.verified, true, JSON.stringify(result));
  // Key expiry counts from the key's creation (T0): two hours gives 02:00.
  const short = await reissue(2 * 3600);
  assert.equal((await check(signature, { keys: short, date: later })).verified, true);
  rejected(
    await check(signature, { keys: short, date: new Date("2026-02-01T03:00:00Z") }),
    new RegExp(`^signing key ${ed.fingerprint} expired on 2026-02-01T02:00:00.000Z$`),
  );
});

Deno.test("verifySignature() reports the primary key for a signature by a signing subkey", async () => {
  const { privateKey } = await openpgp.generateKey({
    type: "ecc",
    curve: "curve25519Legacy",
    userIDs: [{ name: "With subkey" }],
    subkeys: [{}, { sign: true }],
    date: T0,
    format: "object",
  });
  const fingerprint = privateKey.getFingerprint().toUpperCase();
  const signature = await signImage({
    privateKey,
    dockerReference: REF,
    manifestDigest: DIGEST,
    clock: at(T1),
  });
  const message = await openpgp.readMessage({ binaryMessage: signature });
  const signingSubkey = privateKey.subkeys[1]!;
  assert.ok(
    message.getSigningKeyIDs()[0]!.equals(signingSubkey.getKeyID()),
    "signed by the subkey",
  );
  const keys = await readPublicKeys(privateKey.toPublic().armor());
  const result = await check(signature, { keys });
  assert.equal(result.verified && result.keyFingerprint, fingerprint);

  // The subkey revoked, the primary key fine: rejected.
  privateKey.subkeys[1] = await signingSubkey.revoke(
    privateKey.keyPacket as openpgp.SecretKeyPacket,
    undefined,
    T1,
  );
  const revoked = await readPublicKeys(privateKey.toPublic().armor());
  rejected(
    await check(signature, { keys: revoked, date: new Date(T1.getTime() + 60_000) }),
    new RegExp(
      `^signing subkey ${signingSubkey.getFingerprint().toUpperCase()} of key ${fingerprint} is revoked$`,
    ),
  );
});
