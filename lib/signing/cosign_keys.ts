/**
 * cosign's key files, written and read as cosign v3 does (`pkg/cosign/keys.go`,
 * go-securesystemslib `encrypted`), so a key toolkit makes signs with `cosign sign --key` and a
 * `cosign.key` signs with `toolkit image-security sign --key`:
 *
 * - public key: PEM `PUBLIC KEY` (PKIX SubjectPublicKeyInfo);
 * - private key: PEM `ENCRYPTED SIGSTORE PRIVATE KEY` (or the older `ENCRYPTED COSIGN PRIVATE
 *   KEY`) whose body is the JSON `{"kdf":{"name":"scrypt","params":{"N":…,"r":8,"p":1},"salt":…},
 *   "cipher":{"name":"nacl/secretbox","nonce":…},"ciphertext":…}` (byte fields in base64): the
 *   PKCS#8 private key sealed with NaCl secretbox (XSalsa20-Poly1305) under a key that scrypt
 *   derives from the password. Only the three scrypt parameter sets go-securesystemslib accepts
 *   are read (N = 2^15, 2^16, 2^17; r = 8; p = 1), which bounds the memory scrypt takes to 128 MiB.
 *
 * Keys are ECDSA P-256 (cosign's default, SHA-256) or P-384 (SHA-384); signatures are ASN.1 DER,
 * as sigstore's `SignerVerifier` makes them. The ECDSA operations are WebCrypto's; scrypt is the
 * runtime's (`node:crypto`, off the event loop); secretbox is `@noble/ciphers` (audited, no
 * dependencies): WebCrypto has no XSalsa20.
 *
 * @module
 */
import { scrypt } from "node:crypto";
import { xsalsa20poly1305 } from "@noble/ciphers/salsa.js";
import { p256, p384 } from "@noble/curves/nist.js";
import { decodeBase64, encodeBase64 } from "../base64.ts";
import { decodePem, encodePem, PemSyntaxError } from "../pem.ts";
import { InvalidKeyError, KeyGenerationError, PUBLIC_KEY_PEM_LABEL } from "../signature/mod.ts";
import { parseJsonWithin } from "../json_shape.ts";

/** The PEM label cosign v2+ writes for its encrypted private keys. */
export const SIGSTORE_PRIVATE_KEY_PEM_LABEL = "ENCRYPTED SIGSTORE PRIVATE KEY";
/** The PEM label cosign v1 wrote; still read. */
export const COSIGN_PRIVATE_KEY_PEM_LABEL = "ENCRYPTED COSIGN PRIVATE KEY";
/** The PEM label of a public key. */
export { PUBLIC_KEY_PEM_LABEL };

/** The key types toolkit signs cosign signatures with. */
export type CosignKeyAlgorithm = "ecdsa-p256" | "ecdsa-p384";

/** A cosign private key, decrypted and ready to sign. */
export interface CosignSigner {
  /** Its algorithm. */
  readonly algorithm: CosignKeyAlgorithm;
  /** The public key, PEM `PUBLIC KEY`. */
  readonly publicKeyPem: string;
  /** The public key, DER SubjectPublicKeyInfo. */
  readonly publicKeyDer: Uint8Array;
  /** Signs `payload` (hashing it with the curve's hash) and returns the ASN.1 DER signature. */
  sign(payload: Uint8Array): Promise<Uint8Array>;
  /** Whether `signature` (ASN.1 DER) is this key's over `payload`. */
  verify(payload: Uint8Array, signature: Uint8Array): Promise<boolean>;
}

/** A new key pair in cosign's files. */
export interface CosignKeyPair {
  /** PEM `ENCRYPTED SIGSTORE PRIVATE KEY`. */
  readonly privateKeyPem: string;
  /** PEM `PUBLIC KEY`. */
  readonly publicKeyPem: string;
}

