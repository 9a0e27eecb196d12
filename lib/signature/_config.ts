/**
 * The openpgp.js settings toolkit reads keys and verifies signatures with: what gpg 2.2 commonly
 * writes is accepted (RSA of 2048 bits and more, EdDSA, ECDSA; SHA-256/384/512 message hashes;
 * ZIP, ZLIB and BZip2 compression), weak material is refused (MD5, RIPEMD-160 and SHA-1 message
 * hashes, MD5 and RIPEMD-160 anywhere, DSA and ElGamal, RSA under 2047 bits, secp256k1).
 *
 * @module
 */

import * as openpgp from "openpgp";

/** The largest signature blob toolkit reads: 4 MiB, as containers/image. */
export const MAX_SIGNATURE_SIZE: number = 4 * 1024 * 1024;

/**
 * The largest signed payload, decompressed: 256 KiB. A simple-signing payload is a few hundred
 * bytes of JSON; the bound keeps a small compressed signature from inflating to megabytes.
 */
export const MAX_SIGNED_PAYLOAD_SIZE: number = 256 * 1024;

/** Settings passed to every openpgp.js call that reads keys or verifies. */
export const OPENPGP_CONFIG: openpgp.PartialConfig = Object.freeze({
  // "2048-bit" RSA keys sometimes have a 2047-bit modulus; openpgp.js and gpg accept those.
  minRSABits: 2047,
  rejectHashAlgorithms: new Set([openpgp.enums.hash.md5, openpgp.enums.hash.ripemd]),
  rejectMessageHashAlgorithms: new Set([
    openpgp.enums.hash.md5,
    openpgp.enums.hash.ripemd,
    openpgp.enums.hash.sha1,
  ]),
  rejectPublicKeyAlgorithms: new Set([
    openpgp.enums.publicKey.elgamal,
    openpgp.enums.publicKey.dsa,
  ]),
  rejectCurves: new Set([openpgp.enums.curve.secp256k1]),
  maxDecompressedMessageSize: MAX_SIGNED_PAYLOAD_SIZE,
  // gpg judges the signing key as of the verification time, and so does toolkit (the key's
  // validity now is checked separately). Without this, a signature made before the owner
  // extended the key's expiry fails: gpg exports only the newest self-signature, which is newer
  // than the signature.
  allowInsecureVerificationWithReformattedKeys: true,
  ignoreMalformedPackets: false,
  enforceGrammar: true,
});

/** {@linkcode OPENPGP_CONFIG} on top of openpgp.js's defaults, for methods that need a full config. */
export const OPENPGP_FULL_CONFIG: openpgp.Config = Object.freeze({
  ...openpgp.config,
  ...OPENPGP_CONFIG,
}) as openpgp.Config;
