/**
 * Checks one image against the repository policy chosen for it, the way Portieris's `simple`
 * policies do (containers/image semantics), and returns a verdict:
 *
 * 1. A policy with no `simple` requirements admits the image without checks (and without
 *    pinning it). An enabled `trust` or `vulnerability` policy denies: toolkit does not
 *    implement Notary v1 or IBM Vulnerability Advisor, and never treats them as satisfied.
 * 2. A `reject` requirement denies, and `insecureAcceptAnything` alone under
 *    `mutateImage: false` admits (unpinned), both without contacting the registry: they need
 *    neither a digest nor a signature.
 * 3. The tag is resolved to the manifest digest through the registry client, with the
 *    workload's pull credentials (resolutions are cached for a short time, per credentials).
 *    A reference with a tag and a digest is taken by its digest, except when the policy was
 *    chosen for its tag (a pattern such as `repo:1`): then the tag is resolved too, and the
 *    image is denied unless the tag resolves to that digest.
 * 4. Signatures are read from `storeURL` when the policy sets one, else from the registry's
 *    signature extension when the registry advertises it, else from the registries.d lookaside
 *    (`selectSignatureStore` of lib/registry); when there is none of them, the image is denied
 *    with a reason that says so.
 * 5. Every `signedBy` requirement must be met by one signature that verifies with one of the
 *    keys of its Secret, for that digest, under its `signedIdentity` rule.
 * 6. Every `sigstoreSigned` requirement must be met by one cosign signature of that digest,
 *    read from the image's registry in either storage format (`openCosignSignatures` of
 *    lib/registry: the `.sig` tag, OCI referrers) and verified by lib/sigstore against the keys
 *    of its Secret or, keyless, the Fulcio CAs and identities of its trust root, with the log
 *    and timestamp evidence it asks for. No store needs to be configured for it, and nothing
 *    but the registry is contacted: trust roots come from the cluster.
 * 7. A requirement whose `multiArch` is not `index` is met, when the digest is a multi-platform
 *    index, by the signatures of the platform manifests it lists (`everyPlatform`), or by the
 *    index's or theirs (`either`): `platform_scope.ts` applies the rule around any kind's verify,
 *    each platform verified as an image by its digest, its verdict cached by that digest. The
 *    image is still pinned to the index; the verdict's notes say what admitted it.
 *
 * Verified verdicts are cached by digest, image reference, the exact key material (its digest,
 * revocations and expiry times included, see `keys.ts`; the PEM keys and trust roots of
 * `sigstore_material.ts`), the identities and log rules, and identity rules, with a TTL and a
 * size bound; a verdict is never kept beyond the expiry of a signature or key it relied on.
 * Failures are never cached. Concurrent checks of the same image share one verification.
 *
 * What the caches answer (a tag's digest, a verified verdict) needs no slot. Registry work
 * does: a check takes one slot of {@linkcode VerifyTask.slots} before its first tag resolution or
 * verification that no cache answers, and gives it back when it ends. The review's signal
 * reaches every wait: when it aborts, the check leaves the tag resolution and verification it
 * shares with other reviews (`shared_flight.ts`), which are aborted, requests and read
 * reservations with them, once no review waits for them; each also ends at `flightTimeoutMs`.
 * Renewing a remembered verdict fills the caches for reviews to come and nobody waits for it:
 * it runs only when a slot is free and no review waits for one.
 *
 * Each requirement is checked by its kind (`requirement_kinds.ts`, one module a kind: it checks
 * the requirement's fields, plans from the policy, verifies one image and describes its denials);
 * a requirement whose type no kind knows denies. The kinds that need signatures are verified in
 * the list's order, the first denial deciding.
 *
 * It is the one image verification of toolkit: the webhook, `toolkit image-security check` (through
 * the evaluator) and `toolkit image-security verify` (a policy of one `signedBy` requirement
 * holding the key file, with {@linkcode VerifierOptions.keys}) all run it.
 *
 * @module
 */
