/**
 * Key vaults: a client for IBM Cloud Key Protect (and Hyper Protect Crypto Services, which
 * serves the same API), and IAM access tokens from an API key. Used to keep image signing keys
 * in a vault and fetch them where images are signed.
 *
 * @example
 * ```ts ignore
 * import { createKeyProtectClient, iamTokenSource } from "./mod.ts";
 *
 * const client = createKeyProtectClient({
 *   baseUrl: "https://us-south.kms.cloud.ibm.com",
 *   instanceId,
 *   token: iamTokenSource({ apiKey }),
 * });
 * const { id } = await client.createKey({ name: "signing", payload, extractable: true });
 * const key = await client.getKey(id); // key.payload holds the bytes again
 * ```
 *
 * @module
 */
export * from "./vault_error.ts";
export * from "./iam.ts";
export * from "./key_protect.ts";
