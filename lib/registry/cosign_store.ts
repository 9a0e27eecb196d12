/**
 * Reading the cosign signatures of an image from its registry, in both storage formats, with the
 * image's pull credentials (the client's):
 *
 * - **legacy** (cosign ≤ v2, v3 with `--new-bundle-format=false`): the manifest at the tag
 *   `sha256-<hex>.sig`; each layer of type `application/vnd.dev.cosign.simplesigning.v1+json` is
 *   one signature (its blob the payload, its annotations the signature and, keyless, the
 *   certificate, chain, Rekor bundle and timestamp). No such tag: no legacy signature.
 * - **bundle** (cosign v3): OCI 1.1 referrers of the image, from `GET /v2/<name>/referrers/<digest>`
 *   (asked with `?artifactType=application/vnd.dev.sigstore.bundle.v0.3+json`, which a registry
 *   may apply or ignore) and from the fallback tag `sha256-<hex>` (an index the signer keeps where
 *   the registry has no referrers API; both are read, and a referrer found twice counts once).
 *
 * Referrers are chosen before they cost. A listed referrer is a **candidate** only when its
 * descriptor may be a cosign signature: an image manifest whose artifact type is the bundle's,
 * the empty config's (go-containerregistry's registry reports the config media type there) or
 * none, and that announces no other predicate type. Anything else (SBOMs, attestations, indexes)
 * is passed over as the list is parsed, and costs nothing more. Candidates whose descriptor names
 * them a signature (the bundle's artifact type, or the predicate type of `cosign sign`) come
 * before those that only do not say otherwise, each newest first
 * (`org.opencontainers.image.created`, when they carry it), and the first
 * {@linkcode CosignReadBounds.maxSignatures} of them are read; a candidate's manifest is fetched
 * only when the reader gets that far, and its blob only when the manifest is a sigstore bundle
 * referrer (its `subject` the image, its artifact type or config the bundle's, one layer of the
 * bundle type).
 *
 * {@linkcode openCosignSignatures} yields the signatures one by one, the legacy ones first,
 * reading as it is asked, so a verifier that stops at the first signature meeting its
 * requirement reads no referrer's manifest when the `.sig` tag holds one. Junk therefore only
 * spends budget: a referrer that is not a bundle, a fallback-index entry that no longer exists
 * (`MANIFEST_UNKNOWN`), a manifest or blob over its bound, even a referrers list that cannot be
 * read, is that entry (or list) skipped, with its reason in `skipped` for the denial; it never
 * hides a valid signature that is read. Past the bound, the candidates not read are named in
 * `skipped` too, so a denial says which bound it met.
 *
 * The referrers API's answer and the fallback index are the same for the signatures and the
 * attestations of an image: readers of one verification given the same `listings`
 * (lib/registry/cosign_listings.ts) ask for each once, and each reduces it to its candidates.
 *
 * Everything is bounded before it is read or parsed: the referrers answers (all pages) and the
 * fallback index by bytes and by JSON values (counted in one linear pass before `JSON.parse`,
 * lib/json_shape.ts), each manifest likewise, the number of signature layers, each blob by its
 * descriptor's size, and all bytes read for one image by the caller's budget (lib/read_budget.ts,
 * charged before each chunk is kept). A list is reduced to its candidates as soon as it is parsed:
 * nothing parsed is held while another answer is awaited.
 *
 * @module
 */
