/**
 * Checking all the signatures stored for an image: any one signature that verifies satisfies
 * the requirement; otherwise the reasons of every rejected one are kept, in the words
 * containers/image uses (`A signature was required, but no signature exists`, `None of the
 * signatures were accepted, reasons: …`, each distinct reason once). The image verifier of
 * lib/admission, which the webhook and the `image-security` commands share, calls it for each
 * `signedBy` requirement.
 *
 * @module
 */
import {
  type ExpectedImage,
  type VerifiedSignature,
  verifySignature,
  type VerifySignatureOptions,
} from "./verify.ts";
import type { IdentityRule } from "./identity.ts";
import type { PublicKey } from "./keys.ts";

/** The reason when an image has no signature at all. */
export const NO_SIGNATURE_REASON = "A signature was required, but no signature exists";

/** Options of {@linkcode verifyImageSignatures}. */
export interface VerifyImageOptions {
  /** Every signature stored for the image's digest. */
  signatures: readonly Uint8Array[];
  /** The trusted keys. */
  publicKeys: readonly PublicKey[];
  /** What the signature must vouch for. */
  expected: ExpectedImage;
  /** The identity rule (default matchRepoDigestOrExact). */
  identityRule?: IdentityRule;
  /** The verification time. */
  clock?: () => Date;
}

/** The outcome: the first signature that verified, or why none did. */
export type ImageVerification =
  | { readonly verified: true; readonly signature: VerifiedSignature }
  | { readonly verified: false; readonly reason: string; readonly reasons: readonly string[] };

/** Verifies the signatures in order and stops at the first that verifies. */
export async function verifyImageSignatures(
  options: VerifyImageOptions,
): Promise<ImageVerification> {
  if (options.signatures.length === 0) {
    return { verified: false, reason: NO_SIGNATURE_REASON, reasons: [] };
  }
  const reasons: string[] = [];
  for (const signature of options.signatures) {
    const verifyOptions: VerifySignatureOptions = {
      signature,
      publicKeys: options.publicKeys,
      expected: options.expected,
      ...(options.identityRule ? { identityRule: options.identityRule } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    };
    const result = await verifySignature(verifyOptions);
    if (result.verified) return { verified: true, signature: result };
    reasons.push(result.reason);
  }
  return {
    verified: false,
    // Each distinct reason once: ten copies of one bad signature say one thing.
    reason: `None of the signatures were accepted, reasons: ${[...new Set(reasons)].join("; ")}`,
    reasons,
  };
}
