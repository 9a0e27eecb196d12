/**
 * The registry client shared by the CLI and the admission webhook: manifests by tag or digest
 * (HEAD and GET), digest resolution, blobs, referrers, the `/v2/` ping, and authenticated
 * requests for API extensions.
 *
 * ```ts
 * import { parseReference } from "../image/mod.ts";
 * import { createRegistryClient } from "./mod.ts";
 *
 * using client = createRegistryClient({ insecureRegistries: ["127.0.0.1:5000"] });
 * const digest = await client.resolveDigest(parseReference("127.0.0.1:5000/demo/app:1"));
 * ```
 *
 * This module only composes the client of its units, one a concern, each with its tests beside
 * it (a new registry capability is a unit of its own; docs/architecture.md says how):
 *
 * | Concern                                                      | Unit                                                                  |
 * | ------------------------------------------------------------ | --------------------------------------------------------------------- |
 * | HTTP: timeouts, size limits, redirects, retries, counting    | `transport.ts`                                                        |
 * | where a registry is reached (URL, insecure registries)       | `registry_url.ts`                                                     |
 * | authentication: challenges, tokens, credentials              | `auth.ts`, `challenge.ts`, `token_cache.ts`, `keyring.ts`             |
 * | the authenticated request every call sends; the ping         | `authenticated_request.ts`, `ping.ts`                                 |
 * | paths from references; a registry's error answers            | `repository_path.ts`, `error_answer.ts`                               |
 * | manifests and tags (HEAD, GET, digest resolution)            | `manifests.ts`                                                        |
 * | referrers (OCI 1.1)                                          | `referrers.ts`                                                        |
 * | blobs                                                        | `blobs.ts`                                                            |
 * | the interface and the shapes of its calls                    | `client_types.ts`                                                     |
 *
 * - Registry hosts are used in their canonical spelling (`canonicalDomain` of lib/image): the
 *   ping cache, the per-host authentication state and the insecure list see `REG:0443` as `reg`.
 * - `docker.io` is served at `registry-1.docker.io`.
 * - An insecure registry is reached over plain `http://` (Deno's `fetch` cannot skip TLS
 *   verification, so "insecure" means plain HTTP, like skopeo's `--tls-verify=false` for a
 *   registry without TLS). Custom CA certificates are the way to reach a TLS registry with a
 *   private CA.
 *
 * @module
 */

import { createRegistryAuth } from "./auth.ts";
import { createRegistryRequester } from "./authenticated_request.ts";
import { readBlob } from "./blobs.ts";
import type { RegistryClient } from "./client_types.ts";
import type { CredentialStore } from "./keyring.ts";
import { createManifestReader, DEFAULT_MAX_MANIFEST_BYTES } from "./manifests.ts";
import { createRegistryPing } from "./ping.ts";
import { readReferrers } from "./referrers.ts";
import { createRegistryLocator } from "./registry_url.ts";
import { createTokenCache, type TokenCache } from "./token_cache.ts";
import { createTransport, type Transport, type TransportOptions } from "./transport.ts";

export type * from "./client_types.ts";
export { DEFAULT_MAX_MANIFEST_BYTES } from "./manifests.ts";
export { MAX_REFERRERS_PAGES, nextPage } from "./referrers.ts";
export { insecureRegistryEntry } from "./registry_url.ts";
export { parseErrorBody, registryErrorFromResponse } from "./error_answer.ts";

/** How the client reaches registries; every field has a default. */
export interface RegistryClientOptions extends TransportOptions {
  /** Where credentials come from (a keyring of pull secrets, `--creds`); none: anonymous. */
  credentials?: CredentialStore | undefined;
  /**
   * Registries reached over plain HTTP: `host:port` entries match exactly, `host` entries match
   * every port of that host; both in any spelling (see {@linkcode insecureRegistryEntry}).
   */
  insecureRegistries?: readonly string[];
  /** The largest manifest accepted. Default {@linkcode DEFAULT_MAX_MANIFEST_BYTES}. */
  maxManifestBytes?: number;
  /** A token cache to share between clients. Default: one per client, on `now`. */
  tokenCache?: TokenCache;
}

/** Creates a registry client. */
export function createRegistryClient(options: RegistryClientOptions = {}): RegistryClient {
  const transport: Transport = createTransport(options);
  const now = options.now ?? Date.now;
  const { registryUrl, isInsecureHost } = createRegistryLocator(options.insecureRegistries);
  const auth = createRegistryAuth({
    transport,
    credentials: options.credentials,
    tokens: options.tokenCache ?? createTokenCache(now),
    now,
    isInsecureHost,
  });
  const request = createRegistryRequester({ auth, registryUrl });
  const manifests = createManifestReader(
    request,
    options.maxManifestBytes ?? DEFAULT_MAX_MANIFEST_BYTES,
  );
  const ping = createRegistryPing({ transport, auth, registryUrl, now });
  const close = () => transport.close();
  return {
    headManifest: (ref, opts) => manifests.headManifest(ref, opts),
    getManifest: manifests.getManifest,
    getBlob: (ref, digest, opts) => readBlob(request, ref, digest, opts),
    getReferrers: (ref, digest, opts) => readReferrers(request, ref, digest, opts),
    resolveDigest: manifests.resolveDigest,
    ping,
    request,
    registryUrl,
    get requestCount() {
      return transport.requestCount;
    },
    close,
    [Symbol.dispose]: close,
  };
}
