/**
 * The registry client shared by the CLI and the admission webhook: manifests and digests over
 * the distribution API, anonymous, Basic and Bearer-token authentication, credentials from pull
 * secrets, `auth.json` and `--creds` matched by Kubernetes' host rules, custom CAs, insecure
 * (plain HTTP) registries, timeouts, size limits, retries, and the
 * `X-Registry-Supports-Signatures` signature extension.
 *
 * ```ts
 * import { parseReference } from "../image/mod.ts";
 * import { createKeyring, createRegistryClient, credentialsFromSecret } from "./mod.ts";
 *
 * declare const pullSecret: { type: string; data: Record<string, string> };
 * using client = createRegistryClient({
 *   credentials: createKeyring(credentialsFromSecret(pullSecret)),
 * });
 * const digest = await client.resolveDigest(parseReference("quay.io/team/app:1.2"));
 * ```
 *
 * @module
 */
export * from "./auth.ts";
export * from "./challenge.ts";
export * from "./client.ts";
export * from "./cosign_store.ts";
export * from "./cosign_listings.ts";
export * from "./credentials.ts";
export * from "./digest.ts";
export * from "./errors.ts";
export * from "./extension_store.ts";
export * from "./image_index.ts";
export * from "./keyring.ts";
export * from "./media_types.ts";
export * from "../retry.ts";
export * from "./signature_store.ts";
export * from "./token_cache.ts";
export * from "./transport.ts";
