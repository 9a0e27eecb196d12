/**
 * Verifying simple-signing signatures, in the order containers/image does: size limit, OpenPGP
 * parse, cryptographic verification against the trusted keys (with key expiry and revocation
 * checked at the verification time) before any JSON is read, strict payload parse, the signed
 * digest against the image's digest, and the signed identity against the image reference.
 *
 * The outcome is data: a signature that does not verify is a result with a reason, not an error.
 *
 * @module
 */

import * as openpgp from "openpgp";
import type { ImageReference } from "../image/mod.ts";
import { MAX_SIGNATURE_SIZE, OPENPGP_CONFIG, OPENPGP_FULL_CONFIG } from "./_config.ts";
import { DEFAULT_IDENTITY_RULE, type IdentityRule, matchIdentity } from "./identity.ts";
import { keyFingerprint, type PublicKey } from "./keys.ts";
import { InvalidPayloadError, parsePayload } from "./payload.ts";

export { MAX_SIGNATURE_SIZE };

/** What the signature must vouch for. */
export interface ExpectedImage {
  /** The digest of the image's manifest (`sha256:<64 hex>`), compared case-sensitively. */
  manifestDigest: string;
  /** The image as referenced (with its tag or digest), checked by the identity rule. */
  reference: ImageReference;
}

/** Options of {@linkcode verifySignature}. */
export interface VerifySignatureOptions {
  /** The signature blob: binary or armoured OpenPGP signed message, compressed or not. */
  signature: Uint8Array;
  /** The trusted keys; a signature by any one of them is accepted. */
  publicKeys: readonly PublicKey[];
  /** The image the signature must be for. */
  expected: ExpectedImage;
  /** How the signed identity must match the image. @default `{ type: "matchRepoDigestOrExact" }` */
  identityRule?: IdentityRule;
  /** The clock giving the time keys and the signature must be valid at. @default `() => new Date()` */
  clock?: () => Date;
  /** The largest blob accepted, in bytes. @default {@linkcode MAX_SIGNATURE_SIZE} (4 MiB) */
  maxSize?: number;
}

/** A signature that verified: who signed what. */
export interface VerifiedSignature {
  /** Always `true`. */
  readonly verified: true;
  /** Upper-case fingerprint of the primary key that signed (also when a subkey signed). */
  readonly keyFingerprint: string;
  /** The signed identity (`critical.identity.docker-reference`). */
  readonly dockerReference: string;
  /** The signed digest, equal to the expected one. */
  readonly manifestDigest: string;
  /** `optional.creator` of the payload, when present (informational, signed). */
  readonly creator?: string | undefined;
  /** `optional.timestamp` of the payload in Unix seconds, when present (informational, signed). */
  readonly timestamp?: number | undefined;
  /**
   * When this result stops holding: the earliest expiry of the signature, the signing subkey
   * and the primary key; absent when none of them expires. A result kept beyond it is stale.
   */
  readonly validUntil?: Date | undefined;
}

/** A signature that did not verify, and why. */
export interface RejectedSignature {
  /** Always `false`. */
  readonly verified: false;
  /** A short human reason: `signed digest sha256:… does not match the image digest sha256:…`. */
  readonly reason: string;
}

/** The outcome of {@linkcode verifySignature}. */
export type VerificationResult = VerifiedSignature | RejectedSignature;

const ARMORED_MESSAGE_PREFIX = "-----BEGIN PGP MESSAGE-----";

function reject(reason: string): RejectedSignature {
  return { verified: false, reason };
}

