/**
 * Mutation tests of verifySignature(): thousands of damaged signatures and changed references.
 * None may throw; none that changes a signed byte or the expected image may verify; and a
 * mutation of an unsigned byte (the literal packet's file name and date, unhashed subpackets,
 * packet framing, MPI bit counts) may only ever verify to exactly the original payload.
 */
import assert from "node:assert/strict";
import { formatReference, parseReference } from "../image/mod.ts";
import { generateKeyPair } from "../signing/openpgp_key_generation.ts";
import { readPublicKeys } from "./keys.ts";
import { readPrivateKey } from "../signing/private_key.ts";
import { signImage } from "../signing/sign.ts";
import { type VerificationResult, verifySignature } from "./verify.ts";

const DIGEST = "sha256:" + "9e".repeat(32);
const REF = "quay.io/team/app:1.2";
const NOW = new Date("2026-04-01T12:00:00Z");
const clock = () => NOW;

/** A small deterministic PRNG (mulberry32), so a failure can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Fixture {
  signature: Uint8Array;
  verify(signature: Uint8Array, reference?: string, digest?: string): Promise<VerificationResult>;
  /** Offsets of bytes covered by the signature, or part of its cryptographic value. */
  signedOffsets: number[];
}

/** Reads a new-format packet header at `pos`: body start and length. */
function packetAt(bytes: Uint8Array, pos: number): { tag: number; body: number; length: number } {
  const header = bytes[pos]!;
  assert.equal(header & 0xc0, 0xc0, "openpgp.js writes new-format packets");
  const first = bytes[pos + 1]!;
  if (first < 192) return { tag: header & 0x3f, body: pos + 2, length: first };
  if (first < 224) {
    return {
      tag: header & 0x3f,
      body: pos + 3,
      length: ((first - 192) << 8) + bytes[pos + 2]! + 192,
    };
  }
  assert.equal(first, 255, "no partial lengths");
  const length = new DataView(bytes.buffer, bytes.byteOffset + pos + 2, 4).getUint32(0);
  return { tag: header & 0x3f, body: pos + 6, length };
}

/** The offsets a mutation of which must make verification fail. */
function signedOffsetsOf(signature: Uint8Array, payload: Uint8Array): number[] {
  const offsets: number[] = [];
  const onePass = packetAt(signature, 0);
  assert.equal(onePass.tag, 4);
  const literal = packetAt(signature, onePass.body + onePass.length);
  assert.equal(literal.tag, 11);
  const literalEnd = literal.body + literal.length;
  for (let i = literalEnd - payload.length; i < literalEnd; i++) offsets.push(i);
  const sig = packetAt(signature, literalEnd);
  assert.equal(sig.tag, 2);
  let pos = sig.body;
  const hashedLength = (signature[pos + 4]! << 8) | signature[pos + 5]!;
  const hashedEnd = pos + 6 + hashedLength;
  for (let i = pos; i < hashedEnd; i++) offsets.push(i); // version, type, algorithms, hashed area
  const unhashedLength = (signature[hashedEnd]! << 8) | signature[hashedEnd + 1]!;
  pos = hashedEnd + 2 + unhashedLength;
  offsets.push(pos, pos + 1); // the left 16 bits of the hash
  pos += 2;
  const end = sig.body + sig.length;
  while (pos < end) {
    const bits = (signature[pos]! << 8) | signature[pos + 1]!;
    const bytes = (bits + 7) >> 3;
    for (let i = pos + 2; i < pos + 2 + bytes; i++) offsets.push(i); // MPI value, not its bit count
    pos += 2 + bytes;
  }
  assert.equal(pos, end);
  return offsets;
}

async function fixture(type: "rsa" | "ed25519"): Promise<Fixture> {
  const pair = await generateKeyPair({ name: "Mutations", type, clock });
  const publicKeys = await readPublicKeys(pair.publicKeyArmored);
  const signature = await signImage({
    privateKey: await readPrivateKey(pair.privateKeyArmored),
    dockerReference: REF,
    manifestDigest: DIGEST,
    clock,
  });
  const payload = new TextEncoder().encode(
    `{"critical":{"identity":{"docker-reference":"${REF}"}`,
  );
  const text = new TextDecoder("latin1").decode(signature);
  const start = text.indexOf('{"critical"');
  const end = text.indexOf("}}", start) + 2;
  assert.ok(start > 0 && payload.length < end - start);
  return {
    signature,
    signedOffsets: signedOffsetsOf(signature, signature.slice(start, end)),
    verify: (sig, reference = REF, digest = DIGEST) =>
      verifySignature({
        signature: sig,
        publicKeys,
        expected: { manifestDigest: digest, reference: parseReference(reference) },
        clock,
      }),
  };
}