import { formatReference, type ImageReference, isDigest } from "../image/mod.ts";
import { mapLimit } from "../map_limit.ts";
import {
  COSIGN_SIGN_PREDICATE_TYPE,
  COSIGN_SIGNATURE_ANNOTATION,
  COSIGN_SIMPLESIGNING_MEDIA_TYPE,
  cosignAttestationTag,
  cosignDockerReference,
  cosignLegacyPayload,
  cosignSignatureTag,
  DSSE_ENVELOPE_MEDIA_TYPE,
  OCI_CREATED_ANNOTATION,
  OCI_EMPTY_MEDIA_TYPE,
  referrersFallbackTag,
  SIGSTORE_BUNDLE_PREDICATE_TYPE_ANNOTATION,
  SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
} from "../signature/mod.ts";
import type { RegistryClient, RequestOptions } from "./client_types.ts";
import { RegistryError } from "./errors.ts";
import { ToolkitError } from "../errors.ts";
import { BudgetExceededError } from "../read_budget.ts";
import { JsonShapeError, parseJsonWithin } from "../json_shape.ts";
import { OCI_MANIFEST } from "./media_types.ts";
import { computeDigest } from "./digest.ts";
import { CosignListings } from "./cosign_listings.ts";

/*
 * What a registry holds of a cosign signature, as this module reads it and lib/sigstore checks
 * it: nothing in it is trusted yet.
 */

/** One signature as stored, in either format. */
export type StoredCosignSignature =
  | {
    /** A layer of the legacy `sha256-<hex>.sig` manifest. */
    readonly format: "legacy";
    /** The layer's blob: the signed payload, byte for byte. */
    readonly payload: Uint8Array;
    /** The layer's annotations (signature, certificate, chain, Rekor bundle, timestamp). */
    readonly annotations: Readonly<Record<string, string>>;
    /** For messages: `layer sha256:… of <tag>`. */
    readonly where: string;
  }
  | {
    /** A sigstore bundle v0.3 stored as an OCI 1.1 referrer (cosign v3). */
    readonly format: "bundle";
    /** The bundle's JSON bytes. */
    readonly bundle: Uint8Array;
    /** For messages: `referrer sha256:…`. */
    readonly where: string;
  };

/** What was read for an image: its signatures, and why other stored things were not used. */
export interface StoredCosignSignatures {
  /** The signatures, legacy layers first, then bundles. */
  readonly signatures: readonly StoredCosignSignature[];
  /** Things found that cannot be signatures of the image (a referrer of another subject, …). */
  readonly skipped: readonly string[];
}

/** The signatures of an image, read as asked for (see {@linkcode openCosignSignatures}). */
export interface CosignSignatureSource extends Disposable {
  /**
   * The signatures, legacy layers first, then bundles (in the candidates' order), each read
   * when the iteration gets to it. Iterating again replays what was read, then reads on. Throws
   * what the legacy read throws (the `.sig` tag cannot be read, over its bounds); every bundle referrer
   * and referrers list that cannot be used is skipped instead.
   */
  signatures(): AsyncIterableIterator<StoredCosignSignature>;
  /** Why stored things were not used, so far: every reason a denial may need. */
  readonly skipped: readonly string[];
}

/** How much of a registry the cosign signatures of one image may take. */
export interface CosignReadBounds {
  /**
   * Signature layers of the `.sig` manifest (more is refused), and bundle referrers read (the
   * first candidates in their order; the others are not read, and named in the denial).
   * @default 64
   */
  readonly maxSignatures: number;
  /** Bytes of a `.sig` manifest or referrer manifest. @default 256 KiB */
  readonly maxManifestBytes: number;
  /**
   * Bytes of the referrers answers (all pages) and of the fallback index: more than
   * `maxJsonValues` take in cosign's descriptors (some 240, of 400 bytes each). Each answer is
   * held whole until it is counted, 64 verifications at once: at 1 MiB, 128 images answered with
   * a million bytes of `{}` took the webhook to 265 MiB, at 256 KiB to about 200.
   * @default 128 KiB
   */
  readonly maxIndexBytes: number;
  /**
   * JSON values (object keys included) of the referrers answers (all pages together), of the
   * fallback index and of each manifest, counted before they are parsed. A cosign referrer's
   * descriptor is about 17 values, so the default leaves room for the 64 candidates three times
   * over, or for some 200 other artifacts listed beside them where the registry does not apply
   * the `artifactType` filter. @default 4096
   */
  readonly maxJsonValues: number;
  /** Bytes of one payload or bundle blob. @default 256 KiB */
  readonly maxBlobBytes: number;
  /** Blobs and manifests read at the same time. @default 8 */
  readonly concurrency: number;
}

