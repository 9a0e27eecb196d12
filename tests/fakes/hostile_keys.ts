/**
 * Key material a hostile tenant could put in a key Secret, built packet by packet so that a test
 * needs neither primes nor minutes of key generation: OpenPGP v4 public keys (RSA with any
 * modulus and exponent, DSA, ElGamal, ECDSA/EdDSA on any curve OID, with subkeys), an OpenPGP
 * simple-signing signature "by" such a key (its value is noise: checking it costs what the
 * key's arithmetic costs), and PEM SubjectPublicKeyInfo for cosign keys.
 *
 * Nothing here is a valid signature; the self-signatures are noise too, which is what makes
 * openpgp.js spend the key's arithmetic on them when it looks for a signing key.
 *
 * @module
 */
import { encodeBase64 } from "../../lib/base64.ts";
import { encodePem } from "../../lib/pem.ts";

/** OpenPGP public-key algorithm numbers (RFC 9580, 9.1). */
export const PGP_ALGORITHM = {
  rsa: 1,
  rsaEncrypt: 2,
  elgamal: 16,
  dsa: 17,
  ecdh: 18,
  ecdsa: 19,
  eddsaLegacy: 22,
  ed25519: 27,
  ed448: 28,
} as const;

/** Curve OIDs as OpenPGP writes them (without the DER tag and length). */
export const PGP_CURVE_OID = {
  nistP256: [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07],
  nistP521: [0x2b, 0x81, 0x04, 0x00, 0x23],
  secp256k1: [0x2b, 0x81, 0x04, 0x00, 0x0a],
  brainpoolP512r1: [0x2b, 0x24, 0x03, 0x03, 0x02, 0x08, 0x01, 0x01, 0x0d],
  ed25519Legacy: [0x2b, 0x06, 0x01, 0x04, 0x01, 0xda, 0x47, 0x0f, 0x01],
  curve25519Legacy: [0x2b, 0x06, 0x01, 0x04, 0x01, 0x97, 0x55, 0x01, 0x05, 0x01],
} as const;

/** One key packet: its algorithm and its public parameters in order (MPIs, or raw fields). */
export interface PgpKeySpec {
  readonly algorithm: number;
  /** The algorithm's public fields, each already encoded (see {@linkcode mpi}, {@linkcode oid}). */
  readonly fields: readonly Uint8Array[];
}

/** A built OpenPGP public key. */
export interface HostilePgpKey {
  /** The transferable public key (`gpg --export`). */
  readonly binary: Uint8Array;
  /** The same, armoured. */
  readonly armored: string;
  /** Upper-case hex v4 fingerprint of the primary key. */
  readonly fingerprint: string;
  /** The fingerprints of the subkeys, in order. */
  readonly subkeyFingerprints: readonly string[];
  /** The primary key's key ID (the last 8 bytes of its fingerprint). */
  readonly keyId: Uint8Array;
}

const CREATED = Math.floor(Date.UTC(2024, 0, 1) / 1000);

