/**
 * The evaluator's two caches in front of the verifier: image names parsed into references, and
 * the policy chosen for an image in a namespace under one policy set. Both answer a cached value
 * as it is (a warm review waits for nothing); a policy not yet chosen is chosen in slices that
 * take turns with other work (`PolicySet.selectInSlices`), a promise.
 *
 * Only valid references are cached (at most MAX_REFERENCE_LENGTH characters each): an invalid
 * one is refused again cheaply, and never holds memory. Choices are kept per policy set: a new
 * set (the policies changed) starts an empty cache and the old one goes with its set.
 *
 * @module
 */
import { CACHE_BYTES } from "./memory_budget.ts";
import { formatReference, type ImageReference, parseReference } from "../image/mod.ts";
import type { NoPolicyMatch, PolicyMatch, PolicySet } from "../policy/mod.ts";
import type { Slicer } from "../turns.ts";
import { type CacheStats, TtlCache } from "./cache.ts";

/** A parsed image, or why it cannot be parsed. */
export type Parsed = { readonly ref: ImageReference } | { readonly error: string };

const SELECTION_BOUND = {
  name: "policy-selection",
  ttlMs: 3600_000,
  maxEntries: 8192,
  maxBytes: CACHE_BYTES["policy-selection"],
};

/** Parsed images and chosen policies, cached. */
export class ImageChoices {
  readonly #parsed = new TtlCache<string, ImageReference>({
    name: "parse",
    ttlMs: 3600_000,
    maxEntries: 4096,
    maxBytes: CACHE_BYTES.parse,
    sizeOf: (image, ref) => image.length + formatReference(ref).length + 64,
  });
  #selections = new WeakMap<PolicySet, TtlCache<string, PolicyMatch | NoPolicyMatch>>();
  #selectionStats = new TtlCache<string, unknown>(SELECTION_BOUND).stats();

  /** The reference `image` names, or why it names none. */
  parse(image: string): Parsed {
    const cached = this.#parsed.get(image);
    if (cached !== undefined) return { ref: cached };
    try {
      const ref = parseReference(image);
      this.#parsed.set(image, ref);
      return { ref };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** The policy of `image`: from the cache as it is, else chosen in slices (a promise). */
  select(
    policies: PolicySet,
    namespace: string,
    ref: ImageReference,
    image: string,
    slicer: Slicer,
  ): PolicyMatch | NoPolicyMatch | Promise<PolicyMatch | NoPolicyMatch> {
    let cache = this.#selections.get(policies);
    if (cache === undefined) {
      this.#selections = new WeakMap();
      cache = new TtlCache(SELECTION_BOUND);
      this.#selections.set(policies, cache);
    }
    const key = `${namespace}\n${image}`;
    const match = cache.get(key);
    if (match !== undefined) return match;
    const chosen = cache;
    return policies.selectInSlices(namespace, ref, image, slicer).then((found) => {
      chosen.set(key, found);
      this.#selectionStats = chosen.stats();
      return found;
    });
  }

  /** The parse cache and the latest selection cache, for metrics. */
  stats(): CacheStats[] {
    return [this.#parsed.stats(), this.#selectionStats];
  }
}
