/**
 * The `/v2/` ping: sent without credentials, it tells whether a registry answers, what
 * authentication it asks for (told to the auth layer, which then skips its own first
 * unauthenticated try) and whether it serves the signature extension. One ping per registry
 * (canonical spelling) is kept for {@linkcode HOST_MEMORY_MS}, at most
 * {@linkcode MAX_REGISTRY_HOSTS} of them; a failed one is forgotten.
 *
 * @module
 */

import { TtlCache } from "../cache.ts";
import { canonicalDomain } from "../image/mod.ts";
import { HOST_MEMORY_MS, MAX_REGISTRY_HOSTS, type RegistryAuth } from "./auth.ts";
import { parseAuthenticate } from "./challenge.ts";
import type { PingResult, RequestOptions } from "./client_types.ts";
import {
  detailTellsCause,
  registryErrorFromResponse,
  transportFailureDetail,
} from "./error_answer.ts";
import { RegistryError } from "./errors.ts";
import type { HttpResponse, Transport } from "./transport.ts";

/** What the ping needs. */
export interface RegistryPingOptions {
  /** Sends the ping (no auth layer: a ping carries no credentials). */
  readonly transport: Transport;
  /** Learns what the ping said about authentication. */
  readonly auth: RegistryAuth;
  /** The base URL of a registry (lib/registry/registry_url.ts). */
  readonly registryUrl: (registry: string) => string;
  /** The clock (ms), for the cache. */
  readonly now: () => number;
}

/** Creates the ping of a client: `ping(registry)`, cached per registry. */
export function createRegistryPing(
  options: RegistryPingOptions,
): (registry: string, opts?: RequestOptions) => Promise<PingResult> {
  const { transport, auth, registryUrl } = options;
  const pings = new TtlCache<string, Promise<PingResult>>({
    name: "registry-ping",
    ttlMs: HOST_MEMORY_MS,
    maxEntries: MAX_REGISTRY_HOSTS,
    now: options.now,
  });
  return (registry: string, opts: RequestOptions = {}): Promise<PingResult> => {
    const key = canonicalDomain(registry);
    const cached = pings.get(key);
    if (cached) return cached;
    const promise = (async () => {
      const url = `${registryUrl(registry)}/v2/`;
      let response: HttpResponse;
      try {
        response = await transport.send({
          method: "GET",
          url,
          maxBytes: 64 * 1024,
          signal: opts.signal,
          budget: opts.budget,
        });
      } catch (error) {
        throw new RegistryError(
          `Cannot reach registry "${registry}": ${transportFailureDetail(error)}`,
          { registry, cause: error, messageTellsCause: detailTellsCause(error) },
        );
      }
      if (response.status !== 200 && response.status !== 401) {
        throw registryErrorFromResponse("reach registry", registry, { registry }, response);
      }
      const challenges = parseAuthenticate(response.headers.get("www-authenticate"));
      auth.learn(key, challenges);
      return {
        status: response.status,
        supportsSignatures: response.headers.get("x-registry-supports-signatures")?.trim() === "1",
        challenges,
      };
    })();
    pings.set(key, promise);
    promise.catch(() => pings.delete(key));
    return promise;
  };
}
