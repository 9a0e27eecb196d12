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
import {
  formatReference,
  type ImageReference,
  repositoryName,
  withDefaultTag,
} from "../image/mod.ts";
import type { PolicyMatch, Requirement } from "../policy/mod.ts";
import {
  createRegistryClient,
  createTokenCache,
  type FetchFunction,
  type RegistryClient,
  type RetryPolicy,
  selectSignatureStore,
  type SignatureStoreChoice,
  type TokenCache,
} from "../registry/mod.ts";
import { type VerifiedCosignSignature } from "../sigstore/mod.ts";
import { type SigstoreKeySource, SigstoreMaterialStore } from "./sigstore_material.ts";
import { type KeyBounds, type VerifiedSignature } from "../signature/mod.ts";
import { MemoryPool, type MemoryPoolStats, type ReadBudget } from "../read_budget.ts";
import type { RegistriesD } from "../lookaside/mod.ts";
import { type CacheStats, TtlCache } from "./cache.ts";
import type { PullCredentials } from "./credentials.ts";
import { PolicyConfigError, PolicySourceError, raceSignal, startDeadline } from "./errors.ts";
import type { Slot, SlotSource } from "./fair_slots.ts";
import { SharedFlights } from "./shared_flight.ts";
import { type KeySource, KeyStore } from "./keys.ts";
import { type PolicySource, secretText } from "./source.ts";
import { VerdictMemo } from "./verdict_memo.ts";
import { IdentityRules } from "./identity_rules.ts";
import { MAX_SIMPLE_SIGNATURE_BYTES, noSignatureStore } from "./kind_signed_by.ts";
import type {
  AnyRequirementKind,
  ImageToVerify,
  KindServices,
  PlanContext,
} from "./requirement_kind.ts";
import { KIND_ORDER, kindOf } from "./requirement_kinds.ts";
import { basicAuthorization } from "../base64.ts";
import { ToolkitError } from "../errors.ts";
import { TurnScheduler } from "../turns.ts";

/** The outcome of checking one image. */
export type ImageVerdict =
  | {
    readonly allowed: true;
    /** The verified digest, when the image was resolved (then it may be pinned). */
    readonly digest?: string | undefined;
    /** Fingerprints of the keys whose signatures were accepted. */
    readonly signers?: readonly string[];
    /** True when the verdict came from the cache. */
    readonly cached?: boolean;
    /** With {@linkcode VerifierOptions.explain}: where the signatures were read. */
    readonly store?: string;
    /** With {@linkcode VerifierOptions.explain}: the accepted signature of each requirement. */
    readonly accepted?: readonly VerifiedSignature[];
    /** With {@linkcode VerifierOptions.explain}: the accepted cosign signature of each. */
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
   * is remembered for tasks that have one (see {@linkcode ImageVerifier.known}).
   */
  readonly credentialsKey?: string;
  /**
   * Where the verification takes its slot (`fair_slots.ts`), once, just before its first
   * registry work (a tag resolution or a signature verification that no cache answers), and
   * gives it back when the call ends. None: no bound (the CLI's one image).
   */
  readonly slots?: SlotSource;
}

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

/** A cache's lifetime and bounds (by count, and by estimated bytes). */
export interface CacheBounds {
  readonly ttlMs: number;
  readonly maxEntries: number;
  /** @default {@linkcode DEFAULT_CACHE_MAX_BYTES} */
  readonly maxBytes?: number;
}

/** The default byte bound of the verdict and digest caches. */
export const DEFAULT_CACHE_MAX_BYTES = 32 * 1024 * 1024;
/** The most verdicts remembered by object (`verdict_memo.ts`): about 2 MB at most. */
const VERDICT_MEMO_ENTRIES = 4096;
/** The most remembered verdicts renewed at once (the others expire and are verified in full). */
const MAX_MEMO_RENEWALS = 8;