interface Curve {
  readonly algorithm: CosignKeyAlgorithm;
  readonly namedCurve: "P-256" | "P-384";
  readonly hash: "SHA-256" | "SHA-384";
  readonly signature: typeof p256.Signature;
}

const CURVES: readonly Curve[] = [
  { algorithm: "ecdsa-p256", namedCurve: "P-256", hash: "SHA-256", signature: p256.Signature },
  { algorithm: "ecdsa-p384", namedCurve: "P-384", hash: "SHA-384", signature: p384.Signature },
];

/** The largest key file read: a P-384 key in cosign's format is about 700 bytes. */
export const MAX_COSIGN_KEY_FILE_SIZE = 64 * 1024;

const SCRYPT_KEY_LENGTH = 32;
const NONCE_LENGTH = 24;
const SALT_LENGTH = 32;
/** go-securesystemslib's "standard" scrypt parameters, which cosign writes. */
const STANDARD_SCRYPT = { N: 65536, r: 8, p: 1 } as const;
/** The parameter sets go-securesystemslib reads (legacy, standard, OWASP). */
const ACCEPTED_SCRYPT_N = new Set([32768, 65536, 131072]);

/**
 * The SHA-256 of a public key's DER SubjectPublicKeyInfo (from PEM `PUBLIC KEY` or DER): in hex,
 * toolkit's fingerprint of a cosign key; in base64, the `hint` of a sigstore bundle's
 * `verificationMaterial.publicKey`.
 */
export async function publicKeySha256(publicKey: string | Uint8Array): Promise<Uint8Array> {
  let der: Uint8Array;
  if (typeof publicKey === "string") {
    const block = decodePem(publicKey).find((b) => b.label === PUBLIC_KEY_PEM_LABEL);
    if (!block) {
      throw new InvalidKeyError(`Cannot read the public key: no ${PUBLIC_KEY_PEM_LABEL} block`);
    }
    der = block.bytes;
  } else {
    der = publicKey;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", der as Uint8Array<ArrayBuffer>));
}

/** Whether `bytes` hold a cosign encrypted private key (by its PEM label). */
export function isCosignPrivateKey(bytes: Uint8Array | string): boolean {
  const head = typeof bytes === "string"
    ? bytes.slice(0, 256)
    : new TextDecoder().decode(bytes.subarray(0, 256));
  return head.includes(`-----BEGIN ${SIGSTORE_PRIVATE_KEY_PEM_LABEL}-----`) ||
    head.includes(`-----BEGIN ${COSIGN_PRIVATE_KEY_PEM_LABEL}-----`);
}

/** Makes an ECDSA key pair in cosign's files, the private key encrypted with `password`. */
export async function generateCosignKeyPair(
  options: { password: string; algorithm?: CosignKeyAlgorithm },
): Promise<CosignKeyPair> {
  const curve = curveOf(options.algorithm ?? "ecdsa-p256");
  try {
    const pair = await crypto.subtle.generateKey(
      { name: "ECDSA", namedCurve: curve.namedCurve },
      true,
      ["sign", "verify"],
    );
    const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
    const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
    const privateKeyPem = await encryptCosignPrivateKey(pkcs8, options.password);
    pkcs8.fill(0);
    return { privateKeyPem, publicKeyPem: encodePem(PUBLIC_KEY_PEM_LABEL, spki) };
  } catch (error) {
    throw new KeyGenerationError("Cannot make an ECDSA key pair", { cause: error });
  }
}

/** Seals a PKCS#8 private key as cosign does: PEM `ENCRYPTED SIGSTORE PRIVATE KEY`. */
export async function encryptCosignPrivateKey(
  pkcs8: Uint8Array,
  password: string,
): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_LENGTH));
  const nonce = crypto.getRandomValues(new Uint8Array(NONCE_LENGTH));
  const key = await deriveKey(password, salt, STANDARD_SCRYPT.N);
  const ciphertext = xsalsa20poly1305(key, nonce).encrypt(pkcs8);
  key.fill(0);
  const body = JSON.stringify({
    kdf: {
      name: "scrypt",
      params: STANDARD_SCRYPT,
      salt: encodeBase64(salt),
    },
    cipher: { name: "nacl/secretbox", nonce: encodeBase64(nonce) },
    ciphertext: encodeBase64(ciphertext),
  });
  return encodePem(SIGSTORE_PRIVATE_KEY_PEM_LABEL, new TextEncoder().encode(body));
}

