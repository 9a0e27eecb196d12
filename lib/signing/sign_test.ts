import assert from "node:assert/strict";
import * as openpgp from "openpgp";
import { VERSION } from "../version.ts";
import { generateKeyPair } from "./openpgp_key_generation.ts";
import { readPrivateKey } from "./private_key.ts";
import { signImage } from "./sign.ts";
import { SigningError } from "../signature/mod.ts";

const DIGEST = "sha256:" + "c0ffee00".repeat(8);
const REF = "registry.example.com:5000/team/app:1.2";
const NOW = new Date("2026-05-06T07:08:09Z");
const clock = () => NOW;

const pair = await generateKeyPair({ name: "Signer", email: "signer@example.com", clock });
const privateKey = await readPrivateKey(pair.privateKeyArmored);
const protectedPair = await generateKeyPair({ name: "P", passphrase: "pw", clock });

/** The packet tags of a binary OpenPGP message, outermost level. */
function packetTags(bytes: Uint8Array): number[] {
  const tags: number[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const header = bytes[pos]!;
    assert.ok(header & 0x80, "packet header bit");
    assert.ok(header & 0x40, "openpgp.js writes new-format packet headers");
    tags.push(header & 0x3f);
    const first = bytes[pos + 1]!;
    let length: number;
    let lengthSize: number;
    if (first < 192) [length, lengthSize] = [first, 1];
    else if (first < 224) [length, lengthSize] = [((first - 192) << 8) + bytes[pos + 2]! + 192, 2];
    else if (first === 255) {
      length = new DataView(bytes.buffer, bytes.byteOffset + pos + 2, 4).getUint32(0);
      lengthSize = 5;
    } else throw new Error("partial lengths are not expected");
    pos += 1 + lengthSize + length;
  }
  return tags;
}

Deno.test("signImage() returns a binary signed message: one-pass signature, literal data, signature", async () => {
  const signature = await signImage({
    privateKey,
    dockerReference: REF,
    manifestDigest: DIGEST,
    clock,
  });
  assert.ok(signature instanceof Uint8Array);
  // 4 = one-pass signature, 11 = literal data, 2 = signature; no compression, no armour.
  assert.deepEqual(packetTags(signature), [4, 11, 2]);
});

Deno.test("signImage() signs the JSON payload with the clock's time", async () => {
  const signature = await signImage({
    privateKey,
    dockerReference: REF,
    manifestDigest: DIGEST,
    clock,
  });
  const message = await openpgp.readMessage({ binaryMessage: signature });
  const result = await openpgp.verify({
    message,
    verificationKeys: await openpgp.readKey({ armoredKey: pair.publicKeyArmored }),
    format: "binary",
    expectSigned: true,
    date: NOW,
  });
  const payload = JSON.parse(new TextDecoder().decode(result.data as Uint8Array));
  assert.deepEqual(payload, {
    critical: {
      identity: { "docker-reference": REF },
      image: { "docker-manifest-digest": DIGEST },
      type: "atomic container signature",
    },
    optional: { creator: `toolkit ${VERSION}`, timestamp: NOW.getTime() / 1000 },
  });
  const packet = (await result.signatures[0]!.signature).packets[0]!;
  assert.equal(packet.created?.getTime(), NOW.getTime());
  assert.equal(packet.signatureType, openpgp.enums.signature.binary);
});

Deno.test("signImage() accepts an armoured private key, protected with a passphrase", async () => {
  const signature = await signImage({
    privateKey: protectedPair.privateKeyArmored,
    passphrase: "pw",
    dockerReference: REF,
    manifestDigest: DIGEST,
    clock,
  });
  const message = await openpgp.readMessage({ binaryMessage: signature });
  assert.equal(
    message.getSigningKeyIDs()[0]!.toHex().toUpperCase(),
    protectedPair.fingerprint.slice(24),
  );
  await assert.rejects(
    signImage({
      privateKey: protectedPair.privateKeyArmored,
      dockerReference: REF,
      manifestDigest: DIGEST,
    }),
    (error: unknown) => error instanceof SigningError && /none was given/.test(error.message),
  );
});

Deno.test("signImage() refuses references that are not fully qualified with a tag or digest", async () => {
  for (const ref of ["nginx:1", "docker.io/nginx:1", "docker.io/library/nginx", "Bad/Ref:1", ""]) {
    await assert.rejects(
      signImage({ privateKey, dockerReference: ref, manifestDigest: DIGEST }),
      (error: unknown) =>
        error instanceof SigningError && error.message.startsWith(`Cannot sign "`),
      ref,
    );
  }
  // A digest reference is fine.
  await signImage({
    privateKey,
    dockerReference: `docker.io/library/nginx@${DIGEST}`,
    manifestDigest: DIGEST,
  });
});

Deno.test("signImage() refuses a malformed digest", async () => {
  await assert.rejects(
    signImage({ privateKey, dockerReference: REF, manifestDigest: "sha256:1234" }),
    /is not a manifest digest/,
  );
});