const ed = await fixture("ed25519");
const rsa = await fixture("rsa");

function assertOriginal(result: VerificationResult, what: string): void {
  if (!result.verified) return;
  assert.equal(result.dockerReference, REF, what);
  assert.equal(result.manifestDigest, DIGEST, what);
  assert.equal(result.timestamp, NOW.getTime() / 1000, what);
}

Deno.test("verifySignature() accepts the unmutated signatures", async () => {
  assert.equal((await ed.verify(ed.signature)).verified, true);
  assert.equal((await rsa.verify(rsa.signature)).verified, true);
});

for (const [name, fx, count] of [["Ed25519", ed, 2000], ["RSA-3072", rsa, 500]] as const) {
  Deno.test(`verifySignature() never verifies ${name} signatures with a signed byte changed`, async () => {
    const random = prng(name.length * 7919);
    for (let n = 0; n < count; n++) {
      const mutated = fx.signature.slice();
      const flips = 1 + Math.floor(random() * 3);
      const where: number[] = [];
      for (let f = 0; f < flips; f++) {
        const offset = fx.signedOffsets[Math.floor(random() * fx.signedOffsets.length)]!;
        mutated[offset]! ^= 1 << Math.floor(random() * 8);
        where.push(offset);
      }
      if (mutated.every((b, i) => b === fx.signature[i])) continue; // two flips cancelled out
      const result = await fx.verify(mutated);
      assert.equal(result.verified, false, `mutation ${n} at ${where.join(",")}`);
    }
  });
}

Deno.test("verifySignature() never throws on arbitrary byte mutations, and never verifies other content", async () => {
  const random = prng(4242);
  for (let n = 0; n < 3000; n++) {
    const original = n % 4 === 3 ? rsa : ed;
    let mutated = original.signature.slice();
    const kind = Math.floor(random() * 5);
    const at = Math.floor(random() * mutated.length);
    if (kind === 0) mutated[at]! ^= 1 << Math.floor(random() * 8);
    else if (kind === 1) mutated[at] = Math.floor(random() * 256);
    else if (kind === 2) {
      mutated = new Uint8Array([...mutated.slice(0, at), ...mutated.slice(at + 1)]);
    } else if (kind === 3) {
      mutated = new Uint8Array([
        ...mutated.slice(0, at),
        Math.floor(random() * 256),
        ...mutated.slice(at),
      ]);
    } else mutated = mutated.slice(0, at);
    const result = await original.verify(mutated);
    assertOriginal(result, `mutation ${n} (kind ${kind} at ${at})`);
  }
});

Deno.test("verifySignature() never verifies for a changed image reference or digest", async () => {
  const random = prng(99);
  const alphabet = "abcz019.-_/:@Aq";
  const original = formatReference(parseReference(REF));
  let tried = 0;
  for (let n = 0; n < 3000 && tried < 500; n++) {
    const chars = [...REF];
    const at = Math.floor(random() * chars.length);
    const c = alphabet[Math.floor(random() * alphabet.length)]!;
    const op = Math.floor(random() * 3);
    if (op === 0) chars[at] = c;
    else if (op === 1) chars.splice(at, 1);
    else chars.splice(at, 0, c);
    const candidate = chars.join("");
    let canonical: string;
    try {
      canonical = formatReference(parseReference(candidate));
    } catch {
      continue; // not a reference at all
    }
    if (canonical === original) continue;
    tried++;
    const result = await ed.verify(ed.signature, candidate);
    assert.equal(result.verified, false, candidate);
  }
  assert.ok(tried >= 200, `only ${tried} valid mutated references`);
  for (let n = 0; n < 200; n++) {
    const hex = [...DIGEST.slice(7)];
    const at = Math.floor(random() * hex.length);
    hex[at] = "0123456789abcdef".replace(hex[at]!, "")[Math.floor(random() * 15)]!;
    const result = await ed.verify(ed.signature, REF, `sha256:${hex.join("")}`);
    assert.equal(result.verified, false, hex.join(""));
  }
});
