/**
 * Sigstore (cosign) signature verification: the PEM public keys of keyed signatures, keyless
 * identities (issuer and subject, exactly or by a linear-time regular expression), and what a
 * registry holds of a signature. The verification itself (`verify.ts`) and the trust root reader
 * (`trust_root.ts`) load `@sigstore/verify` and its dependencies, some tens of milliseconds: they
 * are imported on their own, when needed (lib/admission imports them on the first
 * `sigstoreSigned` requirement), and only their types are exported here.
 *
 * ```ts
 * import { readSigstorePublicKeys } from "./mod.ts";
 *
 * declare const pem: string;
 * const keys = await readSigstorePublicKeys(pem);
 * const { verifyCosignSignature } = await import("./verify.ts");
 * ```
 *
 * @module
 */
export * from "./public_keys.ts";
export * from "./identities.ts";
export type * from "./stored.ts";
export type {
  CosignExpectedImage,
  CosignVerification,
  SigstoreSigner,
  SigstoreTrust,
  TlogPolicy,
  VerifiedCosignSignature,
} from "./verify.ts";
export type { TrustRoot } from "./trust_root.ts";
