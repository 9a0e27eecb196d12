/**
 * The verifier's registry clients, one per pull credentials (a client holds its own bounded
 * maps: pings, hosts; 64 clients at most, for ten minutes), sharing one token cache.
 *
 * @module
 */
import { CACHE_BYTES } from "./memory_budget.ts";
import {
  createRegistryClient,
  createTokenCache,
  type FetchFunction,
  type RegistryClient,
  type RetryPolicy,
  type TokenCache,
} from "../registry/mod.ts";
import { type CacheStats, TtlCache } from "./cache.ts";
import type { PullCredentials } from "./credentials.ts";

/** How the clients reach registries. */
export interface RegistryClientsOptions {
  /** Registries reached over plain HTTP (`host[:port]`). */
  readonly insecureRegistries?: readonly string[] | undefined;
  readonly fetch?: FetchFunction | undefined;
  /** Extra trusted CA certificates (PEM). */
  readonly caCerts?: readonly string[] | undefined;
  /** @default 5000 */
  readonly requestTimeoutMs?: number | undefined;
  /** @default 2 retries from 100 ms */
  readonly retry?: Partial<RetryPolicy> | undefined;
  readonly now: () => number;
}

/** Registry clients by credentials. */
export class RegistryClients {
  readonly #options: RegistryClientsOptions;
  readonly #clients: TtlCache<string, RegistryClient>;
  readonly #tokens: TokenCache;

  constructor(options: RegistryClientsOptions) {
    this.#options = options;
    this.#clients = new TtlCache<string, RegistryClient>({
      name: "registry-client",
      ttlMs: 10 * 60_000,
      maxEntries: 64,
      now: options.now,
    });
    this.#tokens = createTokenCache(options.now, { maxBytes: CACHE_BYTES["registry-token"] });
  }

  /** The client of `credentials` (made on first use). */
  clientFor(credentials: PullCredentials): RegistryClient {
    let client = this.#clients.get(credentials.id);
    if (client === undefined) {
      const options = this.#options;
      client = createRegistryClient({
        credentials: credentials.store,
        insecureRegistries: options.insecureRegistries ?? [],
        tokenCache: this.#tokens,
        timeoutMs: options.requestTimeoutMs ?? 5000,
        retry: { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 1000, ...options.retry },
        now: options.now,
        ...(options.caCerts?.length ? { caCerts: options.caCerts } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
      this.#clients.set(credentials.id, client);
    }
    return client;
  }

  /** The clients' cache and the token cache, for metrics. */
  stats(): CacheStats[] {
    return [this.#clients.stats(), this.#tokens.stats()];
  }
}