import { POOL_BYTES } from "./memory_budget.ts";
import {
  formatReference,
  type ImageReference,
  repositoryName,
  withDefaultTag,
} from "../image/mod.ts";
import type { Requirement } from "../policy/mod.ts";
import type { FetchFunction, RetryPolicy } from "../registry/mod.ts";
import type { KeyBounds } from "../signature/mod.ts";
import { MemoryPool, type MemoryPoolStats } from "../read_budget.ts";
import type { RegistriesD } from "../lookaside/mod.ts";
import { type CacheStats, TtlCache } from "./cache.ts";
import {
  DeadlineExceededError,
  PolicyConfigError,
  PolicySourceError,
  raceSignal,
  startDeadline,
} from "./errors.ts";
import { SharedFlights } from "./shared_flight.ts";
import { type KeySource, KeyStore } from "./keys.ts";
import { type SigstoreKeySource, SigstoreMaterialStore } from "./sigstore_material.ts";
import { AttestationKeyStore } from "./attestation_keys.ts";
import type { PolicySource } from "./source.ts";
import type { TrustExpiryObserver } from "./trust_expiry.ts";
import { VerdictMemo } from "./verdict_memo.ts";
import {
  type CacheBounds,
  DEFAULT_CACHE_MAX_BYTES,
  type ImageVerdict,
  type VerifyTask,
} from "./verification.ts";
import { IdentityRules } from "./identity_rules.ts";
import { planKinds, plansKey, verifyKinds } from "./kind_dispatch.ts";
import { KnownVerdicts, servedFromMemory } from "./known_verdicts.ts";
import { policySignatureStore } from "./policy_store.ts";
import { RegistryClients } from "./registry_clients.ts";
import { TagResolver } from "./tag_resolver.ts";
import { NoFreeSlotError, startCall, type VerifyCall } from "./verify_call.ts";
import { MAX_SIMPLE_SIGNATURE_BYTES, noSignatureStore } from "./kind_signed_by.ts";
import type { ImageToVerify, KindServices } from "./requirement_kind.ts";
import { kindOf } from "./requirement_kinds.ts";
import { PlatformScope } from "./platform_scope.ts";
import { CosignListings, readImageManifestShape } from "../registry/mod.ts";
import { TurnScheduler } from "../turns.ts";

export type { CacheBounds, ImageVerdict, VerifyTask } from "./verification.ts";
export { DEFAULT_CACHE_MAX_BYTES } from "./verification.ts";

/** Checks images against policies. */
export interface ImageVerifier {
  /**
   * Checks one image; resolves with a verdict (failures are denials). What the caches know is
   * answered without a slot; registry work waits for one from {@linkcode VerifyTask.slots}.
   * `signal` is the review's (its deadline, its client gone): when it aborts, the call rejects
   * with its reason at once, gives its slot back and leaves the work it shared with other
   * reviews, which is aborted when no review waits for it any more.
   */
  verify(task: VerifyTask, signal?: AbortSignal): Promise<ImageVerdict>;
  /**
   * The verdict `verify` would give now, when it is known without any work (an admitted verdict
   * remembered under the policy source's current generation, `verdict_memo.ts`); undefined
   * otherwise. Synchronous: a warm review waits for nothing.
   */
  known?(task: VerifyTask): ImageVerdict | undefined;
  /** Its caches (verdicts, digests, registry clients, tokens), for metrics. */
  caches?(): readonly CacheStats[];
  /** The pool of bytes its reads reserve from, for metrics. */
  readPool?(): MemoryPoolStats;
}

/** The most verdicts remembered by object (`verdict_memo.ts`): about 2 MB at most. */
const VERDICT_MEMO_ENTRIES = 4096;

/** Receives counts for metrics. */
export interface VerifierObserver {
  /** A verified verdict was found in the cache. */
  cacheHit?(): void;
  /** A signed image had to be verified. */
  cacheMiss?(): void;
  /** A registry (or signature store) request failed. */
  registryError?(error: unknown): void;
  /**
   * A verification ended in an error rather than a verdict of the policy (the image is denied,
   * failing closed): `registry` (a registry or signature store failed), `timeout` (the
   * verification ran past its time), `config` (a key Secret, trust root or policy that cannot be
   * used), `source` (the cluster could not be read), `capacity` (a renewal found no free slot).
   */
  verificationError?(kind: VerificationErrorKind): void;
  /** Key material was read for a verification: when it stops being valid (`trust_expiry.ts`). */
  trustRead?: TrustExpiryObserver;
}

/** What kind of failure ended a verification (see {@linkcode VerifierObserver}). */
export type VerificationErrorKind = "registry" | "timeout" | "config" | "source" | "capacity";

