/**
 * Reading the cosign signatures of an image from its registry, in both storage formats, with the
 * image's pull credentials (the client's):
 *
 * - **legacy** (cosign ≤ v2, v3 with `--new-bundle-format=false`): the manifest at the tag
 *   `sha256-<hex>.sig`; each layer of type `application/vnd.dev.cosign.simplesigning.v1+json` is
 *   one signature (its blob the payload, its annotations the signature and, keyless, the
 *   certificate, chain, Rekor bundle and timestamp). No such tag: no legacy signature.
 * - **bundle** (cosign v3): OCI 1.1 referrers of the image, from `GET /v2/<name>/referrers/<digest>`
 *   and from the fallback tag `sha256-<hex>` (an index the signer keeps where the registry has no
 *   referrers API; both are read, and a referrer found twice counts once). The index's
 *   `artifactType` is not trusted to select signatures (go-containerregistry's registry reports
 *   the config media type there): every referrer that may be a signature (artifact type the
 *   bundle's, the empty config's, or none; no other predicate type announced) is read, and only a
 *   manifest whose own `subject` is the image and whose layer is a sigstore bundle v0.3 is kept.
 *
 * The three reads go out together, with a fourth: the blob of the payload `cosign sign` writes
 * for this image when it is given no annotations (its digest is known in advance), so that a
 * legacy signature usually costs one round trip after the tag is resolved, like a simple
 * signature; a bundle costs two more (the referrer's manifest, then its blob).
 *
 * Everything is bounded before it is read: the referrers index and each manifest by bytes, the
 * number of signature layers and of candidate referrers (more denies, rather than reading a
 * chosen few), each blob by its descriptor's size, and all bytes read for one image by the
 * caller's budget (lib/read_budget.ts, charged before each chunk is kept). What cannot be a
 * signature of the image is reported in `skipped`, so a denial can say why.
 *
 * @module
 */
import { formatReference, type ImageReference, isDigest } from "../image/mod.ts";
import { mapLimit } from "../map_limit.ts";
import {
  COSIGN_SIGN_PREDICATE_TYPE,
  COSIGN_SIGNATURE_ANNOTATION,
  COSIGN_SIMPLESIGNING_MEDIA_TYPE,
  cosignDockerReference,
  cosignLegacyPayload,
  cosignSignatureTag,
  OCI_EMPTY_MEDIA_TYPE,
  referrersFallbackTag,
  SIGSTORE_BUNDLE_PREDICATE_TYPE_ANNOTATION,
  SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
} from "../signature/mod.ts";
import type { RegistryClient, RequestOptions } from "./client.ts";
import { RegistryError } from "./errors.ts";
import { computeDigest } from "./digest.ts";

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

/** How much of a registry the cosign signatures of one image may take. */
export interface CosignReadBounds {
  /** Signature layers of the `.sig` manifest, and bundle referrers, each. @default 64 */
  readonly maxSignatures: number;
  /** Bytes of a `.sig` manifest or referrer manifest. @default 256 KiB */
  readonly maxManifestBytes: number;
  /** Bytes of the referrers answers (all pages) and of the fallback index. @default 1 MiB */
  readonly maxIndexBytes: number;
  /** Bytes of one payload or bundle blob. @default 256 KiB */
  readonly maxBlobBytes: number;
  /** Blobs and manifests read at the same time. @default 8 */
  readonly concurrency: number;
}

/** The default bounds. */
export const DEFAULT_COSIGN_READ_BOUNDS: CosignReadBounds = Object.freeze({
  maxSignatures: 64,
  maxManifestBytes: 256 * 1024,
  maxIndexBytes: 1024 * 1024,
  maxBlobBytes: 256 * 1024,
  concurrency: 8,
});

/**
 * Options of {@linkcode readCosignSignatures}; its `budget` (lib/read_budget.ts) is charged for
 * every byte read, error answers and index pages included.
 */
