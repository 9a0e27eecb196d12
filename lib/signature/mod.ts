/**
 * GnuPG "simple signing" (atomic container signatures), the format skopeo, podman, buildah and
 * Portieris use: the JSON payload, OpenPGP keys, signing, verification, and `signedIdentity`
 * rules.
 *
 * ```ts
 * import { generateKeyPair, readPrivateKey, readPublicKeys, signImage, verifySignature } from "./mod.ts";
 * import { parseReference } from "../image/mod.ts";
 *
 * const pair = await generateKeyPair({ name: "CI", email: "ci@example.com", type: "ed25519" });
 * const digest = "sha256:" + "ab".repeat(32);
 * const signature = await signImage({
 *   privateKey: await readPrivateKey(pair.privateKeyArmored),
 *   dockerReference: "docker.io/library/nginx:1.25",
 *   manifestDigest: digest,
 * });
 * const result = await verifySignature({
 *   signature,
 *   publicKeys: await readPublicKeys(pair.publicKeyArmored),
 *   expected: { manifestDigest: digest, reference: parseReference("nginx:1.25") },
 * });
 * // result.verified === true
 * ```
 *
 * @module
 */
export * from "./identity.ts";
export * from "./keys.ts";
export * from "./key_bounds.ts";
export * from "./payload.ts";
export * from "./sign.ts";
export * from "./verify.ts";
export * from "./verify_image.ts";
export * from "./cosign_keys.ts";
export * from "./cosign_media_types.ts";
export * from "./cosign_sign.ts";
export * from "./cosign_statement.ts";
export * from "./key_pair.ts";
