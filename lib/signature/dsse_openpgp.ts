/**
 * The OpenPGP signatures of DSSE envelopes, as toolkit's simple-signing keys make them for
 * attestations: `sig` is an OpenPGP binary detached signature over the envelope's
 * pre-authentication encoding, `keyid` the signing key's fingerprint. The checks are those of a
 * simple signature (`verify.ts`): one of the trusted keys verifies it, neither it nor the key is
 * expired or revoked at the verification time, no weak algorithm.
 *
 * @module
 */
import * as openpgp from "openpgp";
import { OPENPGP_CONFIG } from "./_config.ts";
import { keyFingerprint, type PublicKey } from "./keys.ts";
import { acceptanceProblem, validUntil } from "./verify.ts";

/** The most bytes of one detached signature read. */
export const MAX_DETACHED_SIGNATURE_BYTES = 16 * 1024;

/** The outcome of {@linkcode verifyDetachedOpenPgp}. */
export type DetachedVerification =
  | {
    readonly verified: true;
    readonly keyFingerprint: string;
    /** The earliest expiry of the signature and its key, when either expires. */
    readonly validUntil?: Date;
  }
  | { readonly verified: false; readonly reason: string };

/**
 * Verifies a binary detached OpenPGP signature over `data` with one of `keys` at `date`. Never
 * throws for a bad signature.
 */
export async function verifyDetachedOpenPgp(
  data: Uint8Array,
  signature: Uint8Array,
  keys: readonly PublicKey[],
  date: Date,
): Promise<DetachedVerification> {
  if (signature.byteLength > MAX_DETACHED_SIGNATURE_BYTES) {
    return {
      verified: false,
      reason: `the signature is larger than ${MAX_DETACHED_SIGNATURE_BYTES} bytes`,
    };
  }
  let parsed: openpgp.Signature;
  try {
    parsed = await openpgp.readSignature({ binarySignature: signature, config: OPENPGP_CONFIG });
  } catch (error) {
    return {
      verified: false,
      reason: `not an OpenPGP signature (${error instanceof Error ? error.message : error})`,
    };
  }
  if (parsed.packets.length !== 1) {
    return { verified: false, reason: `it holds ${parsed.packets.length} signatures, not one` };
  }
  const keyID = parsed.getSigningKeyIDs()[0];
  if (keyID === undefined) return { verified: false, reason: "the signature names no key" };
  const key = keys.find((k) => k.getKeys(keyID).length > 0);
  if (key === undefined) {
    return {
      verified: false,
      reason: `it is signed by key ${keyID.toHex().toUpperCase()}, not a trusted key`,
    };
  }
  const message = await openpgp.createMessage({ binary: data });
  let result;
  try {
    result = await openpgp.verify({
      message,
      signature: parsed,
      verificationKeys: [key],
      date,
      format: "binary",
      config: OPENPGP_CONFIG,
    });
  } catch (error) {
    return {
      verified: false,
      reason: `it cannot be verified (${error instanceof Error ? error.message : error})`,
    };
  }
  const entry = result.signatures[0];
  if (entry === undefined) return { verified: false, reason: "it holds no signature" };
  const packet = parsed.packets[0];
  const problem = await acceptanceProblem(entry.verified, key, keyID, packet, date);
  if (problem !== undefined) return { verified: false, reason: problem };
  const until = await validUntil(key, keyID, packet, date);
  return {
    verified: true,
    keyFingerprint: keyFingerprint(key),
    ...(until === undefined ? {} : { validUntil: until }),
  };
}