export interface CosignReadOptions extends RequestOptions {
  readonly bounds?: Partial<CosignReadBounds>;
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

/** Whether a registry error means "no such manifest". */
function isNotFound(error: unknown): boolean {
  return error instanceof RegistryError && error.status === 404;
}

/** Reads every cosign signature of `ref`'s `digest` (legacy layers, then bundles). */
export async function readCosignSignatures(
  client: RegistryClient,
  ref: ImageReference,
  digest: string,
  options: CosignReadOptions = {},
): Promise<StoredCosignSignatures> {
  const bounds: CosignReadBounds = { ...DEFAULT_COSIGN_READ_BOUNDS, ...options.bounds };
  const subject = `${ref.domain}/${ref.path}@${digest}`;
  const { signal, budget } = options;
  const repository: ImageReference = { domain: ref.domain, path: ref.path };
  const skipped: string[] = [];

  async function manifestJson(tag: string | undefined, at: string | undefined, limit: number) {
    const target: ImageReference = tag !== undefined
      ? { ...repository, tag }
      : { ...repository, digest: at };
    try {
      const manifest = await client.getManifest(target, { signal, budget, maxBytes: limit });
      const json: unknown = JSON.parse(new TextDecoder().decode(manifest.bytes));
      if (!isObject(json)) throw new SyntaxError("not an object");
      return { json, digest: manifest.digest };
    } catch (error) {
      if (error instanceof SyntaxError) {
        throw new RegistryError(
          `Cannot read signatures of "${subject}": ${
            formatReference(target)
          } is not a JSON manifest`,
          { registry: ref.domain, repository: ref.path },
        );
      }
      throw error;
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
    const tag = cosignSignatureTag(digest);
    const guess = guessedPayload();
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
        `Cannot read signatures of "${subject}": the tag ${tag} holds ${layers.length} signatures, more than ${bounds.maxSignatures}`,
        { registry: ref.domain, repository: ref.path },
      );
    }
    const usable = layers.map(descriptor).filter((d, i): d is Descriptor => {
      if (d?.mediaType === COSIGN_SIMPLESIGNING_MEDIA_TYPE) return true;
      skipped.push(`layer ${i + 1} of ${tag}: not a cosign signature layer`);
      return false;
    });
    const read = await mapLimit(usable, bounds.concurrency, async (d) => {
      const where = `layer ${d.digest} of ${tag}`;
      if (!d.annotations[COSIGN_SIGNATURE_ANNOTATION]) {
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

  /** The referrers from the API, or undefined when the registry has none. */
  async function apiReferrers(): Promise<unknown[] | undefined> {
    const answer = await client.getReferrers(repository, digest, {
      signal,
      budget,
      maxBytes: bounds.maxIndexBytes,
    });
    return answer?.manifests;
  }

  async function tagReferrers(): Promise<unknown[]> {
    try {
      const index = await manifestJson(
        referrersFallbackTag(digest),
        undefined,
        bounds.maxIndexBytes,
      );
      return Array.isArray(index.json.manifests) ? index.json.manifests : [];
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
  }

  /** Whether a referrer may be a signature, from what its index entry says. */
  function mayBeSignature(d: Descriptor): boolean {
    const type = d.artifactType;
    if (
      type !== undefined && type !== SIGSTORE_BUNDLE_V03_MEDIA_TYPE && type !== OCI_EMPTY_MEDIA_TYPE
    ) {
      return false;
    }
    const predicate = d.annotations[SIGSTORE_BUNDLE_PREDICATE_TYPE_ANNOTATION];
    return predicate === undefined || predicate === COSIGN_SIGN_PREDICATE_TYPE;
  }

  async function bundles(
    api: Promise<unknown[] | undefined>,
    fallback: Promise<unknown[]>,
  ): Promise<StoredCosignSignature[]> {
    const entries = [...(await api) ?? [], ...await fallback];
    const seen = new Set<string>();
    const candidates = entries.map(descriptor).filter((d): d is Descriptor => {
      if (d === undefined || seen.has(d.digest) || !mayBeSignature(d)) return false;
      seen.add(d.digest);
      return true;
    });
    if (candidates.length > bounds.maxSignatures) {
      throw new RegistryError(
        `Cannot read signatures of "${subject}": it has ${candidates.length} referrers that may be signatures, more than ${bounds.maxSignatures}`,
        { registry: ref.domain, repository: ref.path },
      );
    }
    const read = await mapLimit(candidates, bounds.concurrency, async (d) => {
      const where = `referrer ${d.digest}`;
      const manifest = await manifestJson(undefined, d.digest, bounds.maxManifestBytes);
      const json = manifest.json;
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
    });
    return read.filter((s) => s !== undefined);
  }

  // The three lookups go out together; each waits for its own answer.
  const api = apiReferrers();
  const fallback = tagReferrers();
  api.catch(() => {});
  fallback.catch(() => {});
  const [legacySignatures, bundleSignatures] = await Promise.all([
    legacy(),
    bundles(api, fallback),
  ]);
  return { signatures: [...legacySignatures, ...bundleSignatures], skipped };
}
