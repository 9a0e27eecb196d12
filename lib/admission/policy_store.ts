/**
 * Where the simple signatures of an image are read: the policy's `storeURL` (with Basic auth
 * from its `storeSecret`), else the registry's signature extension when the registry
 * advertises it, else the registries.d lookaside (`selectSignatureStore` of lib/registry).
 *
 * @module
 */
import type { ImageReference } from "../image/mod.ts";
import type { RegistriesD } from "../lookaside/mod.ts";
import type { RepositoryPolicy } from "../policy/mod.ts";
import {
  type FetchFunction,
  type RegistryClient,
  selectSignatureStore,
  type SignatureStoreChoice,
} from "../registry/mod.ts";
import type { ReadBudget } from "../read_budget.ts";
import { basicAuthorization } from "../base64.ts";
import { PolicyConfigError } from "./errors.ts";
import { MAX_SIMPLE_SIGNATURE_BYTES } from "./kind_signed_by.ts";
import { type PolicySource, secretText } from "./source.ts";

/** How stores are reached. */
export interface PolicyStoreOptions {
  /** Store Secrets. */
  readonly source: PolicySource;
  readonly fetch?: FetchFunction | undefined;
  readonly registriesD?: RegistriesD | undefined;
  /** @default 5000 */
  readonly requestTimeoutMs?: number | undefined;
}

/** The policy's `storeURL`, with Basic auth from its `storeSecret` (a Secret of `namespace`). */
export async function policyStoreURL(
  policy: RepositoryPolicy,
  namespace: string,
  options: PolicyStoreOptions,
): Promise<{ url: URL; fetch: typeof fetch | undefined } | undefined> {
  const simple = policy.simple;
  if (!simple?.storeURL) return undefined;
  let fetchFn: typeof fetch | undefined = options.fetch as typeof fetch | undefined;
  if (simple.storeSecret) {
    const secret = await options.source.secret(namespace, simple.storeSecret);
    const username = secret && secretText(secret, "username");
    const password = secret && secretText(secret, "password");
    if (username === undefined || password === undefined) {
      throw new PolicyConfigError(
        `Cannot use store Secret "${namespace}/${simple.storeSecret}": ${
          secret ? 'it needs "username" and "password" entries' : "it does not exist"
        }`,
      );
    }
    const base = fetchFn ?? fetch;
    const authorization = basicAuthorization(username, password);
    fetchFn = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", authorization);
      return base(input, { ...init, headers });
    };
  }
  try {
    return { url: new URL(simple.storeURL), fetch: fetchFn };
  } catch (error) {
    throw new PolicyConfigError(
      `Cannot use storeURL "${simple.storeURL}": not a URL`,
      { cause: error },
    );
  }
}

/** The signature store of an image pinned to its digest (`digestRef`), or undefined: none. */
export async function policySignatureStore(
  policy: RepositoryPolicy,
  namespace: string,
  client: RegistryClient,
  digestRef: ImageReference,
  read: { readonly signal: AbortSignal; readonly budget: ReadBudget },
  options: PolicyStoreOptions,
): Promise<SignatureStoreChoice | undefined> {
  return await selectSignatureStore({
    client,
    reference: digestRef,
    mode: "read",
    storeURL: await policyStoreURL(policy, namespace, options),
    registriesD: options.registriesD,
    fetch: options.fetch as typeof fetch | undefined,
    timeoutMs: options.requestTimeoutMs ?? 5000,
    maxSignatureBytes: MAX_SIMPLE_SIGNATURE_BYTES,
    signal: read.signal,
    budget: read.budget,
  });
}