/** The kind of failure `error` is. */
export function verificationErrorKind(error: unknown): VerificationErrorKind {
  if (error instanceof PolicyConfigError) return "config";
  if (error instanceof PolicySourceError) return "source";
  if (error instanceof NoFreeSlotError) return "capacity";
  if (error instanceof DeadlineExceededError) return "timeout";
  return "registry";
}

/** How the verifier reaches registries and stores, and how it caches. */
export interface VerifierOptions {
  /** Secrets (keys, pull and store credentials). */
  readonly source: PolicySource;
  /**
   * The namespace of key Secrets of a ClusterImagePolicy requirement without
   * `keySecretNamespace`: the controller's own namespace, which workload owners cannot write.
   */
  readonly clusterKeyNamespace: string;
  /** Registries reached over plain HTTP (`host[:port]`). */
  readonly insecureRegistries?: readonly string[];
  /** The fetch for registries and HTTP stores (one with custom CAs, in tests a loopback one). */
  readonly fetch?: FetchFunction;
  /** Extra trusted CA certificates (PEM) for registries. */
  readonly caCerts?: readonly string[];
  /**
   * Where the keys of a `signedBy` requirement come from, by `keySecret` and its namespace.
   * @default the key Secrets of `source`
   */
  readonly keys?: KeySource;
  /**
   * Where the PEM keys of a keyed `sigstoreSigned` requirement come from.
   * @default the key Secrets of `source`
   */
  readonly sigstoreKeys?: SigstoreKeySource;
  /**
   * What the keys of key Secrets may be (the largest RSA modulus, and the flag that raises it):
   * a key outside them makes its requirement unusable. @default 4096-bit RSA at most
   */
  readonly keyBounds?: KeyBounds;
  /**
   * Adds to allowed verdicts that were not cached where the signatures were read and the
   * signatures accepted (`image-security verify` prints them).
   */
  readonly explain?: boolean;
  /** registries.d configuration: lookaside stores by registry scope. */
  readonly registriesD?: RegistriesD | undefined;
  /** The time one registry request may take. @default 5000 */
  readonly requestTimeoutMs?: number;
  /** Registry retries. @default 2 retries from 100 ms */
  readonly retry?: Partial<RetryPolicy>;
  /** The most time one verification may take (shared by the reviews that wait on it). */
  readonly flightTimeoutMs: number;
  /** Verified verdicts: lifetime and bound. */
  readonly verdictCache: CacheBounds;
  /** Tag → digest resolutions: lifetime and bound. */
  readonly digestCache: CacheBounds;
  /** The clock in milliseconds (cache expiry). @default `Date.now` */
  readonly now?: () => number;
  /** The time signatures and keys must be valid at. @default `() => new Date(now())` */
  readonly clock?: () => Date;
  /** Counts for metrics. */
  readonly observer?: VerifierObserver;
  /**
   * Where work cut into slices waits for its turn (one signature's checks, an identity
   * expression's steps): the process's one scheduler, shared with the evaluator, so that slices
   * of all reviews take turns with I/O. @default its own
   */
  readonly turns?: TurnScheduler;
  /**
   * What one image's registry and store answers may hold, and the process-wide pool each
   * verification and tag resolution reserves that much from before it reads.
   * @default {@linkcode DEFAULT_IMAGE_READ_BYTES} from a pool of {@linkcode DEFAULT_READ_POOL_BYTES}
   */
  readonly memory?: { readonly pool: MemoryPool; readonly imageReadBytes: number };
}

/**
 * The most one image's verification (or tag resolution) reads from registries, token services
 * and signature stores, in all: manifests, signature lists, each signature, error answers,
 * retries. A store of many large signatures is read one at a time and given up at this bound.
 */
export const DEFAULT_IMAGE_READ_BYTES = 1024 * 1024;

/**
 * The process-wide pool of reads in flight: the webhook's 64 verifications at
 * {@linkcode DEFAULT_IMAGE_READ_BYTES} each fit, and the rest of the pool takes work that
 * outlives the review that started it until its own deadline.
 */
export const DEFAULT_READ_POOL_BYTES = POOL_BYTES.registryReads;

