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

/** One requirement: a signature by one of these keys, claiming an acceptable identity. */
export interface SignatureRequirement {
  /** The trusted keys. */
  readonly publicKeys: readonly PublicKey[];
  /** The identity rule (default matchRepoDigestOrExact). */
  readonly identityRule?: IdentityRule | undefined;
}

/** The signatures to check: read one at a time when they are an async iterable. */
export type SignatureSource = Iterable<Uint8Array> | AsyncIterable<Uint8Array>;

/** Options of {@linkcode verifyRequirements}. */
export interface VerifyRequirementsOptions {
  /** The signatures stored for the image's digest, in order. */
  readonly signatures: SignatureSource;
  /** Every requirement must be met by one of the signatures. */
  readonly requirements: readonly SignatureRequirement[];
  /** What the signatures must vouch for. */
  readonly expected: ExpectedImage;
  /** The verification time. */
  readonly clock?: (() => Date) | undefined;
  /** The largest signature accepted, in bytes. */
  readonly maxSize?: number | undefined;
}

/** The outcome of several requirements: the signature that met each, or why one was not met. */
export type RequirementsVerification =
  | { readonly verified: true; readonly signatures: readonly VerifiedSignature[] }
  | { readonly verified: false; readonly reason: string; readonly reasons: readonly string[] };

/**
 * Checks every requirement against the signatures in one pass: each signature, as it is read,
 * is tried for the requirements not met yet, and the reading stops as soon as all are met, so
 * a store of many signatures is read only as far as needed and one signature is held at a time.
 * When one is not met, the reasons are those of the first such requirement.
 */
export async function verifyRequirements(
  options: VerifyRequirementsOptions,
): Promise<RequirementsVerification> {
  const { requirements } = options;
  const met: (VerifiedSignature | undefined)[] = requirements.map(() => undefined);
  const reasons: string[][] = requirements.map(() => []);
  let remaining = requirements.length;
  let seen = 0;
  if (remaining > 0) {
    for await (const signature of options.signatures) {
      seen++;
      for (let i = 0; i < requirements.length; i++) {
        if (met[i] !== undefined) continue;
        const requirement = requirements[i]!;
        const verifyOptions: VerifySignatureOptions = {
          signature,
          publicKeys: requirement.publicKeys,
          expected: options.expected,
          ...(requirement.identityRule ? { identityRule: requirement.identityRule } : {}),
          ...(options.clock ? { clock: options.clock } : {}),
          ...(options.maxSize !== undefined ? { maxSize: options.maxSize } : {}),
        };
        const result = await verifySignature(verifyOptions);
        if (result.verified) {
          met[i] = result;
          remaining--;
        } else {
          reasons[i]!.push(result.reason);
        }
      }
      if (remaining === 0) break;
    }
  }
  if (remaining === 0) return { verified: true, signatures: met as VerifiedSignature[] };
  if (seen === 0) return { verified: false, reason: NO_SIGNATURE_REASON, reasons: [] };
  const first = reasons[met.findIndex((m) => m === undefined)]!;
  return { verified: false, reason: noSignatureAccepted(first), reasons: first };
}

/**
 * The reason when signatures exist but none was accepted, in containers/image's words, each
 * distinct reason once (ten copies of one bad signature say one thing).
 */
export function noSignatureAccepted(reasons: readonly string[]): string {
  return `None of the signatures were accepted, reasons: ${[...new Set(reasons)].join("; ")}`;
}

/** Options of {@linkcode verifyImageSignatures}. */
export interface VerifyImageOptions extends SignatureRequirement {
  /** The signatures stored for the image's digest, in order. */
  signatures: SignatureSource;
  /** What the signature must vouch for. */
  expected: ExpectedImage;
  /** The verification time. */
  clock?: () => Date;
}

/** The outcome: the first signature that verified, or why none did. */
export type ImageVerification =
  | { readonly verified: true; readonly signature: VerifiedSignature }
  | { readonly verified: false; readonly reason: string; readonly reasons: readonly string[] };

/** Verifies the signatures in order and stops at the first that verifies (one requirement). */
export async function verifyImageSignatures(
  options: VerifyImageOptions,
): Promise<ImageVerification> {
  const result = await verifyRequirements({
    signatures: options.signatures,
    requirements: [{ publicKeys: options.publicKeys, identityRule: options.identityRule }],
    expected: options.expected,
    clock: options.clock,
  });
  return result.verified ? { verified: true, signature: result.signatures[0]! } : result;
}
