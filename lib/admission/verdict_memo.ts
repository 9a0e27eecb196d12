/**
 * Verdicts remembered by the objects of a review, so that a warm image is decided without
 * building a cache key, reading a Secret or waiting for a promise: the issue #28 fast path.
 *
 * An entry is found by the parsed reference and the policy match the evaluator's caches hand out
 * (the same objects for the same image text and policies: see `evaluate.ts`), and by a text
 * naming the pull credentials the workload would use (its namespace, ServiceAccount and pull
 * Secrets). It is used only while all of these hold:
 *
 * - the policy source's {@linkcode PolicySource.generation} is the one the verification started
 *   under: any change of a policy, a watched key Secret or trust root, an exempt namespace, or an
 *   object read afresh starts a new generation and forgets every entry (a policy change also
 *   makes new match objects);
 * - its lifetime has not run out: at most {@linkcode VERDICT_MEMO_LIFE_MS}, never longer than the
 *   verdict cache's and (for an image whose tag was resolved or chose the policy) the digest
 *   cache's lifetime, so what the caches would re-read is re-read at most a second later;
 * - the signatures and keys it relied on are still valid (`validUntil`).
 *
 * An entry in the second half of its life is worth renewing: the verifier verifies its image again
 * off the request path (through the caches, as any review would), so that a warm image stays on
 * this path without staying longer than the caches allow.
 *
 * Only admitted verdicts are remembered. The memo is bounded by construction: at most
 * `maxEntries` entries (all forgotten at once when full; the verdict cache refills the hot ones),
 * and an entry whose credentials text is over {@linkcode MAX_CONTEXT_LENGTH} is not kept.
 *
 * @module
 */
import type { ImageReference } from "../image/mod.ts";
import type { PolicyMatch } from "../policy/mod.ts";

/** The longest an entry is used, in ms. */
export const VERDICT_MEMO_LIFE_MS = 1000;

/** The longest credentials text an entry is kept under (a longer one is verified each time). */
export const MAX_CONTEXT_LENGTH = 1024;

/** What is remembered: the verifier's verdicts (only admitted ones are kept). */
interface Verdict {
  readonly allowed: boolean;
}

/** A remembered verdict. */
export interface MemoEntry<V> {
  readonly verdict: V;
  /** On the `now` clock. */
  readonly expiresAt: number;
  /** On the `now` clock: from then on, the entry is worth verifying again ahead of its expiry. */
  readonly renewAt: number;
  /** On the signature clock; undefined: no expiry. */
  readonly validUntil: number | undefined;
  /** Whoever renews it says so here, so that it is renewed once. */
  renewing: boolean;
}

/** How the memo is bounded and timed. */
export interface VerdictMemoOptions {
  /** The most entries held. */
  readonly maxEntries: number;
  /** The clock of lifetimes, in ms. */
  readonly now: () => number;
  /** The clock of signature validity, in ms. */
  readonly validityNow: () => number;
  /** The policy source's generation. */
  readonly generation: () => number;
}

/** Admitted verdicts, by reference, match and credentials. */
export class VerdictMemo<V extends Verdict> {
  readonly #options: VerdictMemoOptions;
  #entries = new WeakMap<PolicyMatch, WeakMap<ImageReference, Map<string, MemoEntry<V>>>>();
  #count = 0;
  #generation: number;

  constructor(options: VerdictMemoOptions) {
    this.#options = options;
    this.#generation = options.generation();
  }

  /** The generation to pass to {@linkcode set} for a verification starting now. */
  generation(): number {
    return this.#options.generation();
  }

  /** The remembered verdict's entry, or undefined. */
  get(
    reference: ImageReference,
    match: PolicyMatch,
    context: string,
  ): MemoEntry<V> | undefined {
    if (this.#options.generation() !== this.#generation) {
      this.#forget();
      return undefined;
    }
    const entry = this.#entries.get(match)?.get(reference)?.get(context);
    if (entry === undefined) return undefined;
    if (this.#options.now() >= entry.expiresAt) return undefined;
    if (entry.validUntil !== undefined && this.#options.validityNow() >= entry.validUntil) {
      return undefined;
    }
    return entry;
  }

  /**
   * Remembers an admitted verdict for `lifeMs` (0: not at all), if the source is still at
   * `generation`, the generation the verification started under.
   */
  set(
    reference: ImageReference,
    match: PolicyMatch,
    context: string,
    entry: { verdict: V; validUntil: number | undefined; lifeMs: number },
    generation: number,
  ): void {
    if (!entry.verdict.allowed || entry.lifeMs <= 0 || context.length > MAX_CONTEXT_LENGTH) return;
    const current = this.#options.generation();
    if (current !== this.#generation) {
      this.#forget();
    }
    if (generation !== current) return;
    if (this.#count >= this.#options.maxEntries) this.#forget();
    let byReference = this.#entries.get(match);
    if (byReference === undefined) this.#entries.set(match, byReference = new WeakMap());
    let byContext = byReference.get(reference);
    if (byContext === undefined) byReference.set(reference, byContext = new Map());
    if (!byContext.has(context)) this.#count++;
    const now = this.#options.now();
    const life = Math.min(entry.lifeMs, VERDICT_MEMO_LIFE_MS);
    byContext.set(context, {
      verdict: entry.verdict,
      expiresAt: now + life,
      renewAt: now + life / 2,
      validUntil: entry.validUntil,
      renewing: false,
    });
  }

  /** Forgets every entry (a new generation, or the bound reached). */
  #forget(): void {
    this.#entries = new WeakMap();
    this.#count = 0;
    this.#generation = this.#options.generation();
  }
}
