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

/** The most objects reported (the key Secret and trust root caches hold 256 + 32 at most). */
export const MAX_TRUST_EXPIRIES = 512;

/** How long an object not read again is still reported: a day, as the key caches keep it. */
export const TRUST_EXPIRY_TTL_MS = 24 * 3600_000;

/** The reports, by object. */
export class TrustExpiries {
  readonly #entries = new Map<string, { expiry: TrustExpiry; readAt: number }>();
  readonly #now: () => number;

  /** Creates the tracker; `now` is the clock in milliseconds. */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Takes a report (the observer the verifier is given). */
  readonly observe = (expiry: TrustExpiry): void => {
    const key = `${expiry.material}/${expiry.kind}/${expiry.namespace}/${expiry.name}`;
    this.#entries.delete(key); // re-inserted last: the map's order is the order of reads
    this.#entries.set(key, { expiry, readAt: this.#now() });
    if (this.#entries.size > MAX_TRUST_EXPIRIES) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
  };

  /** The objects read within the TTL, in the order of their last read. */
  current(): TrustExpiry[] {
    const oldest = this.#now() - TRUST_EXPIRY_TTL_MS;
    for (const [key, entry] of this.#entries) {
      if (entry.readAt > oldest) break;
      this.#entries.delete(key);
    }
    return [...this.#entries.values()].map((e) => e.expiry);
  }
}
