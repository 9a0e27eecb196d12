/**
 * The types the verifier's parts share: one image to check, its verdict, and the bounds of a
 * cache. `verifier.ts` exports them.
 *
 * @module
 */
import { CACHE_BYTES } from "./memory_budget.ts";
import type { ImageReference } from "../image/mod.ts";
import type { PolicyMatch } from "../policy/mod.ts";
import type { VerifiedSignature } from "../signature/mod.ts";
import type { VerifiedCosignSignature } from "../sigstore/mod.ts";
import type { PullCredentials } from "./credentials.ts";
import type { SlotSource } from "./fair_slots.ts";

/** The outcome of checking one image. */
export type ImageVerdict =
  | {
    readonly allowed: true;
    /** The verified digest, when the image was resolved (then it may be pinned). */
    readonly digest?: string | undefined;
    /** Fingerprints of the keys whose signatures were accepted. */
    readonly signers?: readonly string[];
    /**
     * What the answer tells besides, as warnings: an index admitted by the signatures of its
     * platforms (`platform_scope.ts`).
     */
    readonly notes?: readonly string[];
    /** True when the verdict came from the cache. */
    readonly cached?: boolean;
    /** With `VerifierOptions.explain`: where the signatures were read. */
    readonly store?: string;
    /** With `VerifierOptions.explain`: the accepted signature of each requirement. */
    readonly accepted?: readonly VerifiedSignature[];
    /** With `VerifierOptions.explain`: the accepted cosign signature of each. */
    readonly acceptedCosign?: readonly VerifiedCosignSignature[];
  }
  | {
    readonly allowed: false;
    /** Why, without the `policy denied the request: ` prefix. */
    readonly reason: string;
    /** `policy`: the image does not satisfy the policy; `error`: it could not be checked. */
    readonly cause: "policy" | "error";
    /** The digest, when it was resolved. */
    readonly digest?: string | undefined;
  };

/** One image to check. */
export interface VerifyTask {
  /** The image, parsed and normalised. */
  readonly reference: ImageReference;
  /** The policy chosen for it. */
  readonly match: PolicyMatch;
  /** The workload's namespace. */
  readonly namespace: string;
  /** The workload's pull credentials, read when the registry is first needed. */
  readonly credentials: () => Promise<PullCredentials>;
  /**
   * Names what `credentials` reads (the namespace, ServiceAccount and pull Secrets): a verdict
   * is remembered for tasks that have one (see `ImageVerifier.known`).
   */
  readonly credentialsKey?: string;
  /**
   * Where the verification takes its slot (`fair_slots.ts`), once, just before its first
   * registry work (a tag resolution or a signature verification that no cache answers), and
   * gives it back when the call ends. None: no bound (the CLI's one image).
   */
  readonly slots?: SlotSource;
}

/** A cache's lifetime and bounds (by count, and by estimated bytes). */
export interface CacheBounds {
  readonly ttlMs: number;
  readonly maxEntries: number;
  /** @default {@linkcode DEFAULT_CACHE_MAX_BYTES} */
  readonly maxBytes?: number;
}

/** The default byte bound of the verdict cache (`memory_budget.ts`). */
export const DEFAULT_CACHE_MAX_BYTES = CACHE_BYTES.verdict;
