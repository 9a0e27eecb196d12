/**
 * What a registry holds of a cosign signature, as the registry side reads it
 * (`lib/registry/cosign_store.ts`) and the verification side checks it (`verify.ts`): nothing in
 * it is trusted yet.
 *
 * @module
 */

/** One signature as stored, in either format. */
export type StoredCosignSignature =
  | {
    /** A layer of the legacy `sha256-<hex>.sig` manifest. */
    readonly format: "legacy";
    /** The layer's blob: the signed payload, byte for byte. */
    readonly payload: Uint8Array;
    /** The layer's annotations (signature, certificate, chain, Rekor bundle, timestamp). */
    readonly annotations: Readonly<Record<string, string>>;
    /** For messages: `layer sha256:… of <tag>`. */
    readonly where: string;
  }
  | {
    /** A sigstore bundle v0.3 stored as an OCI 1.1 referrer (cosign v3). */
    readonly format: "bundle";
    /** The bundle's JSON bytes. */
    readonly bundle: Uint8Array;
    /** For messages: `referrer sha256:…`. */
    readonly where: string;
  };

/** What was read for an image: its signatures, and why other stored things were not used. */
export interface StoredCosignSignatures {
  /** The signatures, legacy layers first, then bundles. */
  readonly signatures: readonly StoredCosignSignature[];
  /** Things found that cannot be signatures of the image (a referrer of another subject, …). */
  readonly skipped: readonly string[];
}