/** The default bounds. */
export const DEFAULT_COSIGN_READ_BOUNDS: CosignReadBounds = Object.freeze({
  maxSignatures: 64,
  maxManifestBytes: 256 * 1024,
  maxIndexBytes: 128 * 1024,
  maxJsonValues: 4096,
  maxBlobBytes: 256 * 1024,
  concurrency: 8,
});

/** The deepest nesting of a manifest or index read here (they need 4). */
const MAX_JSON_DEPTH = 16;

/**
 * Options of {@linkcode readCosignSignatures}; its `budget` (lib/read_budget.ts) is charged for
 * every byte read, error answers and index pages included.
 */
export interface CosignReadOptions extends RequestOptions {
  readonly bounds?: Partial<CosignReadBounds>;
  /**
   * Read the image's attestations instead of its signatures, with the same bounds: the layers
   * of the `sha256-<hex>.att` tag (DSSE envelopes, `application/vnd.dsse.envelope.v1+json`) and
   * the bundle referrers announcing a predicate type other than `cosign sign`'s (those
   * announcing none are candidates too). The layer's blob is the envelope, as `payload`.
   */
  readonly attestations?: boolean;
  /**
   * The referrers lists of the verification this read belongs to, shared with its other
   * readers (the signatures' and the attestations' of one image list the same referrers): each
   * list is asked for once (lib/registry/cosign_listings.ts). Without it, this read's own.
   */
  readonly listings?: CosignListings;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A descriptor as the reader uses it: checked digest, size and media type. */
interface Descriptor {
  readonly digest: string;
  readonly size: number;
  readonly mediaType: string;
  readonly artifactType?: string;
  readonly annotations: Readonly<Record<string, string>>;
}

function descriptor(value: unknown): Descriptor | undefined {
  if (!isObject(value)) return undefined;
  const { digest, size, mediaType, artifactType, annotations } = value;
  if (typeof digest !== "string" || !isDigest(digest)) return undefined;
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) return undefined;
  const strings: Record<string, string> = {};
  if (isObject(annotations)) {
    for (const [k, v] of Object.entries(annotations)) if (typeof v === "string") strings[k] = v;
  }
  return {
    digest,
    size,
    mediaType: typeof mediaType === "string" ? mediaType : "",
    ...(typeof artifactType === "string" ? { artifactType } : {}),
    annotations: strings,
  };
}

/** A listed referrer that may be a signature: what is kept of it (nothing of the parsed list). */
interface Candidate {
  readonly digest: string;
  /**
   * Its descriptor says it is a cosign signature (the bundle's artifact type, or the predicate
   * type of `cosign sign` announced), rather than only not saying otherwise.
   */
  readonly named: boolean;
  /** `org.opencontainers.image.created` in ms, when it carries a valid one. */
  readonly created: number | undefined;
}

/**
 * The candidate a referrers list's entry is, or undefined when its descriptor says it cannot be
 * a cosign signature: not an image manifest (a listed index, …), an artifact type other than the
 * bundle's, the empty config's or none, or another predicate type announced.
 */
