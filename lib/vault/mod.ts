/**
 * Key vaults: a client for IBM Cloud Key Protect (and Hyper Protect Crypto Services, which
 * serves the same API), IAM access tokens from an API key, and the two things toolkit does with
 * them: store a private key with aliases ({@linkcode storeKey}, rotating one in the way when
 * asked), and find one by id, alias or name ({@linkcode resolveKey}) and read its material into
 * memory ({@linkcode fetchKeyMaterial}). Every request carries a `correlation-id` and is retried
 * on 429 and 5xx answers with jittered backoff, within bounds; time, randomness and the network
 * are passed in.
 *
 * @example
 * ```ts ignore
 * import { createKeyProtectClient, fetchKeyMaterial, iamTokenSource, resolveKey, storeKey } from "./mod.ts";
 *
 * const client = createKeyProtectClient({
 *   baseUrl: "https://us-south.kms.cloud.ibm.com",
 *   instanceId,
 *   token: iamTokenSource({ apiKey }),
 * });
 * const { id } = await storeKey(client, { name: "signing", payload, aliases: ["signing"] });
 * const { key } = await resolveKey(client, "signing"); // by id, alias or name
 * const material = await fetchKeyMaterial(client, key); // the bytes again, in memory
 * ```
 *
 * @module
 */
export * from "./vault_error.ts";
export * from "./iam.ts";
export * from "./key_protect.ts";
export * from "./aliases.ts";
export * from "./resolve.ts";
export * from "./store.ts";
export {
  DEFAULT_VAULT_RETRY,
  describeTraceEvent,
  isRetryableVaultStatus,
  type VaultRetryPolicy,
  type VaultTraceEvent,
  type VaultTransportOptions,
} from "./_http.ts";
