/**
 * GnuPG "simple signing" (atomic container signatures), the format skopeo, podman, buildah and
 * Portieris use, and the cosign formats, from the verifying side: the JSON payloads, public
 * keys, verification, and `signedIdentity` rules. What makes signatures and signing keys is in
 * lib/signing, which the webhook never loads (`tools/layering.ts`, rule `webhook-signing`).
 *
 * ```ts
 * import { readPublicKeys, verifySignature } from "./mod.ts";
 * import { parseReference } from "../image/mod.ts";
 *
 * declare const signature: Uint8Array, publicKeyArmored: string;
 * const result = await verifySignature({
 *   signature,
 *   publicKeys: await readPublicKeys(publicKeyArmored),
 *   expected: {
 *     manifestDigest: "sha256:" + "ab".repeat(32),
 *     reference: parseReference("nginx:1.25"),
 *   },
 * });
 * // result.verified: whether one of the keys signed that digest for that reference
 * ```
 *
 * @module
 */
export * from "./identity.ts";
export * from "./keys.ts";
export * from "./key_bounds.ts";
export * from "./payload.ts";
export * from "./signing_error.ts";
export * from "./verify.ts";
export * from "./verify_image.ts";
export * from "./cosign_media_types.ts";
export * from "./cosign_payloads.ts";
export * from "./cosign_statement.ts";
export * from "./attestation_statement.ts";
export * from "./dsse_openpgp.ts";
export { OPENPGP_CONFIG } from "./_config.ts";
