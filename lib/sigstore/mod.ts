/**
 * Sigstore (cosign) signature verification: the PEM public keys of keyed signatures, keyless
 * identities (issuer and subject, exactly or by a linear-time regular expression), and what a
 * registry holds of a signature. The verification itself (`verify.ts`) and the trust root reader
 * (`trust_root.ts`) load `@sigstore/verify` and its protobuf types, some tens of milliseconds:
 * only their types are exported here, and {@linkcode loadSigstoreVerification} and
 * {@linkcode loadTrustRootParser} import them when needed (lib/admission on the first
 * `sigstoreSigned` requirement).
 *
 * ```ts
 * import { loadSigstoreVerification, readSigstorePublicKeys } from "./mod.ts";
 *
 * declare const pem: string;
 * const keys = await readSigstorePublicKeys(pem);
 * const { verifyCosignSignature } = await loadSigstoreVerification();
 * ```
 *
 * @module
 */
export * from "./public_keys.ts";
export * from "./identities.ts";
export type {
  CosignExpectedImage,
  CosignVerification,
  SigstoreSigner,
  SigstoreTrust,
  TlogPolicy,
  VerifiedCosignSignature,
} from "./verify.ts";
export type { TrustRoot } from "./trust_root.ts";
export type {
  AttestationTrust,
  AttestationVerification,
  VerifiedAttestation,
} from "./verify_attestation.ts";

/** The verification of attestations (and `@sigstore/verify` behind it), loaded once. */
export function loadAttestationVerification(): Promise<typeof import("./verify_attestation.ts")> {
  attestationVerification ??= import("./verify_attestation.ts");
  return attestationVerification;
}

let attestationVerification: Promise<typeof import("./verify_attestation.ts")> | undefined;

/** The verification of cosign signatures (and `@sigstore/verify` behind it), loaded once. */
export function loadSigstoreVerification(): Promise<typeof import("./verify.ts")> {
  verification ??= import("./verify.ts");
  return verification;
}

/** The trust root reader (and the sigstore libraries behind it), loaded once. */
export function loadTrustRootParser(): Promise<typeof import("./trust_root.ts")> {
  trustRoots ??= import("./trust_root.ts");
  return trustRoots;
}

let verification: Promise<typeof import("./verify.ts")> | undefined;
let trustRoots: Promise<typeof import("./trust_root.ts")> | undefined;