function concat(...parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

function bigIntBytes(value: bigint): Uint8Array {
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  return Uint8Array.from(hex.match(/../g)!, (b) => parseInt(b, 16));
}

/** An odd number of exactly `bits` bits (top and bottom bits set), from a repeated pattern. */
export function oddNumberOfBits(bits: number, seed = 0x5a): bigint {
  const bytes = new Uint8Array(Math.ceil(bits / 8)).map((_, i) => (seed + 37 * i) & 0xff);
  const topBits = bits - 8 * (bytes.length - 1);
  bytes[0] = (bytes[0]! & ((1 << topBits) - 1)) | (1 << (topBits - 1));
  bytes[bytes.length - 1]! |= 1;
  return BigInt(`0x${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`);
}

/** An OpenPGP MPI: its bit count (2 bytes) and big-endian bytes. */
export function mpi(value: bigint | Uint8Array): Uint8Array {
  const bytes = typeof value === "bigint" ? bigIntBytes(value) : value;
  const first = bytes.findIndex((b) => b !== 0);
  const body = first < 0 ? new Uint8Array(0) : bytes.subarray(first);
  const bits = body.length === 0 ? 0 : 8 * (body.length - 1) + (32 - Math.clz32(body[0]!));
  return concat(new Uint8Array([bits >> 8, bits & 0xff]), body);
}

/** A curve OID field: its length (1 byte) and bytes. */
export function oid(bytes: readonly number[]): Uint8Array {
  return new Uint8Array([bytes.length, ...bytes]);
}

/** An RSA key with modulus `n` and exponent `e` (no primes behind them). */
export function rsaKey(n: bigint, e: bigint, algorithm: number = PGP_ALGORITHM.rsa): PgpKeySpec {
  return { algorithm, fields: [mpi(n), mpi(e)] };
}

/** A DSA key (p, q, g, y of the given sizes; not a real group). */
export function dsaKey(bits = 2048): PgpKeySpec {
  return {
    algorithm: PGP_ALGORITHM.dsa,
    fields: [mpi(oddNumberOfBits(bits, 1)), mpi(oddNumberOfBits(256, 2)), mpi(3n), mpi(5n)],
  };
}

/** An ElGamal key (p, g, y). */
export function elgamalKey(bits = 2048): PgpKeySpec {
  return {
    algorithm: PGP_ALGORITHM.elgamal,
    fields: [mpi(oddNumberOfBits(bits, 3)), mpi(2n), mpi(7n)],
  };
}

/** An ECDSA (or, with `algorithm`, EdDSA-legacy/ECDH) key on curve `curveOid`, its point noise. */
export function curveKey(
  curveOid: readonly number[],
  pointBytes: number,
  algorithm: number = PGP_ALGORITHM.ecdsa,
): PgpKeySpec {
  const point = new Uint8Array(pointBytes).map((_, i) => (i * 29 + 11) & 0xff);
  point[0] = algorithm === PGP_ALGORITHM.ecdsa || algorithm === PGP_ALGORITHM.ecdh ? 0x04 : 0x40;
  const fields = [oid(curveOid), mpi(point)];
  // ECDH keys carry KDF parameters: SHA-256, AES-128.
  if (algorithm === PGP_ALGORITHM.ecdh) fields.push(new Uint8Array([3, 1, 8, 7]));
  return { algorithm, fields };
}

/** An Ed448 key (RFC 9580: 57 raw bytes). */
export function ed448Key(): PgpKeySpec {
  return { algorithm: PGP_ALGORITHM.ed448, fields: [new Uint8Array(57).fill(9)] };
}

function packet(tag: number, body: Uint8Array): Uint8Array {
  const n = body.length;
  const length = n < 192
    ? [n]
    : n < 8384
    ? [((n - 192) >> 8) + 192, (n - 192) & 0xff]
    : [0xff, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
  return concat(new Uint8Array([0xc0 | tag, ...length]), body);
}

function keyBody(spec: PgpKeySpec): Uint8Array {
  return concat(
    new Uint8Array([
      4,
      (CREATED >>> 24) & 0xff,
      (CREATED >>> 16) & 0xff,
      (CREATED >>> 8) & 0xff,
      CREATED & 0xff,
      spec.algorithm,
    ]),
    ...spec.fields,
  );
}

async function fingerprintOf(body: Uint8Array): Promise<Uint8Array> {
  const framed = concat(new Uint8Array([0x99, body.length >> 8, body.length & 0xff]), body);
  return new Uint8Array(await crypto.subtle.digest("SHA-1", framed as Uint8Array<ArrayBuffer>));
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("").toUpperCase();
}

function subpacket(type: number, body: readonly number[] | Uint8Array): Uint8Array {
  return concat(new Uint8Array([body.length + 1, type]), Uint8Array.from(body));
}

/** The signature value's fields: noise of the right shape for the signer's algorithm. */
function signatureValue(signer: PgpKeySpec, bits: number): Uint8Array[] {
  if (signer.algorithm === PGP_ALGORITHM.rsa || signer.algorithm === PGP_ALGORITHM.rsaEncrypt) {
    return [mpi(oddNumberOfBits(Math.max(8, bits - 8), 0x33))];
  }
  if (signer.algorithm === PGP_ALGORITHM.ed25519) return [new Uint8Array(64).fill(1)];
  if (signer.algorithm === PGP_ALGORITHM.ed448) return [new Uint8Array(114).fill(1)];
  return [mpi(oddNumberOfBits(255, 0x21)), mpi(oddNumberOfBits(255, 0x41))];
}

function modulusBits(spec: PgpKeySpec): number {
  const field = spec.fields[0]!;
  return (field[0]! << 8) | field[1]!;
}

/**
 * A v4 signature packet of `type` by `signer` (issuer `fingerprint`) over `signed` (the bytes a
 * v4 signature hashes before its own fields). Its value is noise, but the two bytes of the hash
 * it carries are right: openpgp.js compares those first and does the key's arithmetic only when
 * they match.
 */
async function signaturePacket(
  type: number,
  signer: PgpKeySpec,
  fingerprint: Uint8Array,
  signed: Uint8Array,
  extraHashed: readonly Uint8Array[] = [],
): Promise<Uint8Array> {
  const created = [
    (CREATED >>> 24) & 0xff,
    (CREATED >>> 16) & 0xff,
    (CREATED >>> 8) & 0xff,
    CREATED & 0xff,
  ];
  const hashed = concat(
    subpacket(2, created),
    subpacket(33, concat(new Uint8Array([4]), fingerprint)),
    ...extraHashed,
  );
  const head = concat(
    new Uint8Array([4, type, signer.algorithm, 8, hashed.length >> 8, hashed.length & 0xff]),
    hashed,
  );
  const n = head.length;
  const trailer = new Uint8Array([
    4,
    0xff,
    (n >>> 24) & 0xff,
    (n >>> 16) & 0xff,
    (n >>> 8) & 0xff,
    n & 0xff,
  ]);
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", concat(signed, head, trailer) as Uint8Array<ArrayBuffer>),
  );
  const unhashed = subpacket(16, fingerprint.subarray(12));
  return packet(
    2,
    concat(
      head,
      new Uint8Array([unhashed.length >> 8, unhashed.length & 0xff]),
      unhashed,
      digest.subarray(0, 2),
      ...signatureValue(signer, modulusBits(signer)),
    ),
  );
}

function framedKey(body: Uint8Array): Uint8Array {
  return concat(new Uint8Array([0x99, body.length >> 8, body.length & 0xff]), body);
}

/**
 * An OpenPGP transferable public key: the primary key, a user ID with a self-signature, and each
 * subkey with a binding signature (all signature values noise; key flags "sign" on every key).
 */
export async function pgpPublicKey(
  primary: PgpKeySpec,
  subkeys: readonly PgpKeySpec[] = [],
): Promise<HostilePgpKey> {
  const primaryBody = keyBody(primary);
  const fingerprint = await fingerprintOf(primaryBody);
  const signFlags = subpacket(27, [0x03]);
  const userId = new TextEncoder().encode("Hostile Tenant <hostile@example.com>");
  const n = userId.length;
  const certified = concat(
    framedKey(primaryBody),
    new Uint8Array([0xb4, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]),
    userId,
  );
  const parts = [
    packet(6, primaryBody),
    packet(13, userId),
    await signaturePacket(0x13, primary, fingerprint, certified, [signFlags]),
  ];
  const subkeyFingerprints: string[] = [];
  for (const subkey of subkeys) {
    const body = keyBody(subkey);
    subkeyFingerprints.push(hex(await fingerprintOf(body)));
    const bound = concat(framedKey(primaryBody), framedKey(body));
    parts.push(
      packet(14, body),
      await signaturePacket(0x18, primary, fingerprint, bound, [signFlags]),
    );
  }
  const binary = concat(...parts);
  return {
    binary,
    armored: armor("PUBLIC KEY BLOCK", binary),
    fingerprint: hex(fingerprint),
    subkeyFingerprints,
    keyId: fingerprint.subarray(12),
  };
}

/**
 * A simple-signing signature "by" `key` (primary `spec`) over `payload`: a one-pass signature,
 * the literal data and a binary-document signature whose value is noise, as
 * `gpg --sign` lays them out (uncompressed).
 */
export async function pgpSignatureBy(
  spec: PgpKeySpec,
  key: Pick<HostilePgpKey, "keyId" | "fingerprint">,
  payload: Uint8Array,
): Promise<Uint8Array> {
  const fingerprint = Uint8Array.from(key.fingerprint.match(/../g)!, (b) => parseInt(b, 16));
  const onePass = packet(
    4,
    concat(new Uint8Array([3, 0x00, 8, spec.algorithm]), key.keyId, new Uint8Array([1])),
  );
  const literal = packet(
    11,
    concat(new Uint8Array([0x62, 0, 0, 0, 0, 0]), payload),
  );
  return concat(onePass, literal, await signaturePacket(0x00, spec, fingerprint, payload));
}

function crc24(bytes: Uint8Array): number {
  let crc = 0xb704ce;
  for (const byte of bytes) {
    crc ^= byte << 16;
    for (let i = 0; i < 8; i++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1864cfb;
    }
  }
  return crc & 0xffffff;
}

/** ASCII armour of `bytes` as `-----BEGIN PGP <type>-----`. */
export function armor(type: string, bytes: Uint8Array): string {
  const body = encodeBase64(bytes).match(/.{1,64}/g)!.join("\n");
  const crc = crc24(bytes);
  const sum = encodeBase64(new Uint8Array([crc >> 16, (crc >> 8) & 0xff, crc & 0xff]));
  return `-----BEGIN PGP ${type}-----\n\n${body}\n=${sum}\n-----END PGP ${type}-----\n`;
}

// DER, for SubjectPublicKeyInfo.

function derLength(n: number): Uint8Array {
  if (n < 0x80) return new Uint8Array([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return new Uint8Array([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, body: Uint8Array): Uint8Array {
  return concat(new Uint8Array([tag]), derLength(body.length), body);
}

function derInteger(value: bigint): Uint8Array {
  let bytes = bigIntBytes(value);
  if (bytes[0]! & 0x80) bytes = concat(new Uint8Array([0]), bytes);
  return tlv(0x02, bytes);
}

const RSA_ENCRYPTION_OID = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const DSA_OID = [0x2a, 0x86, 0x48, 0xce, 0x38, 0x04, 0x01];

/** PEM `PUBLIC KEY` (SubjectPublicKeyInfo) of an RSA key with modulus `n` and exponent `e`. */
export function rsaSpkiPem(n: bigint, e: bigint): string {
  const algorithm = tlv(
    0x30,
    concat(tlv(0x06, Uint8Array.from(RSA_ENCRYPTION_OID)), tlv(0x05, new Uint8Array(0))),
  );
  const rsaPublicKey = tlv(0x30, concat(derInteger(n), derInteger(e)));
  const spki = tlv(0x30, concat(algorithm, tlv(0x03, concat(new Uint8Array([0]), rsaPublicKey))));
  return encodePem("PUBLIC KEY", spki);
}

/** PEM `PUBLIC KEY` of a DSA key (p, q, g, y; not a real group). */
export function dsaSpkiPem(bits = 2048): string {
  const params = tlv(
    0x30,
    concat(
      derInteger(oddNumberOfBits(bits, 1)),
      derInteger(oddNumberOfBits(256, 2)),
      derInteger(3n),
    ),
  );
  const algorithm = tlv(0x30, concat(tlv(0x06, Uint8Array.from(DSA_OID)), params));
  const spki = tlv(0x30, concat(algorithm, tlv(0x03, concat(new Uint8Array([0]), derInteger(5n)))));
  return encodePem("PUBLIC KEY", spki);
}
