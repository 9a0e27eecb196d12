/**
 * The latest {@linkcode TrustExpiry} of each key Secret and trust root the verifications read,
 * for the expiry gauges of `/metrics`: one entry per object, the most recently read kept when
 * there are more than {@linkcode MAX_TRUST_EXPIRIES}, and an entry not read for
 * {@linkcode TRUST_EXPIRY_TTL_MS} (the key caches' lifetime) dropped, so that a Secret no policy
 * uses any more stops being reported.
 *
 * @module
 */
import type { TrustExpiry } from "../lib/admission/mod.ts";
import { TtlCache } from "../lib/cache.ts";

/** The most objects reported (the key Secret and trust root caches hold 256 + 32 at most). */
export const MAX_TRUST_EXPIRIES = 512;

/** How long an object not read again is still reported: a day, as the key caches keep it. */
export const TRUST_EXPIRY_TTL_MS = 24 * 3600_000;

/** The reports, by object. */
export class TrustExpiries {
  readonly #entries: TtlCache<string, TrustExpiry>;

  /** Creates the tracker; `now` is the clock in milliseconds. */
  constructor(now: () => number = Date.now) {
    this.#entries = new TtlCache({
      ttlMs: TRUST_EXPIRY_TTL_MS,
      maxEntries: MAX_TRUST_EXPIRIES,
      now,
    });
  }

  /** Takes a report (the observer the verifier is given). */
  readonly observe = (expiry: TrustExpiry): void => {
    // Stored anew, last: the cache's order is the order of reads.
    this.#entries.set(
      `${expiry.material}/${expiry.kind}/${expiry.namespace}/${expiry.name}`,
      expiry,
    );
  };

  /** The objects read within the TTL, in the order of their last read. */
  current(): TrustExpiry[] {
    return this.#entries.values();
  }
}