/**
 * The largest signature the verifier reads from a store or accepts (containers/image allows
 * 4 MiB; a simple signature is a few hundred bytes, so a quarter of a MiB leaves room for any
 * real one while a verification's memory stays small).
 */
export const MAX_ADMITTED_SIGNATURE_BYTES = MAX_SIMPLE_SIGNATURE_BYTES;

/** The prefix of every denial reason. */
export const DENIAL_PREFIX = "policy denied the request: ";
export { noSignatureStore };

/** A verified verdict kept in the cache, and until when its signatures and keys are valid. */
interface CachedVerdict {
  readonly signers: readonly string[];
  /** What the answer tells besides (an index admitted by its platforms). */
  readonly notes?: readonly string[] | undefined;
  /** Milliseconds since the epoch on the validity clock; absent when nothing expires. */
  readonly validUntil?: number | undefined;
}

/** A verdict, and until when the signatures and keys it relied on are valid. */
interface Verified {
  readonly verdict: ImageVerdict;
  readonly validUntil?: number | undefined;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function deny(reason: string, cause: "policy" | "error", digest?: string): ImageVerdict {
  return { allowed: false, reason, cause, ...(digest ? { digest } : {}) };
}

/**
 * Creates the verifier: the parts (`registry_clients.ts`, `tag_resolver.ts`,
 * `known_verdicts.ts`, `kind_dispatch.ts` over the kinds of `requirement_kinds.ts`,
 * `policy_store.ts`, `verify_call.ts`) composed, with the verdict cache and the shared
 * verifications between them.
 */
export function createImageVerifier(options: VerifierOptions): ImageVerifier {
  const now = options.now ?? Date.now;
  const clock = options.clock ?? (() => new Date(now()));
  const onRead = options.observer?.trustRead;
  const keyStore = new KeyStore(options.source, options.keyBounds, onRead);
  const sigstoreMaterial = new SigstoreMaterialStore(options.source, options.keyBounds, onRead);
  const attestationKeys = new AttestationKeyStore(options.source, options.keyBounds);
  const turns = options.turns ?? new TurnScheduler();
  const services: KindServices = {
    keys: options.keys ?? keyStore,
    sigstoreKeys: options.sigstoreKeys ?? sigstoreMaterial,
    // Keys given apart from the source (the CLI, tests) stand for the attestation Secrets too.
    ...(options.keys || options.sigstoreKeys ? {} : { attestationKeys }),
    sigstoreMaterial,
    identityRules: new IdentityRules(turns),
    turns,
    clock,
  };
  const verdicts = new TtlCache<string, CachedVerdict>({
    name: "verdict",
    maxBytes: DEFAULT_CACHE_MAX_BYTES,
    ...options.verdictCache,
    sizeOf: (key, value) =>
      key.length + 48 * value.signers.length + 64 +
      (value.notes ?? []).reduce((n, note) => n + note.length, 0),
    now,
  });
  const verifying = new SharedFlights<string, Verified>();
  const observer = options.observer ?? {};
  const memory = options.memory ??
    { pool: new MemoryPool(DEFAULT_READ_POOL_BYTES), imageReadBytes: DEFAULT_IMAGE_READ_BYTES };
  const clients = new RegistryClients({ ...options, now });
  const tags = new TagResolver({
    clientFor: (credentials) => clients.clientFor(credentials),
    digestCache: options.digestCache,
    flightTimeoutMs: options.flightTimeoutMs,
    memory,
    now,
  });
  // Admitted verdicts by the review's own objects, while the source stays as it was. Keys and
  // trust roots given apart from the source (tests, the CLI) change outside its generation: no
  // memo then.
  const sourceGeneration = options.source.generation?.bind(options.source);
  const knownVerdicts = new KnownVerdicts({
    memo: sourceGeneration && !options.keys && !options.sigstoreKeys
      ? new VerdictMemo<ImageVerdict>({
        maxEntries: VERDICT_MEMO_ENTRIES,
        now,
        validityNow: () => clock().getTime(),
        generation: sourceGeneration,
      })
      : undefined,
    now,
    verdictCache: options.verdictCache,
    digestCache: options.digestCache,
    flightTimeoutMs: options.flightTimeoutMs,
    renew: (task, signal) => check(task, signal, true),
    onHit: () => observer.cacheHit?.(),
  });

  /** Where a policy's Secrets and ConfigMaps are by default (its own namespace, or ours). */
  function policyNamespace(task: VerifyTask): string {
    if (task.match.kind === "ImagePolicy") return task.match.namespace ?? task.namespace;
    return options.clusterKeyNamespace;
  }

  async function verifySigned(
    task: VerifyTask,
    requirements: readonly Requirement[],
    call: VerifyCall,
  ): Promise<Verified> {
    // The review's signal bounds every wait. Registry work is shared by the reviews that wait
    // for it, runs at most flightTimeoutMs, and is aborted when none of them waits any more.
    // What the requirements trust first (from the cluster, cached): a key Secret or trust root
    // that cannot be used is reported as such, whatever the registry answers.
    const context = { match: task.match, policyNamespace: policyNamespace(task), services };
    const groups = await raceSignal(planKinds(requirements, context), call.signal);
    const credentials = await raceSignal(task.credentials(), call.signal);
    const resolved = tags.digestOf(task.reference, credentials, call);
    const digest = typeof resolved === "string" ? resolved : await resolved;
    if (groups.length === 0) return { verdict: { allowed: true, digest } }; // nothing to verify
    const identity = formatReference(withDefaultTag(task.reference));
    const key = `${digest}|${identity}|${plansKey(groups)}`;
    const fromCache = () => {
      const cached = verdicts.get(key);
      if (cached === undefined || (cached.validUntil ?? Infinity) <= clock().getTime()) {
        return undefined;
      }
      return {
        verdict: servedFromMemory(digest, cached.signers, cached.notes),
        validUntil: cached.validUntil,
      };
    };
    // A verdict known already never waits for a slot; one found while waiting is used too.
    let known = fromCache();
    if (known === undefined) {
      await call.slot();
      known = fromCache();
    }
    if (known !== undefined) {
      observer.cacheHit?.();
      return known;
    }
    observer.cacheMiss?.();
    return await verifying.join(key, async (abandoned) => {
      using deadline = startDeadline(options.flightTimeoutMs);
      const signal = AbortSignal.any([abandoned, deadline.signal]);
      using budget = await memory.pool.reserve(memory.imageReadBytes, signal);
      const client = clients.clientFor(credentials);
      // The referrers lists of this verification's images, read once for every kind.
      const listings = new CosignListings();
      const imageAt = (digest: string): ImageToVerify => ({
        reference: task.reference,
        digest,
        client,
        store: () =>
          policySignatureStore(
            task.match.policy,
            task.namespace,
            client,
            { ...task.reference, digest },
            { signal, budget },
            options,
          ),
        signal,
        budget,
        listings,
      });
      const image = imageAt(digest);
      const at = (digest: string) => ({
        domain: task.reference.domain,
        path: task.reference.path,
        digest,
      });
      // A requirement with multiArch other than index reads the manifest (once) and verifies
      // the platforms it lists, each as an image, their verdicts cached by platform digest.
      const scope = new PlatformScope({
        shape: () => readImageManifestShape(client, at(digest), { signal, budget }),
        verifyPlatform: async (kind, plans, manifest) => {
          const platformKey = `platform|${manifest.digest}|${identity}|${
            plansKey([{ kind, plans }])
          }`;
          const cached = verdicts.get(platformKey);
          if (cached !== undefined && (cached.validUntil ?? Infinity) > clock().getTime()) {
            return { allowed: true, signers: cached.signers, validUntil: cached.validUntil };
          }
          const [, outcome] = await Promise.all([
            client.headManifest(at(manifest.digest), { signal, budget }),
            kind.verify(plans, imageAt(manifest.digest), services),
          ]);
          if (outcome.allowed) {
            const left = outcome.validUntil === undefined
              ? Infinity
              : outcome.validUntil - clock().getTime();
            verdicts.set(
              platformKey,
              { signers: outcome.signers, validUntil: outcome.validUntil },
              left,
            );
          }
          return outcome;
        },
        extraSlot: () => task.slots?.tryAcquire(),
      });
      const outcome = await raceSignal(verifyKinds(groups, image, services, scope), signal);
      if (!outcome.allowed) return { verdict: deny(outcome.reason, outcome.cause, digest) };
      const { signers, validUntil, notes } = outcome;
      // Never beyond the expiry of a signature or key the verdict relied on.
      const remaining = validUntil === undefined ? Infinity : validUntil - clock().getTime();
      verdicts.set(key, { signers, validUntil, ...(notes ? { notes } : {}) }, remaining);
      const explained = options.explain ? outcome.explained : {};
      return {
        verdict: { allowed: true, digest, signers, ...(notes ? { notes } : {}), ...explained },
        validUntil,
      };
    }, call.signal);
  }

  /**
   * A reference with a tag and a digest whose policy was chosen for its tag means both: the tag
   * must resolve to the digest, or the policy of one image would admit another. Undefined when
   * they agree or the tag did not matter.
   */
  async function tagMismatch(
    task: VerifyTask,
    call: VerifyCall,
  ): Promise<ImageVerdict | undefined> {
    const ref = task.reference;
    if (!task.match.matchedByTag || ref.tag === undefined || ref.digest === undefined) {
      return undefined;
    }
    const credentials = await raceSignal(task.credentials(), call.signal);
    const resolved = await tags.resolveTag(ref, credentials, call);
    if (resolved === ref.digest) return undefined;
    return deny(
      `The tag "${ref.tag}" of "${
        repositoryName(ref)
      }" resolves to ${resolved}, not to the digest ${ref.digest} of the reference (pattern "${task.match.pattern}" applies to the tag)`,
      "policy",
      ref.digest,
    );
  }

  /**
   * `verify`; in the `background` (a renewal nobody waits for) the slot is taken only when one
   * is free and no review waits for one.
   */
  async function check(
    task: VerifyTask,
    signal: AbortSignal | undefined,
    background: boolean,
  ): Promise<ImageVerdict> {
    using call = startCall(task.slots, signal, background);
    return await checkImage(task, signal, call);
  }

  async function checkImage(
    task: VerifyTask,
    signal: AbortSignal | undefined,
    call: VerifyCall,
  ): Promise<ImageVerdict> {
    const policy = task.match.policy;
    const image = formatReference(task.reference);
    if (policy.trust?.enabled) {
      return deny(
        `${task.match.source} requires Docker Content Trust (trust.enabled), which toolkit does not support: use simple signing`,
        "policy",
      );
    }
    if (policy.vulnerability?.ICCRVA?.enabled) {
      return deny(
        `${task.match.source} requires IBM Vulnerability Advisor (vulnerability.ICCRVA.enabled), which toolkit does not support`,
        "policy",
      );
    }
    const requirements = policy.simple?.requirements ?? [];
    // A kind that denies every image (reject, a type no module knows) decides at once.
    const denying = requirements.map(kindOf).find((kind) => kind.needs === "deny");
    if (denying !== undefined) return deny(denying.denial(`docker://${image}`), "policy");
    try {
      if (task.match.matchedByTag) {
        const mismatch = await tagMismatch(task, call);
        if (mismatch !== undefined) return mismatch;
      }
      if (requirements.length === 0) return { allowed: true };
      // insecureAcceptAnything alone needs a digest only to pin the image: without pinning,
      // nothing needs the registry (a registry the webhook cannot reach admits what it allows).
      if (
        policy.mutateImage === false &&
        requirements.every((r) => kindOf(r).needs !== "signature")
      ) {
        return { allowed: true };
      }
      const generation = knownVerdicts.generation();
      const { verdict, validUntil } = await verifySigned(task, requirements, call);
      knownVerdicts.remember(task, verdict, validUntil, generation);
      return verdict;
    } catch (error) {
      if (signal?.aborted && error === signal.reason) throw error;
      const kind = verificationErrorKind(error);
      if (kind === "registry" || kind === "timeout") observer.registryError?.(error);
      observer.verificationError?.(kind);
      return deny(errorMessage(error), "error");
    }
  }

  return {
    verify: (task, signal) => check(task, signal, false),
    known: (task) => knownVerdicts.known(task),
    caches: () => [
      verdicts.stats(),
      tags.stats(),
      ...clients.stats(),
      keyStore.stats(),
      ...sigstoreMaterial.stats(),
      attestationKeys.stats(),
    ],
    readPool: () => memory.pool.stats(),
  };
}

/** `docker.io/library/nginx@sha256:…`: the image pinned to a digest. */
export function pinnedReference(reference: ImageReference, digest: string): string {
  return `${repositoryName(reference)}@${digest}`;
}