function candidate(value: unknown, attestations = false): Candidate | undefined {
  const d = descriptor(value);
  if (d === undefined) return undefined;
  if (d.mediaType !== "" && d.mediaType !== OCI_MANIFEST) return undefined;
  const type = d.artifactType;
  if (
    type !== undefined && type !== "" && type !== SIGSTORE_BUNDLE_V03_MEDIA_TYPE &&
    type !== OCI_EMPTY_MEDIA_TYPE
  ) {
    return undefined;
  }
  const predicate = d.annotations[SIGSTORE_BUNDLE_PREDICATE_TYPE_ANNOTATION];
  if (
    attestations
      ? predicate === COSIGN_SIGN_PREDICATE_TYPE
      : predicate !== undefined && predicate !== COSIGN_SIGN_PREDICATE_TYPE
  ) return undefined;
  const created = d.annotations[OCI_CREATED_ANNOTATION];
  const time = created === undefined ? NaN : Date.parse(created);
  return {
    digest: d.digest,
    named: attestations
      ? predicate !== undefined
      : type === SIGSTORE_BUNDLE_V03_MEDIA_TYPE || predicate === COSIGN_SIGN_PREDICATE_TYPE,
    created: Number.isFinite(time) ? time : undefined,
  };
}

/**
 * What is kept of a listed referrer for every reader of a shared list: its descriptor reduced
 * to what {@linkcode candidate} looks at, when it may be a signature or an attestation
 * (`candidate` of the reduced descriptor is `candidate` of the listed one); else undefined.
 */
function listedReferrer(value: unknown): Descriptor | undefined {
  if (candidate(value, false) === undefined && candidate(value, true) === undefined) {
    return undefined;
  }
  const d = descriptor(value)!;
  const annotations: Record<string, string> = {};
  for (const name of [SIGSTORE_BUNDLE_PREDICATE_TYPE_ANNOTATION, OCI_CREATED_ANNOTATION]) {
    const v = d.annotations[name];
    if (v !== undefined) annotations[name] = v;
  }
  return { ...d, annotations };
}

/**
 * The candidates of both lists, each once, in the order they are read: those whose descriptor
 * names them a cosign signature first, then those that only do not say otherwise; within each,
 * newest first by their creation time, then those without one, in the order listed (the
 * referrers API's first).
 */
function newestFirst(lists: readonly (readonly Candidate[])[]): Candidate[] {
  const seen = new Set<string>();
  const all: Candidate[] = [];
  for (const list of lists) {
    for (const c of list) {
      if (seen.has(c.digest)) continue;
      seen.add(c.digest);
      all.push(c);
    }
  }
  // Array.prototype.sort is stable: equal times keep their listed order.
  const time = (c: Candidate) => c.created ?? -Infinity;
  return all.sort((a, b) =>
    a.named !== b.named ? (a.named ? -1 : 1) : time(a) === time(b) ? 0 : time(b) - time(a)
  );
}

/** Whether a registry error means "no such manifest". */
function isNotFound(error: unknown): boolean {
  return error instanceof RegistryError && error.status === 404;
}

/** Whether the read budget of the image is what `error` met. */
function isBudgetSpent(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; depth++) {
    if (e instanceof BudgetExceededError) return true;
    e = e.cause;
  }
  return false;
}

/**
 * Opens the cosign signatures of `ref`'s `digest`: the `.sig` tag, the referrers API and the
 * fallback index are asked at once (with a guess at the legacy payload, see below); the
 * signatures are then read as {@linkcode CosignSignatureSource.signatures} is iterated. Dispose
 * of the source when done: what is still being read is aborted.
 */