/** Receives counts for metrics. */
export interface VerifierObserver {
  /** A verified verdict was found in the cache. */
  cacheHit?(): void;
  /** A signed image had to be verified. */
  cacheMiss?(): void;
  /** A registry (or signature store) request failed. */
  registryError?(error: unknown): void;
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
export const DEFAULT_READ_POOL_BYTES = 96 * 1024 * 1024;

/**
 * The largest signature the verifier reads from a store or accepts (containers/image allows
 * 4 MiB; a simple signature is a few hundred bytes, so a quarter of a MiB leaves room for any
 * real one while a verification's memory stays small).
 */
export const MAX_ADMITTED_SIGNATURE_BYTES = MAX_SIMPLE_SIGNATURE_BYTES;

/** The prefix of every denial reason. */
export const DENIAL_PREFIX = "policy denied the request: ";
export { noSignatureStore };

/** One call of `verify`: the review's signal, and the slot it takes before registry work. */
interface Call {
  readonly signal: AbortSignal | undefined;
  /** Takes the call's slot (once; nothing when the task has no slots). */
  slot(): Promise<void>;
}

/** A renewal found no free slot (reviews wait for them): it is skipped. */
class NoFreeSlotError extends ToolkitError {
  constructor() {
    super("Cannot renew the verdict now: every verification slot is needed by reviews");
    this.name = "NoFreeSlotError";
  }
}

/** A verified verdict kept in the cache, and until when its signatures and keys are valid. */
interface CachedVerdict {
  readonly signers: readonly string[];
  /** Milliseconds since the epoch on the validity clock; absent when nothing expires. */
  readonly validUntil?: number | undefined;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An admitted verdict as the verdict cache and the memo serve it again. */
function servedFromMemory(digest: string | undefined, signers: readonly string[]): ImageVerdict {
  return { allowed: true, ...(digest === undefined ? {} : { digest }), signers, cached: true };
}

function deny(reason: string, cause: "policy" | "error", digest?: string): ImageVerdict {
  return { allowed: false, reason, cause, ...(digest ? { digest } : {}) };
}

/** Creates the verifier. */
export function createImageVerifier(options: VerifierOptions): ImageVerifier {
  const now = options.now ?? Date.now;
  const clock = options.clock ?? (() => new Date(now()));
  const keyStore = new KeyStore(options.source, options.keyBounds);
  const keySource: KeySource = options.keys ?? keyStore;
  const sigstoreMaterial = new SigstoreMaterialStore(options.source, options.keyBounds);
  const turns = options.turns ?? new TurnScheduler();
  const sigstoreKeys: SigstoreKeySource = options.sigstoreKeys ?? sigstoreMaterial;
  const verdicts = new TtlCache<string, CachedVerdict>({
    name: "verdict",
    maxBytes: DEFAULT_CACHE_MAX_BYTES,
    ...options.verdictCache,
    sizeOf: (key, value) => key.length + 48 * value.signers.length + 64,
    now,
  });
  const digests = new TtlCache<string, string>({
    name: "digest",
    maxBytes: DEFAULT_CACHE_MAX_BYTES,
    ...options.digestCache,
    sizeOf: (key, digest) => key.length + digest.length + 64,
    now,
  });
  // Admitted verdicts by the review's own objects, while the source stays as it was. Keys and
  // trust roots given apart from the source (tests, the CLI) change outside its generation: no
  // memo then.
  const sourceGeneration = options.source.generation?.bind(options.source);
  const memo = sourceGeneration && !options.keys && !options.sigstoreKeys
    ? new VerdictMemo<ImageVerdict>({
      maxEntries: VERDICT_MEMO_ENTRIES,
      now,
      validityNow: () => clock().getTime(),
      generation: sourceGeneration,
    })
    : undefined;
  // A client holds its own bounded maps (pings, hosts); 64 of them at most.
  const clients = new TtlCache<string, RegistryClient>({
    name: "registry-client",
    ttlMs: 10 * 60_000,
    maxEntries: 64,
    now,
  });
  const tokens: TokenCache = createTokenCache(now);
  const resolving = new SharedFlights<string, string>();
  const verifying = new SharedFlights<
    string,
    { verdict: ImageVerdict; validUntil?: number | undefined }
  >();
  const services: KindServices = {
    keys: keySource,
    sigstoreKeys,
    sigstoreMaterial,
    identityRules: new IdentityRules(turns),
    turns,
    clock,
  };
  const observer = options.observer ?? {};
  const memory = options.memory ??
    { pool: new MemoryPool(DEFAULT_READ_POOL_BYTES), imageReadBytes: DEFAULT_IMAGE_READ_BYTES };

  function clientFor(credentials: PullCredentials): RegistryClient {
    let client = clients.get(credentials.id);
    if (client === undefined) {
      client = createRegistryClient({
        credentials: credentials.store,
        insecureRegistries: options.insecureRegistries ?? [],
        tokenCache: tokens,
        timeoutMs: options.requestTimeoutMs ?? 5000,
        retry: { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 1000, ...options.retry },
        now,
        ...(options.caCerts?.length ? { caCerts: options.caCerts } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
      clients.set(credentials.id, client);
    }
    return client;
  }

  /** Where a policy's Secrets and ConfigMaps are by default (its own namespace, or ours). */
  function policyNamespace(task: VerifyTask): string {
    if (task.match.kind === "ImagePolicy") return task.match.namespace ?? task.namespace;
    return options.clusterKeyNamespace;
  }

  /**
   * The plans of the signature requirements, by kind in order of verification (kinds without
   * such requirements left out): each requirement's fields checked, its keys and trust roots read.
   */
  async function planKinds(
    task: VerifyTask,
    requirements: readonly Requirement[],
  ): Promise<{ kind: AnyRequirementKind; plans: unknown[] }[]> {
    const context: PlanContext = {
      match: task.match,
      policyNamespace: policyNamespace(task),
      services,
    };
    const groups = KIND_ORDER.filter((kind) => kind.needs === "signature").map((kind) => ({
      kind,
      requirements: requirements.filter((r) => kindOf(r) === kind),
    })).filter((group) => group.requirements.length > 0);
    return await Promise.all(groups.map(async ({ kind, requirements }) => ({
      kind,
      plans: await Promise.all(requirements.map((r) => kind.plan(r, context))),
    })));
  }

  /**
   * The digest of the image: the reference's own, else its tag resolved. A digest known already
   * is returned as it is, not as a promise: a warm review waits for nothing it does not need.
   */
  function resolveDigest(
    task: VerifyTask,
    credentials: PullCredentials,
    call: Call,
  ): string | Promise<string> {
    const ref = task.reference;
    if (ref.digest !== undefined) return ref.digest;
    return resolveTag(ref, credentials, call);
  }

  /**
   * Resolves the tag (`latest` when none) of a reference without a digest, through the cache
   * (a cached digest is returned as it is, without a slot). Else the call takes its slot and
   * joins the resolution of the tag shared by the reviews that wait for it.
   */
  function resolveTag(
    tagged: ImageReference,
    credentials: PullCredentials,
    call: Call,
  ): string | Promise<string> {
    const ref = withDefaultTag({ ...tagged, digest: undefined });
    const text = formatReference(ref);
    const key = `${credentials.id}|${text}`;
    const cached = digests.get(key);
    if (cached !== undefined) return cached;
    return (async () => {
      await call.slot();
      // Resolved by another review while this one waited for its slot.
      const meanwhile = digests.get(key);
      if (meanwhile !== undefined) return meanwhile;
      return await resolving.join(key, async (abandoned) => {
        using deadline = startDeadline(options.flightTimeoutMs);
        const signal = AbortSignal.any([abandoned, deadline.signal]);
        using budget = await memory.pool.reserve(memory.imageReadBytes, signal);
        const digest = await clientFor(credentials).resolveDigest(ref, { signal, budget });
        digests.set(key, digest);
        return digest;
      }, call.signal);
    })();
  }

  /** The policy's `storeURL`, with Basic auth from its `storeSecret`. */
  async function storeURL(task: VerifyTask) {
    const simple = task.match.policy.simple;
    if (!simple?.storeURL) return undefined;
    let fetchFn: typeof fetch | undefined = options.fetch as typeof fetch | undefined;
    if (simple.storeSecret) {
      const secret = await options.source.secret(task.namespace, simple.storeSecret);
      const username = secret && secretText(secret, "username");
      const password = secret && secretText(secret, "password");
      if (username === undefined || password === undefined) {
        throw new PolicyConfigError(
          `Cannot use store Secret "${task.namespace}/${simple.storeSecret}": ${
            secret ? 'it needs "username" and "password" entries' : "it does not exist"
          }`,
        );
      }
      const base = fetchFn ?? fetch;
      const authorization = basicAuthorization(username, password);
      fetchFn = (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set("authorization", authorization);
        return base(input, { ...init, headers });
      };
    }
    try {
      return { url: new URL(simple.storeURL), fetch: fetchFn };
    } catch (error) {
      throw new PolicyConfigError(
        `Cannot use storeURL "${simple.storeURL}": not a URL`,
        { cause: error },
      );
    }
  }

  async function storeFor(
    task: VerifyTask,
    credentials: PullCredentials,
    digestRef: ImageReference,
    signal: AbortSignal,
    budget: ReadBudget,
  ): Promise<SignatureStoreChoice | undefined> {
    return await selectSignatureStore({
      client: clientFor(credentials),
      reference: digestRef,
      mode: "read",
      storeURL: await storeURL(task),
      registriesD: options.registriesD,
      fetch: options.fetch as typeof fetch | undefined,
      timeoutMs: options.requestTimeoutMs ?? 5000,
      maxSignatureBytes: MAX_ADMITTED_SIGNATURE_BYTES,
      signal,
      budget,
    });
  }

  /** Each kind verifies the image in turn; the first that denies decides. */
  async function verifySignatures(
    task: VerifyTask,
    credentials: PullCredentials,
    digest: string,
    groups: readonly { kind: AnyRequirementKind; plans: readonly unknown[] }[],
    signal: AbortSignal,
    budget: ReadBudget,
  ): Promise<{ verdict: ImageVerdict; validUntil?: number | undefined }> {
    const image: ImageToVerify = {
      reference: task.reference,
      digest,
      client: clientFor(credentials),
      store: () => storeFor(task, credentials, { ...task.reference, digest }, signal, budget),
      signal,
      budget,
    };
    const signers: string[] = [];
    let validUntil: number | undefined;
    let explained: Record<string, unknown> = {};
    for (const { kind, plans } of groups) {
      const outcome = await kind.verify(plans, image, services);
      if (!outcome.allowed) return { verdict: deny(outcome.reason, outcome.cause, digest) };
      signers.push(...outcome.signers);
      if (outcome.validUntil !== undefined) {
        validUntil = Math.min(validUntil ?? outcome.validUntil, outcome.validUntil);
      }
      explained = { ...explained, ...outcome.explained };
    }
    return {
      verdict: { allowed: true, digest, signers, ...(options.explain ? explained : {}) },
      validUntil,
    };
  }

  async function verifySigned(
    task: VerifyTask,
    requirements: readonly Requirement[],
    call: Call,
  ): Promise<{ verdict: ImageVerdict; validUntil?: number | undefined }> {
    // The review's signal bounds every wait. Registry work is shared by the reviews that wait
    // for it, runs at most flightTimeoutMs, and is aborted when none of them waits any more.
    // What the requirements trust first (from the cluster, cached): a key Secret or trust root
    // that cannot be used is reported as such, whatever the registry answers.
    const groups = await raceSignal(planKinds(task, requirements), call.signal);
    const credentials = await raceSignal(task.credentials(), call.signal);
    const resolved = resolveDigest(task, credentials, call);
    const digest = typeof resolved === "string" ? resolved : await resolved;
    if (groups.length === 0) return { verdict: { allowed: true, digest } }; // nothing to verify
    const identity = formatReference(withDefaultTag(task.reference));
    const key = `${digest}|${identity}|${
      groups.map(({ kind, plans }) => `${kind.type}:${plans.map(kind.planKey).join("|")}`).join("|")
    }`;
    const fromCache = () => {
      const cached = verdicts.get(key);
      if (cached === undefined || (cached.validUntil ?? Infinity) <= clock().getTime()) {
        return undefined;
      }
      return { verdict: servedFromMemory(digest, cached.signers), validUntil: cached.validUntil };
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
      const { verdict, validUntil } = await raceSignal(
        verifySignatures(task, credentials, digest, groups, signal, budget),
        signal,
      );
      if (verdict.allowed) {
        // Never beyond the expiry of a signature or key the verdict relied on.
        const remaining = validUntil === undefined ? Infinity : validUntil - clock().getTime();
        verdicts.set(key, { signers: verdict.signers ?? [], validUntil }, remaining);
      }
      return { verdict, validUntil };
    }, call.signal);
  }

  /**
   * A reference with a tag and a digest whose policy was chosen for its tag means both: the tag
   * must resolve to the digest, or the policy of one image would admit another. Undefined when
   * they agree or the tag did not matter.
   */
  async function tagMismatch(task: VerifyTask, call: Call): Promise<ImageVerdict | undefined> {
    const ref = task.reference;
    if (!task.match.matchedByTag || ref.tag === undefined || ref.digest === undefined) {
      return undefined;
    }
    const credentials = await raceSignal(task.credentials(), call.signal);
    const resolved = await resolveTag(ref, credentials, call);
    if (resolved === ref.digest) return undefined;
    return deny(
      `The tag "${ref.tag}" of "${
        repositoryName(ref)
      }" resolves to ${resolved}, not to the digest ${ref.digest} of the reference (pattern "${task.match.pattern}" applies to the tag)`,
      "policy",
      ref.digest,
    );
  }

  /** How long a verdict of `task` may be remembered: no longer than the caches it came from. */
  function memoLife(task: VerifyTask): number {
    // A cache that is off (no lifetime or no entries) keeps nothing here either.
    const life = (bounds: CacheBounds) => bounds.maxEntries > 0 ? bounds.ttlMs : 0;
    const verdictLife = life(options.verdictCache);
    // A digest resolved from the tag (or a tag that chose the policy) is only as fresh as the
    // digest cache keeps it.
    const tagged = task.reference.digest === undefined || task.match.matchedByTag;
    return tagged ? Math.min(verdictLife, life(options.digestCache)) : verdictLife;
  }

  /** Renewals of remembered verdicts in flight (each one verification, through the caches). */
  let renewals = 0;

  function known(task: VerifyTask): ImageVerdict | undefined {
    if (memo === undefined || task.credentialsKey === undefined) return undefined;
    const entry = memo.get(task.reference, task.match, task.credentialsKey);
    if (entry === undefined) return undefined;
    observer.cacheHit?.();
    if (!entry.renewing && renewals < MAX_MEMO_RENEWALS && now() >= entry.renewAt) {
      // Verified again after this review's answer has gone (a timer runs after the current
      // turn's I/O), so that the next review of the image finds a fresh entry; a renewal that
      // fails or denies leaves the entry to expire, and the next review verifies in full.
      // It fills the caches for reviews to come and nobody waits for it: it takes a slot only
      // when one is free and no review waits (else it is skipped), and runs at most
      // flightTimeoutMs.
      entry.renewing = true;
      renewals++;
      setTimeout(() => {
        const deadline = startDeadline(options.flightTimeoutMs);
        check(task, deadline.signal, true).catch(() => {}).finally(() => {
          deadline.clear();
          renewals--;
        });
      }, 0);
    }
    return entry.verdict;
  }

  function verify(task: VerifyTask, signal?: AbortSignal): Promise<ImageVerdict> {
    return check(task, signal, false);
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
    let slot: Slot | undefined;
    let taking: Promise<void> | undefined;
    const takeSlot = async () => {
      if (task.slots === undefined) return;
      if (!background) {
        slot = await task.slots.acquire(signal);
        return;
      }
      slot = task.slots.tryAcquire();
      if (slot === undefined) throw new NoFreeSlotError();
    };
    const call: Call = { signal, slot: () => taking ??= takeSlot() };
    try {
      return await checkImage(task, signal, call);
    } finally {
      slot?.release();
    }
  }

  async function checkImage(
    task: VerifyTask,
    signal: AbortSignal | undefined,
    call: Call,
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
      const generation = memo?.generation();
      const { verdict, validUntil } = await verifySigned(task, requirements, call);
      if (
        verdict.allowed && memo !== undefined && generation !== undefined &&
        task.credentialsKey !== undefined
      ) {
        memo.set(task.reference, task.match, task.credentialsKey, {
          verdict: servedFromMemory(verdict.digest, verdict.signers ?? []),
          validUntil,
          lifeMs: memoLife(task),
        }, generation);
      }
      return verdict;
    } catch (error) {
      if (signal?.aborted && error === signal.reason) throw error;
      if (
        !(error instanceof PolicyConfigError) && !(error instanceof PolicySourceError) &&
        !(error instanceof NoFreeSlotError)
      ) {
        observer.registryError?.(error);
      }
      return deny(errorMessage(error), "error");
    }
  }

  return {
    verify,
    known,
    caches: () => [
      verdicts.stats(),
      digests.stats(),
      clients.stats(),
      tokens.stats(),
      keyStore.stats(),
      ...sigstoreMaterial.stats(),
    ],
    readPool: () => memory.pool.stats(),
  };
}

/** `docker.io/library/nginx@sha256:…`: the image pinned to a digest. */
export function pinnedReference(reference: ImageReference, digest: string): string {
  return `${repositoryName(reference)}@${digest}`;
}
