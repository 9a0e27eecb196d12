/**
 * Where the simple-signing signatures of an image are kept, chosen the one way the webhook,
 * `toolkit image-security verify`, `check` and `sign` all use:
 *
 * 1. `storeURL`, when the image's policy sets one (a lookaside store, read-only over HTTP);
 * 2. the registry's signature extension, when the registry advertises it
 *    (`X-Registry-Supports-Signatures`); reading a digest it has no signatures of answers 404,
 *    which means "no signatures" (an empty list), not a failure;
 * 3. the lookaside store that registries.d configures for the image (`lookaside` to read,
 *    `lookaside-staging` else `lookaside` to write);
 * 4. none: the caller says so (a denial for a verification, an error for a signing).
 *
 * @module
 */
import type { ImageReference } from "../image/mod.ts";
import {
  collectSignatures,
  type LookasideSelection,
  lookasideStore,
  lookasideStoreFor,
  type RegistriesD,
  selectLookaside,
  type SignatureStore,
} from "../lookaside/mod.ts";
import type { ReadBudget } from "../read_budget.ts";
import type { RegistryClient } from "./client_types.ts";
import { RegistryError } from "./errors.ts";
import { createExtensionSignatureStore } from "./extension_store.ts";

/** A signature store and a description of it for messages. */
export interface SignatureStoreChoice {
  readonly store: SignatureStore;
  /** `storeURL <url>`, `the signature extension of <registry>`, or `<url> (<scope> in <file>)`. */
  readonly where: string;
  /** The registries.d scope chosen, when the store is the lookaside registries.d configures. */
  readonly lookaside?: LookasideSelection;
}

/** What {@linkcode selectSignatureStore} chooses from. */
export interface SignatureStoreOptions {
  /** The client of the image's registry (its ping says whether it has the extension). */
  readonly client: RegistryClient;
  /** The image; with its digest when reading, so registries.d `repo@digest` scopes apply. */
  readonly reference: ImageReference;
  /** Reading signatures or writing one. */
  readonly mode: "read" | "write";
  /** The policy's `storeURL`, and the fetch to read it with (Basic auth of `storeSecret`). */
  readonly storeURL?: { readonly url: URL; readonly fetch?: typeof fetch | undefined } | undefined;
  /** registries.d configuration. */
  readonly registriesD?: RegistriesD | undefined;
  /** The fetch for HTTP lookaside stores. */
  readonly fetch?: typeof fetch | undefined;
  /** The time one lookaside request may take. */
  readonly timeoutMs?: number | undefined;
  /** The largest signature a lookaside store may answer. */
  readonly maxSignatureBytes?: number | undefined;
  /** Aborts the ping and extension requests. */
  readonly signal?: AbortSignal | undefined;
  /** Charged for what the ping reads. */
  readonly budget?: ReadBudget | undefined;
}

/** The signatures, or none where the registry answers 404 for the digest. */
async function* noneOn404(signatures: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  try {
    yield* signatures;
  } catch (error) {
    if (error instanceof RegistryError && error.status === 404) return;
    throw error;
  }
}

/** Chooses where the image's signatures are read or written; undefined when nowhere. */
export async function selectSignatureStore(
  options: SignatureStoreOptions,
): Promise<SignatureStoreChoice | undefined> {
  const { client, reference, mode } = options;
  const timeout = {
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.maxSignatureBytes === undefined ? {} : { maxBytes: options.maxSignatureBytes }),
  };
  if (options.storeURL !== undefined) {
    const { url, fetch: storeFetch } = options.storeURL;
    return {
      store: lookasideStore({
        readBase: url,
        ...timeout,
        ...(storeFetch ? { fetch: storeFetch } : {}),
      }),
      where: `storeURL ${url.href}`,
    };
  }
  const ping = await client.ping(reference.domain, {
    signal: options.signal,
    budget: options.budget,
  });
  if (ping.supportsSignatures) {
    const extension = createExtensionSignatureStore(client, { signal: options.signal });
    return {
      store: {
        // A registry with the extension answers 404 for a digest it has no signatures of.
        signatures: (ref, digest, read) => noneOn404(extension.signatures(ref, digest, read)),
        readSignatures: (ref, digest, read) =>
          collectSignatures(noneOn404(extension.signatures(ref, digest, read))),
        writeSignature: extension.writeSignature,
      },
      where: `the signature extension of ${reference.domain}`,
    };
  }
  if (options.registriesD === undefined) return undefined;
  const selection = selectLookaside(options.registriesD, reference, mode);
  const store = lookasideStoreFor(options.registriesD, reference, {
    ...timeout,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  if (selection === undefined || store === undefined) return undefined;
  return {
    store,
    where: `${selection.base.href} (${selection.scope} in ${selection.source})`,
    lookaside: selection,
  };
}
