/**
 * What the verifier knows without any work: admitted verdicts remembered by the review's own
 * objects while the policy source stays at its generation (`verdict_memo.ts`), answered
 * synchronously, and renewed ahead of their expiry after the review's answer has gone.
 *
 * A renewal fills the caches for reviews to come and nobody waits for it: it runs after the
 * current turn's I/O, at most {@linkcode MAX_MEMO_RENEWALS} at once, each at most
 * `flightTimeoutMs`; one that fails or denies leaves the entry to expire, and the next review
 * verifies in full.
 *
 * @module
 */
import { startDeadline } from "./errors.ts";
import type { VerdictMemo } from "./verdict_memo.ts";
import type { CacheBounds, ImageVerdict, VerifyTask } from "./verification.ts";

/** The most remembered verdicts renewed at once (the others expire and are verified in full). */
export const MAX_MEMO_RENEWALS = 8;

/** An admitted verdict as the verdict cache and the memo serve it again. */
export function servedFromMemory(
  digest: string | undefined,
  signers: readonly string[],
  notes?: readonly string[],
): ImageVerdict {
  return {
    allowed: true,
    ...(digest === undefined ? {} : { digest }),
    signers,
    ...(notes === undefined || notes.length === 0 ? {} : { notes }),
    cached: true,
  };
}

/** Where the known verdicts come from, and how they are renewed. */
export interface KnownVerdictsOptions {
  /** The memo; undefined: nothing is remembered (keys given apart from the source). */
  readonly memo: VerdictMemo<ImageVerdict> | undefined;
  /** The clock of lifetimes, in ms. */
  readonly now: () => number;
  /** Verified verdicts and tag resolutions: a remembered verdict lives no longer than they. */
  readonly verdictCache: CacheBounds;
  readonly digestCache: CacheBounds;
  /** The most time a renewal may take. */
  readonly flightTimeoutMs: number;
  /** Verifies `task` again in the background (it takes a slot only when one is free). */
  readonly renew: (task: VerifyTask, signal: AbortSignal) => Promise<unknown>;
  /** A remembered verdict was answered. */
  readonly onHit?: () => void;
}

/** The verdicts known without work. */
export class KnownVerdicts {
  readonly #options: KnownVerdictsOptions;
  /** Renewals in flight. */
  #renewals = 0;

  constructor(options: KnownVerdictsOptions) {
    this.#options = options;
  }

  /** The verdict remembered for `task`, or undefined; a stale one is renewed for the next. */
  known(task: VerifyTask): ImageVerdict | undefined {
    const { memo } = this.#options;
    if (memo === undefined || task.credentialsKey === undefined) return undefined;
    const entry = memo.get(task.reference, task.match, task.credentialsKey);
    if (entry === undefined) return undefined;
    this.#options.onHit?.();
    if (
      !entry.renewing && this.#renewals < MAX_MEMO_RENEWALS && this.#options.now() >= entry.renewAt
    ) {
      // Verified again after this review's answer has gone (a timer runs after the current
      // turn's I/O), so that the next review of the image finds a fresh entry.
      entry.renewing = true;
      this.#renewals++;
      setTimeout(() => {
        const deadline = startDeadline(this.#options.flightTimeoutMs);
        this.#options.renew(task, deadline.signal).catch(() => {}).finally(() => {
          deadline.clear();
          this.#renewals--;
        });
      }, 0);
    }
    return entry.verdict;
  }

  /** The generation to pass to {@linkcode remember} for a verification starting now. */
  generation(): number | undefined {
    return this.#options.memo?.generation();
  }

  /** Remembers an admitted verdict of `task`, verified under `generation`. */
  remember(
    task: VerifyTask,
    verdict: ImageVerdict,
    validUntil: number | undefined,
    generation: number | undefined,
  ): void {
    const { memo } = this.#options;
    if (
      !verdict.allowed || memo === undefined || generation === undefined ||
      task.credentialsKey === undefined
    ) {
      return;
    }
    memo.set(task.reference, task.match, task.credentialsKey, {
      verdict: servedFromMemory(verdict.digest, verdict.signers ?? [], verdict.notes),
      validUntil,
      lifeMs: this.#memoLife(task),
    }, generation);
  }

  /** How long a verdict of `task` may be remembered: no longer than the caches it came from. */
  #memoLife(task: VerifyTask): number {
    // A cache that is off (no lifetime or no entries) keeps nothing here either.
    const life = (bounds: CacheBounds) => bounds.maxEntries > 0 ? bounds.ttlMs : 0;
    const verdictLife = life(this.#options.verdictCache);
    // A digest resolved from the tag (or a tag that chose the policy) is only as fresh as the
    // digest cache keeps it.
    const tagged = task.reference.digest === undefined || task.match.matchedByTag;
    return tagged ? Math.min(verdictLife, life(this.#options.digestCache)) : verdictLife;
  }
}
