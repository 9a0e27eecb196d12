/**
 * What a public key may be before toolkit verifies anything with it, checked when the key is
 * read (OpenPGP keys in `keys.ts`, PEM keys in `lib/sigstore/public_keys.ts`): the cost of one
 * signature check is the key's arithmetic, and the key comes from whoever writes a key Secret.
 *
 * - RSA: a modulus of at most {@linkcode DEFAULT_MAX_RSA_BITS} bits (a setting may raise it to
 *   {@linkcode MAX_RSA_BITS_LIMIT}, no more) and an odd public exponent from 3 to 2^32 (65537
 *   in practice). An RSA check costs about the modulus's size squared times the exponent's
 *   length: a 24,576-bit modulus with an exponent as long held the event loop for 18 s, the
 *   bounded worst case (4096 bits, an exponent near 2^32) well under a millisecond.
 * - Curves: only those verified natively and fast (see the two readers).
 *
 * @module
 */
import { InvalidKeyError } from "./key_errors.ts";

/** The largest RSA modulus accepted by default, in bits. */
export const DEFAULT_MAX_RSA_BITS = 4096;

/** The largest RSA modulus any setting may allow, in bits. */
export const MAX_RSA_BITS_LIMIT = 8192;

/** The largest RSA public exponent accepted: 2^32. */
export const MAX_RSA_EXPONENT = 2n ** 32n;

/**
 * The largest key text read (a key Secret's `key` entry, a `--key` file), in bytes: reading
 * keys holds the event loop about 0.1 ms a KiB (a 1 MiB key ring of 633 RSA keys took 75 ms to
 * parse and 60 ms more to identify), once per distinct content. A signing key exported alone
 * (`gpg --armor --export --export-options export-minimal KEY`) is 1 to 5 KiB.
 */
export const MAX_PUBLIC_KEY_BYTES = 64 * 1024;

/** The most OpenPGP keys one text may hold (as many as PEM keys). */
export const MAX_OPENPGP_KEYS = 64;

/**
 * Throws unless `input` (text or bytes) is at most {@linkcode MAX_PUBLIC_KEY_BYTES} long; a
 * string is measured in UTF-16 code units, near enough to bytes for armour and PEM.
 *
 * @throws {InvalidKeyError} naming the bound.
 */
export function checkKeyTextSize(input: string | Uint8Array): void {
  const size = typeof input === "string" ? input.length : input.byteLength;
  if (size > MAX_PUBLIC_KEY_BYTES) {
    throw new InvalidKeyError(
      `Cannot read public keys: the text is ${size} bytes, more than ${MAX_PUBLIC_KEY_BYTES} (give only the signing keys, e.g. gpg --armor --export --export-options export-minimal KEY)`,
    );
  }
}

/** How large keys may be. */
export interface KeyBounds {
  /**
   * The largest RSA modulus accepted, in bits (at most {@linkcode MAX_RSA_BITS_LIMIT}).
   * @default {@linkcode DEFAULT_MAX_RSA_BITS}
   */
  readonly maxRsaBits?: number;
  /**
   * What raises {@linkcode maxRsaBits}, named in the message when a key is over it (the
   * webhook's `--max-rsa-key-bits`).
   */
  readonly maxRsaBitsSetting?: string;
}

/**
 * A key that can be read but is outside what toolkit verifies with (too large, an algorithm or
 * curve not accepted). {@linkcode key} names it, {@linkcode problem} says what is wrong.
 */
export class KeyNotAcceptedError extends InvalidKeyError {
  /** Names the key: `key "<fingerprint>"`, `key "<fingerprint>" subkey "<fingerprint>"`, … */
  readonly key: string;
  /** What is wrong with it, e.g. `RSA modulus of 24576 bits, more than 4096`. */
  readonly problem: string;

  /** Creates the error: "Cannot use `key`: `problem`". */
  constructor(key: string, problem: string, options?: ErrorOptions) {
    super(`Cannot use ${key}: ${problem}`, options);
    this.name = "KeyNotAcceptedError";
    this.key = key;
    this.problem = problem;
  }
}

/**
 * The largest RSA modulus `bounds` allow.
 *
 * @throws {RangeError} when `bounds.maxRsaBits` is not a whole number from 2048 to
 * {@linkcode MAX_RSA_BITS_LIMIT}.
 */
export function maxRsaBits(bounds: KeyBounds = {}): number {
  const bits = bounds.maxRsaBits ?? DEFAULT_MAX_RSA_BITS;
  if (!Number.isInteger(bits) || bits < 2048 || bits > MAX_RSA_BITS_LIMIT) {
    throw new RangeError(
      `The largest RSA key must be from 2048 to ${MAX_RSA_BITS_LIMIT} bits, not ${bits}`,
    );
  }
  return bits;
}

/** The bits of a big-endian unsigned number (0 for zero). */
export function bitLength(bytes: Uint8Array): number {
  const first = bytes.findIndex((b) => b !== 0);
  if (first < 0) return 0;
  return 8 * (bytes.length - first - 1) + (32 - Math.clz32(bytes[first]!));
}

/**
 * What is wrong with an RSA public key of `modulusBits` bits and exponent `exponent`
 * (big-endian bytes, or a number) against `bounds` and `minBits`; undefined when it is
 * accepted. Reads no more of the exponent than its length when that is already too long.
 */
export function rsaKeyProblem(
  modulusBits: number,
  exponent: Uint8Array | bigint,
  bounds: KeyBounds,
  minBits: number,
): string | undefined {
  const max = maxRsaBits(bounds);
  if (modulusBits > max) {
    const setting = bounds.maxRsaBitsSetting === undefined ? "" : ` (${bounds.maxRsaBitsSetting})`;
    return `RSA modulus of ${modulusBits} bits, more than ${max}${setting}`;
  }
  if (modulusBits < minBits) {
    return `RSA modulus of ${modulusBits} bits (too weak: at least ${minBits} bits)`;
  }
  const bytes = typeof exponent === "bigint" ? undefined : exponent;
  const exponentBits = bytes === undefined ? exponent.toString(2).length : bitLength(bytes);
  if (exponentBits > 33) {
    return `RSA public exponent of ${exponentBits} bits, more than 2^32 (65537 is usual)`;
  }
  const e = typeof exponent === "bigint"
    ? exponent
    : bytes!.reduce((value, byte) => (value << 8n) | BigInt(byte), 0n);
  if (e > MAX_RSA_EXPONENT) return `RSA public exponent ${e}, more than 2^32 (65537 is usual)`;
  if (e < 3n || e % 2n === 0n) {
    return `RSA public exponent ${e} (not an odd number of at least 3; 65537 is usual)`;
  }
  return undefined;
}