/**
 * Reads a cosign private key file (PEM `ENCRYPTED SIGSTORE PRIVATE KEY` or `ENCRYPTED COSIGN
 * PRIVATE KEY`) with its password. Throws {@linkcode InvalidKeyError} saying what is wrong: not
 * such a file, a wrong password, an algorithm toolkit does not sign with.
 */
export async function readCosignPrivateKey(
  input: Uint8Array | string,
  password: string,
): Promise<CosignSigner> {
  const size = typeof input === "string" ? input.length : input.byteLength;
  if (size > MAX_COSIGN_KEY_FILE_SIZE) {
    throw new InvalidKeyError(
      `Cannot read the cosign private key: it is larger than ${MAX_COSIGN_KEY_FILE_SIZE} bytes`,
    );
  }
  const text = typeof input === "string" ? input : new TextDecoder().decode(input);
  let body: Uint8Array;
  try {
    const block = decodePem(text, { maxBlocks: 4 }).find((b) =>
      b.label === SIGSTORE_PRIVATE_KEY_PEM_LABEL || b.label === COSIGN_PRIVATE_KEY_PEM_LABEL
    );
    if (!block) throw new PemSyntaxError(`there is no ${SIGSTORE_PRIVATE_KEY_PEM_LABEL} block`);
    body = block.bytes;
  } catch (error) {
    throw new InvalidKeyError(
      `Cannot read the cosign private key: ${error instanceof Error ? error.message : error}`,
      { cause: error },
    );
  }
  const sealed = parseSealedKey(body);
  const key = await deriveKey(password, sealed.salt, sealed.n);
  let pkcs8: Uint8Array;
  try {
    pkcs8 = xsalsa20poly1305(key, sealed.nonce).decrypt(sealed.ciphertext);
  } catch (error) {
    throw new InvalidKeyError(
      "Cannot decrypt the cosign private key: the password is wrong (or the file was changed)",
      { cause: error, wrongSecret: true },
    );
  } finally {
    key.fill(0);
  }
  try {
    return await signerOf(pkcs8);
  } finally {
    pkcs8.fill(0);
  }
}

interface SealedKey {
  readonly n: number;
  readonly salt: Uint8Array;
  readonly nonce: Uint8Array;
  readonly ciphertext: Uint8Array;
}

function parseSealedKey(body: Uint8Array): SealedKey {
  const bad = (detail: string): never => {
    throw new InvalidKeyError(`Cannot read the cosign private key: ${detail}`);
  };
  let doc: unknown;
  try {
    // `{"kdf": {"name", "params": {"N", "r", "p"}, "salt"}, "cipher": {…}, "ciphertext"}`.
    doc = parseJsonWithin(
      new TextDecoder("utf-8", { fatal: true }).decode(body),
      { maxValues: 256, maxDepth: 8 },
      "its body",
    );
  } catch {
    return bad("its body is not JSON of a sealed key");
  }
  const kdf = field(doc, "kdf");
  const params = field(kdf, "params");
  const cipher = field(doc, "cipher");
  if (field(kdf, "name") !== "scrypt") bad("its key derivation is not scrypt");
  if (field(cipher, "name") !== "nacl/secretbox") bad("its cipher is not nacl/secretbox");
  const n = field(params, "N");
  if (
    typeof n !== "number" || !ACCEPTED_SCRYPT_N.has(n) || field(params, "r") !== 8 ||
    field(params, "p") !== 1
  ) {
    bad("its scrypt parameters are not among those cosign uses (N 2^15-2^17, r 8, p 1)");
  }
  const bytes = (value: unknown, what: string, length?: number): Uint8Array => {
    if (typeof value !== "string") return bad(`its ${what} is missing`);
    let decoded: Uint8Array;
    try {
      decoded = decodeBase64(value);
    } catch {
      return bad(`its ${what} is not base64`);
    }
    if (length !== undefined && decoded.length !== length) {
      return bad(`its ${what} is not ${length} bytes long`);
    }
    return decoded;
  };
  return {
    n: n as number,
    salt: bytes(field(kdf, "salt"), "salt"),
    nonce: bytes(field(cipher, "nonce"), "nonce", NONCE_LENGTH),
    ciphertext: bytes(field(doc, "ciphertext"), "ciphertext"),
  };
}