export function openCosignSignatures(
  client: RegistryClient,
  ref: ImageReference,
  digest: string,
  options: CosignReadOptions = {},
): CosignSignatureSource {
  const bounds: CosignReadBounds = { ...DEFAULT_COSIGN_READ_BOUNDS, ...options.bounds };
  const subject = `${ref.domain}/${ref.path}@${digest}`;
  const stop = new AbortController();
  const signal = options.signal === undefined
    ? stop.signal
    : AbortSignal.any([options.signal, stop.signal]);
  const { budget } = options;
  const repository: ImageReference = { domain: ref.domain, path: ref.path };
  const skipped: string[] = [];
  const jsonLimits = { maxValues: bounds.maxJsonValues, maxDepth: MAX_JSON_DEPTH };
  const attestations = options.attestations === true;
  const what = attestations ? "attestations" : "signatures";
  const select = (value: unknown) => candidate(value, attestations);
  const listings = options.listings ?? new CosignListings();
  const listKey = `${subject} ${bounds.maxIndexBytes}/${bounds.maxJsonValues}`;

  /** Whether `error` is to be skipped (a registry's answer), not thrown (an abort, a bug). */
  function skippable(error: unknown): boolean {
    return !signal.aborted && error instanceof ToolkitError;
  }

  async function manifestJson(
    tag: string | undefined,
    at: string | undefined,
    limit: number,
    within = signal,
  ) {
    const target: ImageReference = tag !== undefined
      ? { ...repository, tag }
      : { ...repository, digest: at };
    const manifest = await client.getManifest(target, { signal: within, budget, maxBytes: limit });
    const what = formatReference(target);
    try {
      const json = parseJsonWithin(manifest.bytes, jsonLimits, what);
      if (!isObject(json)) throw new SyntaxError("not an object");
      return { json, digest: manifest.digest };
    } catch (error) {
      throw new RegistryError(
        `Cannot read ${what} of "${subject}": ${
          error instanceof JsonShapeError ? error.message : `${what} is not a JSON manifest`
        }`,
        { registry: ref.domain, repository: ref.path },
      );
    }
  }

  async function blob(d: Descriptor, what: string): Promise<Uint8Array | undefined> {
    if (d.size > bounds.maxBlobBytes) {
      skipped.push(`${what}: its blob of ${d.size} bytes is larger than ${bounds.maxBlobBytes}`);
      return undefined;
    }
    return await client.getBlob(repository, d.digest, { signal, budget, maxBytes: d.size });
  }

  /**
   * The payload `cosign sign` writes for this image when it was given no annotations, read at
   * once beside the `.sig` manifest: when the manifest lists it (the common case), its layer
   * costs no round trip of its own. Undefined when the registry does not have it; the bytes are
   * still only used for a layer of the manifest with their digest.
   */
  async function guessedPayload(): Promise<{ digest: string; bytes: Uint8Array } | undefined> {
    const bytes = cosignLegacyPayload({
      dockerReference: cosignDockerReference(ref.domain, ref.path),
      manifestDigest: digest,
    });
    const guessed = await computeDigest(bytes);
    try {
      const read = await client.getBlob(repository, guessed, {
        signal,
        budget,
        maxBytes: bytes.byteLength,
      });
      return { digest: guessed, bytes: read };
    } catch (error) {
      if (error instanceof RegistryError && (error.status === 404 || error.status === 401)) {
        return undefined;
      }
      throw error;
    }
  }

  async function legacy(): Promise<StoredCosignSignature[]> {
    const tag = attestations ? cosignAttestationTag(digest) : cosignSignatureTag(digest);
    const guess = attestations ? Promise.resolve(undefined) : guessedPayload();
    guess.catch(() => {});
    let manifest;
    try {
      manifest = await manifestJson(tag, undefined, bounds.maxManifestBytes);
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
    const prefetched = await guess.catch(() => undefined);
    const layers = Array.isArray(manifest.json.layers) ? manifest.json.layers : [];
    if (layers.length > bounds.maxSignatures) {
      throw new RegistryError(
        `Cannot read ${what} of "${subject}": the tag ${tag} holds ${layers.length} ${what}, more than ${bounds.maxSignatures}`,
        { registry: ref.domain, repository: ref.path },
      );
    }
    const layerType = attestations ? DSSE_ENVELOPE_MEDIA_TYPE : COSIGN_SIMPLESIGNING_MEDIA_TYPE;
    const usable = layers.map(descriptor).filter((d, i): d is Descriptor => {
      if (d?.mediaType === layerType) return true;
      skipped.push(
        `layer ${i + 1} of ${tag}: not a cosign ${
          attestations ? "attestation" : "signature"
        } layer`,
      );
      return false;
    });
    const read = await mapLimit(usable, bounds.concurrency, async (d) => {
      const where = `layer ${d.digest} of ${tag}`;
      // An attestation's signature is in its envelope (cosign sets the annotation empty).
      if (!attestations && !d.annotations[COSIGN_SIGNATURE_ANNOTATION]) {
        skipped.push(`${where}: it has no signature annotation`);
        return undefined;
      }
      const payload = prefetched?.digest === d.digest ? prefetched.bytes : await blob(d, where);
      return payload === undefined
        ? undefined
        : { format: "legacy" as const, payload, annotations: d.annotations, where };
    });
    return read.filter((s) => s !== undefined);
  }

  /** The referrers API's list, shared with the verification's other readers. */
  function apiList() {
    return listings.share(`referrers ${listKey}`, options.signal, async (within) => {
      const answer = await client.getReferrers(repository, digest, {
        signal: within,
        budget,
        maxBytes: bounds.maxIndexBytes,
        maxValues: bounds.maxJsonValues,
        artifactType: SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
        select: listedReferrer,
      });
      return answer?.manifests ?? [];
    });
  }

  /** The fallback index's list, shared with the verification's other readers. */
  function tagList() {
    return listings.share(`fallback ${listKey}`, options.signal, async (within) => {
      const index = await manifestJson(
        referrersFallbackTag(digest),
        undefined,
        bounds.maxIndexBytes,
        within,
      );
      const manifests = Array.isArray(index.json.manifests) ? index.json.manifests : [];
      return manifests.map(listedReferrer).filter((d) => d !== undefined);
    });
  }

  /** The candidates the referrers API lists (none when the registry has no such API). */
  async function apiCandidates(): Promise<Candidate[]> {
    try {
      return (await apiShared.result).map(select).filter((c) => c !== undefined);
    } catch (error) {
      if (!skippable(error)) throw error;
      skipped.push(`the referrers list was not used: ${(error as Error).message}`);
      return [];
    }
  }

  /** The candidates the fallback index lists (none when there is no such tag). */
  async function tagCandidates(): Promise<Candidate[]> {
    const tag = referrersFallbackTag(digest);
    try {
      return (await tagShared.result).map(select).filter((c) => c !== undefined);
    } catch (error) {
      if (isNotFound(error)) return [];
      if (!skippable(error)) throw error;
      skipped.push(`the fallback index ${tag} was not used: ${(error as Error).message}`);
      return [];
    }
  }

  /** The bundle of one candidate, or undefined (the reason in `skipped`). */
  async function bundleOf(c: Candidate): Promise<StoredCosignSignature | undefined> {
    const where = `referrer ${c.digest}`;
    try {
      const { json } = await manifestJson(undefined, c.digest, bounds.maxManifestBytes);
      const manifestSubject = descriptor(json.subject);
      if (manifestSubject?.digest !== digest) {
        skipped.push(
          `${where}: its subject is ${manifestSubject?.digest ?? "missing"}, not the image`,
        );
        return undefined;
      }
      const config = descriptor(json.config);
      const isBundle = json.artifactType === SIGSTORE_BUNDLE_V03_MEDIA_TYPE ||
        config?.mediaType === SIGSTORE_BUNDLE_V03_MEDIA_TYPE;
      const layers = Array.isArray(json.layers) ? json.layers.map(descriptor) : [];
      const layer = layers.find((l) => l?.mediaType === SIGSTORE_BUNDLE_V03_MEDIA_TYPE);
      if (!isBundle || layer === undefined || layers.length !== 1) {
        skipped.push(`${where}: not a sigstore bundle referrer`);
        return undefined;
      }
      const bytes = await blob(layer, where);
      return bytes === undefined ? undefined : { format: "bundle" as const, bundle: bytes, where };
    } catch (error) {
      if (!skippable(error)) throw error;
      if (isBudgetSpent(error)) budgetSpent = true;
      skipped.push(
        isNotFound(error)
          ? `${where} is listed but no longer exists: ${(error as Error).message}`
          : `${where}: ${(error as Error).message}`,
      );
      return undefined;
    }
  }

  let budgetSpent = false;

  /**
   * The bundles of the first `maxSignatures` candidates, in order, at most `concurrency` read
   * at once and none before the iteration is near it.
   */
  async function* bundles(candidates: readonly Candidate[]) {
    const chosen = candidates.slice(0, bounds.maxSignatures);
    if (candidates.length > chosen.length) {
      skipped.push(
        `it has ${candidates.length} referrers that may be ${what}, more than ${bounds.maxSignatures}: ` +
          `${chosen.length} were read (those naming ${
            attestations ? "a predicate type" : "a signature"
          } first, newest first), ` +
          `the other ${candidates.length - chosen.length} were not`,
      );
    }
    const window: Promise<StoredCosignSignature | undefined>[] = [];
    let next = 0;
    const fill = () => {
      while (window.length < bounds.concurrency && next < chosen.length && !budgetSpent) {
        const read = bundleOf(chosen[next++]!);
        read.catch(() => {}); // awaited below, or abandoned with the source
        window.push(read);
      }
    };
    fill();
    while (window.length > 0) {
      const signature = await window.shift()!;
      fill();
      if (signature !== undefined) yield signature;
    }
    if (next < chosen.length) {
      skipped.push(
        `${
          chosen.length - next
        } referrers that may be ${what} were not read: the read budget of the image was spent`,
      );
    }
  }

  async function* produce(): AsyncGenerator<StoredCosignSignature> {
    yield* await legacyRead;
    const lists = await Promise.all([apiRead, tagRead]);
    yield* bundles(newestFirst(lists));
  }

  // The three lookups go out together; each list is reduced to its candidates as it arrives
  // (to what any reader of the verification may use of it, then to this reader's).
  const legacyRead = legacy();
  const apiShared = apiList();
  const tagShared = tagList();
  const apiRead = apiCandidates();
  const tagRead = tagCandidates();
  for (const p of [legacyRead, apiRead, tagRead]) p.catch(() => {});

  const producer = produce();
  const read: StoredCosignSignature[] = [];
  let finished = false;
  let failure: { error: unknown } | undefined;
  let pulling: Promise<void> | undefined;
  /** Reads one more signature into `read` (one pull at a time, however many iterate). */
  function pull(): Promise<void> {
    pulling ??= producer.next().then(
      (result) => {
        if (result.done) finished = true;
        else read.push(result.value);
      },
      (error) => {
        failure = { error };
      },
    ).finally(() => {
      pulling = undefined;
    });
    return pulling;
  }

  async function* signatures(): AsyncGenerator<StoredCosignSignature> {
    for (let i = 0;;) {
      if (i < read.length) {
        yield read[i++]!;
        continue;
      }
      if (failure !== undefined) throw failure.error;
      if (finished) return;
      await pull();
    }
  }

  const dispose = () => {
    stop.abort(new DOMException("the signatures were read", "AbortError"));
    apiShared[Symbol.dispose]();
    tagShared[Symbol.dispose]();
  };
  return { signatures, skipped, [Symbol.dispose]: dispose };
}

/** Reads every cosign signature of `ref`'s `digest` (legacy layers, then bundles). */
export async function readCosignSignatures(
  client: RegistryClient,
  ref: ImageReference,
  digest: string,
  options: CosignReadOptions = {},
): Promise<StoredCosignSignatures> {
  using source = openCosignSignatures(client, ref, digest, options);
  const signatures: StoredCosignSignature[] = [];
  for await (const signature of source.signatures()) signatures.push(signature);
  return { signatures, skipped: [...source.skipped] };
}