function errorDetail(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether the blob is an armoured message (text starting with the armour header). */
function isArmored(blob: Uint8Array): boolean {
  let start = 0;
  while (start < blob.length && start < 1024 && /\s/.test(String.fromCharCode(blob[start]!))) {
    start++;
  }
  const head = blob.subarray(start, start + ARMORED_MESSAGE_PREFIX.length);
  return new TextDecoder().decode(head) === ARMORED_MESSAGE_PREFIX;
}

async function readSignedMessage(blob: Uint8Array): Promise<openpgp.Message<Uint8Array>> {
  if (!isArmored(blob)) {
    return await openpgp.readMessage({ binaryMessage: blob, config: OPENPGP_CONFIG });
  }
  const text = new TextDecoder("utf-8", { fatal: true }).decode(blob);
  const message = await openpgp.readMessage({ armoredMessage: text, config: OPENPGP_CONFIG });
  // De-armoured, the message holds binary packets like any other.
  return message as unknown as openpgp.Message<Uint8Array>;
}

function iso(date: Date | number): string {
  return (typeof date === "number" ? new Date(date) : date).toISOString();
}

/**
 * Returns why `key` (its signing key `keyID`) cannot be used at `date`, or undefined when it can:
 * revoked, expired, or otherwise not valid for signing.
 */
async function keyProblem(
  key: PublicKey,
  keyID: openpgp.KeyID,
  date: Date,
): Promise<string | undefined> {
  try {
    await key.getSigningKey(keyID, date, undefined, OPENPGP_FULL_CONFIG);
    return undefined;
  } catch (error) {
    const fingerprint = keyFingerprint(key);
    try {
      if (await (key as openpgp.Key).isRevoked(undefined, undefined, date, OPENPGP_FULL_CONFIG)) {
        return `signing key ${fingerprint} is revoked`;
      }
      const expires = await key.getExpirationTime(undefined, OPENPGP_FULL_CONFIG);
      if (expires instanceof Date && date >= expires) {
        return `signing key ${fingerprint} expired on ${iso(expires)}`;
      }
      const subkey = key.getSubkeys(keyID)[0];
      if (subkey !== undefined) {
        try {
          await subkey.verify(date, OPENPGP_FULL_CONFIG);
        } catch (subkeyError) {
          const detail = errorDetail(subkeyError);
          if (/revoked/i.test(detail)) {
            return `signing subkey ${subkey.getFingerprint().toUpperCase()} of key ${fingerprint} is revoked`;
          }
          const subkeyExpires = await subkey.getExpirationTime(undefined, OPENPGP_FULL_CONFIG);
          if (subkeyExpires instanceof Date && date >= subkeyExpires) {
            return `signing subkey ${subkey.getFingerprint().toUpperCase()} of key ${fingerprint} expired on ${
              iso(subkeyExpires)
            }`;
          }
        }
      }
    } catch {
      // fall through to the general reason
    }
    const detail = errorDetail(error).replace(
      /^Could not find valid signing key packet in key \w+: ?/,
      "",
    );
    return `signing key ${fingerprint} cannot be used on ${iso(date)}: ${
      detail || "no valid signing key"
    }`;
  }
}

/** Turns an error of openpgp.js's signature check into a reason. */
async function signatureProblem(
  error: unknown,
  key: PublicKey,
  keyID: openpgp.KeyID,
  signature: openpgp.SignaturePacket | undefined,
  date: Date,
): Promise<string> {
  const detail = errorDetail(error);
  const fingerprint = keyFingerprint(key);
  if (/^(?:Signed digest did not match|Signature verification failed)/.test(detail)) {
    return `invalid signature by key ${fingerprint} (the signed data or the signature was altered)`;
  }
  if (/^Signature is expired/.test(detail)) {
    const expires = signature?.getExpirationTime();
    return expires instanceof Date ? `signature expired on ${iso(expires)}` : "signature expired";
  }
  if (/^Signature creation time is in the future/.test(detail)) {
    return signature === undefined
      ? "signature was made in the future"
      : `signature was made in the future (${iso(signature.created ?? 0)})`;
  }
  const weakHash = /^Insecure (?:message )?hash algorithm: (\w+)/.exec(detail);
  if (weakHash !== null) return `signature uses the weak hash algorithm ${weakHash[1]}`;
  if (/too weak/.test(detail)) return `signing key ${fingerprint} is too weak: ${detail}`;
  if (/Key is newer than the signature/.test(detail)) {
    return `signature predates its signing key ${fingerprint}`;
  }
  // Key validity at signing time failed: report it as of the verification time when that
  // explains it (expired, revoked), else as given.
  const problem = await keyProblem(key, keyID, date);
  if (problem !== undefined) return problem;
  return `signature by key ${fingerprint} is not valid: ${detail}`;
}

/**
 * Why the signature openpgp.js checked (`verified`, its check) or its signing key cannot be
 * accepted at `date`, or undefined when both can: the steps a simple signature and the detached
 * signature of a DSSE envelope (`dsse_openpgp.ts`) share.
 */
export async function acceptanceProblem(
  verified: Promise<unknown>,
  key: PublicKey,
  keyID: openpgp.KeyID,
  signature: openpgp.SignaturePacket | undefined,
  date: Date,
): Promise<string | undefined> {
  try {
    await verified;
  } catch (error) {
    return await signatureProblem(error, key, keyID, signature, date);
  }
  return await keyProblem(key, keyID, date);
}

/** The signer's fingerprint when the signature names it (gpg does), else its key ID. */
async function issuerOf(
  message: openpgp.Message<Uint8Array>,
  keyID: openpgp.KeyID,
): Promise<string> {
  try {
    const result = await openpgp.verify({
      message,
      verificationKeys: [],
      format: "binary",
      expectSigned: false,
      config: OPENPGP_CONFIG,
    });
    const packet = (await result.signatures[0]?.signature)?.packets[0];
    const fingerprint = packet?.issuerFingerprint;
    if (fingerprint instanceof Uint8Array && fingerprint.length === 20) {
      const hex = Array.from(fingerprint, (b) => b.toString(16).padStart(2, "0")).join("");
      // Unauthenticated: use it only when it agrees with the key ID (a v4 fingerprint's tail).
      if (hex.endsWith(keyID.toHex())) return hex.toUpperCase();
    }
  } catch {
    // only the key ID then
  }
  return keyID.toHex().toUpperCase();
}

/** The outcome of checking the signature with one candidate key. */
type KeyAttempt =
  | { ok: true; data: Uint8Array; signature: openpgp.SignaturePacket | undefined }
  | { ok: false; reason: string };

/**
 * The earliest expiry of the signature, the signing subkey `keyID` and the primary key, or
 * undefined when none expires. When an expiry cannot be read (or there is no signature packet),
 * `date` (the verification time): the result is then valid for that moment only. (Also the
 * validity of a DSSE envelope's detached signature, `dsse_openpgp.ts`.)
 */
export async function validUntil(
  key: PublicKey,
  keyID: openpgp.KeyID,
  signature: openpgp.SignaturePacket | undefined,
  date: Date,
): Promise<Date | undefined> {
  if (signature === undefined) return date;
  try {
    const times: (Date | number | null)[] = [
      signature.getExpirationTime(),
      await key.getExpirationTime(undefined, OPENPGP_FULL_CONFIG),
    ];
    if (!key.getKeyID().equals(keyID)) {
      const subkey = key.getSubkeys(keyID)[0];
      if (subkey === undefined) return date;
      times.push(await subkey.getExpirationTime(date, OPENPGP_FULL_CONFIG));
    }
    const dates = times.filter((t): t is Date => t instanceof Date);
    if (dates.length === 0) return undefined;
    return new Date(Math.min(...dates.map((d) => d.getTime())));
  } catch {
    return date;
  }
}

async function verifyWithKey(
  message: openpgp.Message<Uint8Array>,
  key: PublicKey,
  keyID: openpgp.KeyID,
  date: Date,
): Promise<KeyAttempt> {
  let result: openpgp.VerifyMessageResult<Uint8Array>;
  try {
    result = await openpgp.verify({
      message,
      verificationKeys: [key],
      format: "binary",
      date,
      expectSigned: false,
      config: OPENPGP_CONFIG,
    });
  } catch (error) {
    return { ok: false, reason: `not a valid signed message (${errorDetail(error)})` };
  }
  if (result.signatures.length !== 1) {
    return {
      ok: false,
      reason: `the message holds ${result.signatures.length} signatures, not exactly one`,
    };
  }
  const entry = result.signatures[0]!;
  let signaturePacket: openpgp.SignaturePacket | undefined;
  try {
    signaturePacket = (await entry.signature).packets[0];
  } catch {
    signaturePacket = undefined;
  }
  const problem = await acceptanceProblem(entry.verified, key, keyID, signaturePacket, date);
  if (problem !== undefined) return { ok: false, reason: problem };
  if (!(result.data instanceof Uint8Array)) {
    return { ok: false, reason: "the signed message holds no literal data" };
  }
  return { ok: true, data: result.data, signature: signaturePacket };
}

/**
 * Verifies a simple-signing signature for an image. Never throws for a bad signature: the
 * result says whether it verified, and if not, why.
 *
 * The checks, in order: the blob is at most `maxSize` bytes; it is an OpenPGP signed message
 * (binary or armoured; uncompressed or ZIP/ZLIB/BZip2-compressed as gpg writes it) with exactly
 * one signature; the signature verifies with one of `publicKeys` and neither it nor the key is
 * expired or revoked at the clock's time, and it uses no weak algorithm (SHA-1, MD5, RSA under
 * 2048 bits, DSA); only then is the payload parsed, strictly; the signed digest equals
 * `expected.manifestDigest` exactly; and the signed identity satisfies `identityRule` for
 * `expected.reference`.
 */
export async function verifySignature(
  options: VerifySignatureOptions,
): Promise<VerificationResult> {
  try {
    return await verifyInOrder(options);
  } catch (error) {
    return reject(`signature could not be verified: ${errorDetail(error)}`);
  }
}

async function verifyInOrder(options: VerifySignatureOptions): Promise<VerificationResult> {
  const { signature: blob, publicKeys, expected } = options;
  const maxSize = options.maxSize ?? MAX_SIGNATURE_SIZE;
  if (!(blob instanceof Uint8Array)) return reject("signature is not binary data");
  if (blob.length === 0) return reject("signature is empty");
  if (blob.length > maxSize) {
    return reject(`signature is too large (${blob.length} bytes, the limit is ${maxSize})`);
  }
  const date = (options.clock ?? (() => new Date()))();

  let message: openpgp.Message<Uint8Array>;
  let keyIDs: openpgp.KeyID[];
  try {
    message = await readSignedMessage(blob);
    keyIDs = message.getSigningKeyIDs();
  } catch (error) {
    const detail = errorDetail(error);
    if (/decompressed|too large|size/i.test(detail)) {
      return reject(`not a valid OpenPGP message (${detail})`);
    }
    return reject("not a valid OpenPGP message");
  }
  if (keyIDs.length === 0) return reject("not a signed OpenPGP message");
  if (keyIDs.length > 1) {
    return reject(`the message holds ${keyIDs.length} signatures, not exactly one`);
  }
  const keyID = keyIDs[0]!;

  const candidates = publicKeys.filter((key) => key.getKeys(keyID).length > 0);
  if (candidates.length === 0) {
    return reject(`signature made by an unknown key ${await issuerOf(message, keyID)}`);
  }
  let data: Uint8Array | undefined;
  let signer: PublicKey | undefined;
  let signaturePacket: openpgp.SignaturePacket | undefined;
  let firstReason: string | undefined;
  for (const key of candidates) {
    const attempt = await verifyWithKey(message, key, keyID, date);
    if (attempt.ok) {
      data = attempt.data;
      signer = key;
      signaturePacket = attempt.signature;
      break;
    }
    firstReason ??= attempt.reason;
  }
  if (data === undefined || signer === undefined) {
    return reject(firstReason ?? "signature does not verify");
  }

  let payload;
  try {
    payload = parsePayload(data);
  } catch (error) {
    if (error instanceof InvalidPayloadError) {
      return reject(`invalid signature payload: ${error.detail}`);
    }
    throw error;
  }

  if (payload.manifestDigest !== expected.manifestDigest) {
    return reject(
      `signed digest ${payload.manifestDigest} does not match the image digest ${expected.manifestDigest}`,
    );
  }

  const rule = options.identityRule ?? DEFAULT_IDENTITY_RULE;
  const identity = matchIdentity(rule, expected.reference, payload.dockerReference);
  if (!identity.matches) {
    return reject(`${identity.reason} (signedIdentity ${rule.type})`);
  }

  const verified: {
    verified: true;
    keyFingerprint: string;
    dockerReference: string;
    manifestDigest: string;
    creator?: string;
    timestamp?: number;
    validUntil?: Date;
  } = {
    verified: true,
    keyFingerprint: keyFingerprint(signer),
    dockerReference: payload.dockerReference,
    manifestDigest: payload.manifestDigest,
  };
  if (payload.creator !== undefined) verified.creator = payload.creator;
  if (payload.timestamp !== undefined) verified.timestamp = payload.timestamp;
  const until = await validUntil(signer, keyID, signaturePacket, date);
  if (until !== undefined) verified.validUntil = until;
  return verified;
}