/** A member of a JSON object, matched as Go's encoding/json does (case-insensitively). */
function field(value: unknown, name: string): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, name)) return record[name];
  const lower = name.toLowerCase();
  const key = Object.keys(record).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : record[key];
}

function deriveKey(password: string, salt: Uint8Array, n: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    scrypt(
      new TextEncoder().encode(password),
      salt,
      SCRYPT_KEY_LENGTH,
      // 128 * r * N bytes, plus room for the implementation's own buffers.
      { N: n, r: 8, p: 1, maxmem: 128 * 8 * n + 16 * 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(new Uint8Array(key))),
    );
  });
}

function curveOf(algorithm: CosignKeyAlgorithm): Curve {
  const curve = CURVES.find((c) => c.algorithm === algorithm);
  if (!curve) throw new InvalidKeyError(`Cannot use key algorithm "${algorithm}"`);
  return curve;
}

/** Imports a PKCS#8 ECDSA key (trying each curve toolkit signs with) and derives its public key. */
async function signerOf(pkcs8: Uint8Array): Promise<CosignSigner> {
  for (const curve of CURVES) {
    let privateKey: CryptoKey;
    try {
      privateKey = await crypto.subtle.importKey(
        "pkcs8",
        pkcs8 as Uint8Array<ArrayBuffer>,
        { name: "ECDSA", namedCurve: curve.namedCurve },
        true,
        ["sign"],
      );
    } catch {
      continue;
    }
    const jwk = await crypto.subtle.exportKey("jwk", privateKey);
    const publicKey = await crypto.subtle.importKey(
      "jwk",
      { kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y!, ext: true },
      { name: "ECDSA", namedCurve: curve.namedCurve },
      true,
      ["verify"],
    );
    const spki = new Uint8Array(await crypto.subtle.exportKey("spki", publicKey));
    return {
      algorithm: curve.algorithm,
      publicKeyPem: encodePem(PUBLIC_KEY_PEM_LABEL, spki),
      publicKeyDer: spki,
      async sign(payload) {
        const raw = new Uint8Array(
          await crypto.subtle.sign(
            { name: "ECDSA", hash: curve.hash },
            privateKey,
            payload as Uint8Array<ArrayBuffer>,
          ),
        );
        return curve.signature.fromBytes(raw, "compact").toBytes("der");
      },
      async verify(payload, signature) {
        let raw: Uint8Array;
        try {
          raw = curve.signature.fromBytes(signature, "der").toBytes("compact");
        } catch {
          return false;
        }
        return await crypto.subtle.verify(
          { name: "ECDSA", hash: curve.hash },
          publicKey,
          raw as Uint8Array<ArrayBuffer>,
          payload as Uint8Array<ArrayBuffer>,
        );
      },
    };
  }
  throw new InvalidKeyError(
    "Cannot sign with this cosign private key: it is not an ECDSA P-256 or P-384 key " +
      "(toolkit signs cosign signatures with ECDSA; make one with `cosign generate-key-pair` " +
      "or `toolkit image-security keygen --type ecdsa-p256`)",
  );
}
