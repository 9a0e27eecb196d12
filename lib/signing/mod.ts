/**
 * Image signing: simple (GnuPG) and cosign signatures made, signing key pairs made or read from
 * a vault's material, and the `image-signing` Secret that tells a pipeline which key in which
 * vault signs its images. The CLI and pipelines use it; the webhook, which only verifies, never
 * loads it (`tools/layering.ts`, rule `webhook-signing`).
 *
 * ```ts
 * import { generateKeyPair, readPrivateKey, signImage } from "./mod.ts";
 *
 * const pair = await generateKeyPair({ name: "CI", email: "ci@example.com", type: "ed25519" });
 * const signature = await signImage({
 *   privateKey: await readPrivateKey(pair.privateKeyArmored),
 *   dockerReference: "docker.io/library/nginx:1.25",
 *   manifestDigest: "sha256:" + "ab".repeat(32),
 * });
 * ```
 *
 * @module
 */
export * from "./signing_secret.ts";
export * from "./private_key.ts";
export * from "./sign.ts";
export * from "./openpgp_key_generation.ts";
export * from "./cosign_keys.ts";
export * from "./cosign_sign.ts";
export * from "./key_pair.ts";
export * from "./cosign_push.ts";
export * from "./attestation_statement.ts";
export * from "./attestation_sign.ts";
export * from "./attestation_push.ts";
