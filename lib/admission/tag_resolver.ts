/**
 * Tag → digest resolution for the verifier: cached per credentials for a short time (a cached
 * digest is returned as it is, not as a promise, and needs no slot); else the call takes its
 * slot and joins the resolution of the tag shared by the reviews that wait for it, which runs at
 * most `flightTimeoutMs`, reserves its reads from the pool, and is aborted once nobody waits.
 *
 * @module
 */
import { CACHE_BYTES } from "./memory_budget.ts";
import { formatReference, type ImageReference, withDefaultTag } from "../image/mod.ts";
import type { RegistryClient } from "../registry/mod.ts";
import type { MemoryPool } from "../read_budget.ts";
import { type CacheStats, TtlCache } from "./cache.ts";
import type { PullCredentials } from "./credentials.ts";
import { startDeadline } from "./errors.ts";
import { SharedFlights } from "./shared_flight.ts";
import type { CacheBounds } from "./verification.ts";
import type { VerifyCall } from "./verify_call.ts";

/** What the resolver reaches registries with, and its bounds. */
export interface TagResolverOptions {
  /** The registry client of some credentials. */
  readonly clientFor: (credentials: PullCredentials) => Pick<RegistryClient, "resolveDigest">;
  /** Resolutions: lifetime and bound. */
  readonly digestCache: CacheBounds;
  /** The most time one resolution may take (shared by the reviews that wait on it). */
  readonly flightTimeoutMs: number;
  /** The pool a resolution reserves `imageReadBytes` from before it reads. */
  readonly memory: { readonly pool: MemoryPool; readonly imageReadBytes: number };
  readonly now: () => number;
}

/** Resolves tags to digests, through a cache and shared flights. */
export class TagResolver {
  readonly #options: TagResolverOptions;
  readonly #digests: TtlCache<string, string>;
  readonly #resolving = new SharedFlights<string, string>();

  constructor(options: TagResolverOptions) {
    this.#options = options;
    this.#digests = new TtlCache<string, string>({
      name: "digest",
      maxBytes: CACHE_BYTES.digest,
      ...options.digestCache,
      sizeOf: (key, digest) => key.length + digest.length + 64,
      now: options.now,
    });
  }

  /**
   * The digest of the image: the reference's own, else its tag resolved. A digest known already
   * is returned as it is, not as a promise: a warm review waits for nothing it does not need.
   */
  digestOf(
    reference: ImageReference,
    credentials: PullCredentials,
    call: VerifyCall,
  ): string | Promise<string> {
    if (reference.digest !== undefined) return reference.digest;
    return this.resolveTag(reference, credentials, call);
  }

  /**
   * Resolves the tag (`latest` when none) of a reference, its digest left aside, through the
   * cache (a cached digest is returned as it is, without a slot). Else the call takes its slot
   * and joins the resolution of the tag shared by the reviews that wait for it.
   */
  resolveTag(
    tagged: ImageReference,
    credentials: PullCredentials,
    call: VerifyCall,
  ): string | Promise<string> {
    const ref = withDefaultTag({ ...tagged, digest: undefined });
    const key = `${credentials.id}|${formatReference(ref)}`;
    const cached = this.#digests.get(key);
    if (cached !== undefined) return cached;
    return (async () => {
      await call.slot();
      // Resolved by another review while this one waited for its slot.
      const meanwhile = this.#digests.get(key);
      if (meanwhile !== undefined) return meanwhile;
      return await this.#resolving.join(key, async (abandoned) => {
        const { flightTimeoutMs, memory } = this.#options;
        using deadline = startDeadline(flightTimeoutMs);
        const signal = AbortSignal.any([abandoned, deadline.signal]);
        using budget = await memory.pool.reserve(memory.imageReadBytes, signal);
        const client = this.#options.clientFor(credentials);
        const digest = await client.resolveDigest(ref, { signal, budget });
        this.#digests.set(key, digest);
        return digest;
      }, call.signal);
    })();
  }

  /** The digest cache, for metrics. */
  stats(): CacheStats {
    return this.#digests.stats();
  }
}
