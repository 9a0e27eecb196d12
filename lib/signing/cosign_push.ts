/**
 * Storing cosign signatures in a registry, as cosign v3.1.3 stores them (the write side; reading
 * them is the verifier's):
 *
 * - {@linkcode appendCosignSignature}: the legacy tag `sha256-<hex>.sig`, an image manifest whose
 *   layers are the signatures of the image. A new signature is one more layer (payload blob,
 *   `dev.cosignproject.cosign/signature` annotation); the layers already there, other signers'
 *   included, are kept as they are, and a signature of the same key over the same payload is
 *   not added twice (cosign's duplicate rule: same payload digest, media type and annotations,
 *   and the old signature verifies with the signer's key). The config is rebuilt as
 *   go-containerregistry makes it for these layers (one diff_id and one empty history entry per
 *   layer).
 * - {@linkcode pushCosignBundle}: a cosign v3 bundle as an OCI 1.1 referrer of the image:
 *   a manifest (artifactType the bundle type, config the empty `{}`, one layer with the bundle,
 *   `subject` the image, the annotations cosign writes) pushed by its digest. Where the registry
 *   has no referrers API, the `sha256-<hex>` fallback tag (an OCI index) gets a descriptor of it,
 *   as go-containerregistry does for cosign: the index is read, the descriptor appended unless
 *   its digest is there, the descriptors sorted by digest.
 *
 * Both update a tag by reading, changing and writing it, as cosign does: two signers writing
 * the same tag at the same moment can lose one signature (the registry API has no compare-and-
 * swap), so signing is not for concurrent use on one image.
 *
 * @module
 */
import type { ImageReference } from "../image/mod.ts";
import {
  computeDigest,
  DOCKER_MANIFEST,
  MANIFEST_JSON_LIMITS,
  type ManifestDescriptor,
  OCI_INDEX,
  OCI_MANIFEST,
  type RegistryClient,
  RegistryError,
  type RequestOptions,
} from "../registry/mod.ts";
import { parseJsonWithin } from "../json_shape.ts";
import { getTaggedManifest, hasReferrersApi, pushBlob, pushManifest } from "./registry_push.ts";
import {
  COSIGN_SIGNATURE_ANNOTATION,
  COSIGN_SIMPLESIGNING_MEDIA_TYPE,
  cosignSignatureTag,
  OCI_CREATED_ANNOTATION,
  OCI_EMPTY_CONFIG,
  OCI_EMPTY_MEDIA_TYPE,
  referrersFallbackTag,
  SIGSTORE_BUNDLE_CONTENT_ANNOTATION,
  SIGSTORE_BUNDLE_CONTENT_DSSE,
  SIGSTORE_BUNDLE_PREDICATE_TYPE_ANNOTATION,
  SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
} from "../signature/mod.ts";
import { decodeBase64 } from "../base64.ts";

/** An OCI descriptor (a layer of a legacy cosign tag, a referrer). */
export interface LayerDescriptor {
  mediaType: string;
  digest: string;
  size: number;
  artifactType?: string;
  annotations?: Record<string, string>;
}

/** The config media type of a legacy signature manifest (OCI; Docker's when it was Docker's). */
const OCI_CONFIG = "application/vnd.oci.image.config.v1+json";
const DOCKER_CONFIG = "application/vnd.docker.container.image.v1+json";
/** The most signatures kept under one `.sig` tag. */
export const MAX_LEGACY_SIGNATURES = 1000;
/** The most referrers kept in one fallback index. */
export const MAX_FALLBACK_REFERRERS = 10_000;

/** One legacy signature layer to add. */
export interface LegacySignatureLayer {
  /** The payload (the layer's blob). */
  readonly payload: Uint8Array;
  /** The base64 signature over it (the layer's signature annotation). */
  readonly signatureBase64: string;
}

/** What {@linkcode appendCosignSignature} did. */
export interface AppendedSignature {
  /** The tag: `sha256-<hex>.sig`. */
  readonly tag: string;
  /** The digest of the signature manifest now under the tag. */
  readonly manifestDigest: string;
  /** False when the same signature was there already (nothing was written). */
  readonly added: boolean;
  /** Signatures under the tag now. */
  readonly signatures: number;
}

/** What {@linkcode pushCosignBundle} did. */
export interface PushedBundle {
  /** The digest of the referrer manifest. */
  readonly manifestDigest: string;
  /** Where a reader finds it: the registry's referrers API, or the fallback tag. */
  readonly listedBy: "referrers-api" | "fallback-tag";
  /** The fallback tag when that is where it is listed. */
  readonly fallbackTag?: string;
}

function subjectOf(ref: ImageReference, digest: string): string {
  return `${ref.domain}/${ref.path}@${digest}`;
}

function refuse(ref: ImageReference, action: string, what: string, detail: string): never {
  throw new RegistryError(`Cannot ${action} "${what}": ${detail}`, {
    registry: ref.domain,
    repository: ref.path,
  });
}

function parseObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const doc = parseJsonWithin(bytes, MANIFEST_JSON_LIMITS, "the manifest");
    return typeof doc === "object" && doc !== null && !Array.isArray(doc)
      ? doc as Record<string, unknown>
      : undefined;
  } catch {
    return undefined;
  }
}

function isDescriptor(value: unknown): value is LayerDescriptor {
  if (typeof value !== "object" || value === null) return false;
  const d = value as Record<string, unknown>;
  return typeof d.mediaType === "string" && typeof d.digest === "string" &&
    typeof d.size === "number" &&
    (d.annotations === undefined ||
      (typeof d.annotations === "object" && d.annotations !== null &&
        Object.values(d.annotations).every((v) => typeof v === "string")));
}

/**
 * Adds a legacy cosign signature of `digest` to its `sha256-<hex>.sig` manifest in the
 * repository of `ref`. `isSameSignature` tells whether an existing layer's signature (DER bytes)
 * over the same payload is the signer's (see the module's duplicate rule).
 */
export async function appendCosignSignature(
  client: RegistryClient,
  ref: ImageReference,
  digest: string,
  layer: LegacySignatureLayer,
  options: RequestOptions & {
    isSameSignature: (payload: Uint8Array, signature: Uint8Array) => Promise<boolean>;
  },
): Promise<AppendedSignature> {
  const action = "store the cosign signature of";
  const tag = cosignSignatureTag(digest);
  const what = subjectOf(ref, digest);
  const existing = await readLayersManifest(client, ref, tag, {
    ...options,
    action,
    what,
    kind: "a signature manifest",
  });
  const mediaType = existing.mediaType;
  let layers = existing.layers;
  const payloadBlob = await pushBlob(client, ref, layer.payload, options);
  for (const old of layers) {
    if (
      old.digest !== payloadBlob.digest || old.mediaType !== COSIGN_SIMPLESIGNING_MEDIA_TYPE
    ) continue;
    const oldSignature = old.annotations?.[COSIGN_SIGNATURE_ANNOTATION];
    if (oldSignature === undefined) continue;
    let bytes: Uint8Array;
    try {
      bytes = decodeBase64(oldSignature);
    } catch {
      continue;
    }
    if (await options.isSameSignature(layer.payload, bytes)) {
      return { tag, manifestDigest: existing.digest!, added: false, signatures: layers.length };
    }
  }
  if (layers.length >= MAX_LEGACY_SIGNATURES) {
    refuse(ref, action, what, `${tag} holds ${layers.length} signatures already`);
  }
  layers = [...layers, {
    mediaType: COSIGN_SIMPLESIGNING_MEDIA_TYPE,
    size: payloadBlob.size,
    digest: payloadBlob.digest,
    annotations: { [COSIGN_SIGNATURE_ANNOTATION]: layer.signatureBase64 },
  }];
  const pushed = await writeLayersManifest(client, ref, tag, mediaType, layers, options);
  return { tag, manifestDigest: pushed.digest, added: true, signatures: layers.length };
}

/**
 * Writes the manifest of a legacy cosign tag (`.sig`, `.att`) with `layers`, its config rebuilt
 * as go-containerregistry makes it for uncompressed layers appended to an empty image (one
 * diff_id and one empty history entry per layer).
 */
export async function writeLayersManifest(
  client: RegistryClient,
  ref: ImageReference,
  tag: string,
  mediaType: string,
  layers: readonly LayerDescriptor[],
  options: RequestOptions,
): Promise<{ digest: string }> {
  const config = new TextEncoder().encode(JSON.stringify({
    architecture: "",
    created: "0001-01-01T00:00:00Z",
    history: layers.map(() => ({ created: "0001-01-01T00:00:00Z" })),
    os: "",
    rootfs: { type: "layers", diff_ids: layers.map((l) => l.digest) },
    config: {},
  }));
  const configBlob = await pushBlob(client, ref, config, options);
  const manifest = new TextEncoder().encode(JSON.stringify({
    schemaVersion: 2,
    mediaType,
    config: {
      mediaType: mediaType === DOCKER_MANIFEST ? DOCKER_CONFIG : OCI_CONFIG,
      size: configBlob.size,
      digest: configBlob.digest,
    },
    layers,
  }));
  return await pushManifest(client, ref, tag, { bytes: manifest, mediaType }, options);
}

/**
 * The layers of the legacy cosign tag `tag` (`.sig`, `.att`) and its manifest's media type and
 * digest; no layers (an OCI manifest to come) when the tag does not exist.
 *
 * @throws {RegistryError} when the tag holds something else than an image manifest.
 */
export async function readLayersManifest(
  client: RegistryClient,
  ref: ImageReference,
  tag: string,
  options: RequestOptions & { action: string; what: string; kind: string },
): Promise<{ mediaType: string; layers: LayerDescriptor[]; digest?: string }> {
  const existing = await getTaggedManifest(client, ref, tag, options);
  if (!existing) return { mediaType: OCI_MANIFEST, layers: [] };
  const manifest = parseObject(existing.bytes);
  const found = manifest?.layers;
  if (
    manifest === undefined || !Array.isArray(found) || !found.every(isDescriptor) ||
    (existing.mediaType !== OCI_MANIFEST && existing.mediaType !== DOCKER_MANIFEST)
  ) {
    refuse(
      ref,
      options.action,
      options.what,
      `the tag ${tag} holds something else than ${options.kind}`,
    );
  }
  return { mediaType: existing.mediaType, layers: found, digest: existing.digest };
}

/**
 * Stores a cosign v3 bundle (its JSON bytes) as an OCI 1.1 referrer of `subject` (the image's
 * manifest as a HEAD describes it: digest, media type, size) in the repository of `ref`.
 */
export async function pushCosignBundle(
  client: RegistryClient,
  ref: ImageReference,
  subject: ManifestDescriptor,
  bundle: Uint8Array,
  options: RequestOptions & { predicateType: string; created: Date },
): Promise<PushedBundle> {
  const action = "store the cosign bundle of";
  const what = subjectOf(ref, subject.digest);
  if (subject.size < 0 || subject.mediaType === "") {
    refuse(ref, action, what, "the registry did not say the image manifest's size and type");
  }
  const config = await pushBlob(client, ref, OCI_EMPTY_CONFIG, options);
  const layer = await pushBlob(client, ref, bundle, options);
  const annotations = {
    [SIGSTORE_BUNDLE_CONTENT_ANNOTATION]: SIGSTORE_BUNDLE_CONTENT_DSSE,
    [SIGSTORE_BUNDLE_PREDICATE_TYPE_ANNOTATION]: options.predicateType,
    [OCI_CREATED_ANNOTATION]: options.created.toISOString().replace(/\.\d{3}Z$/, "Z"),
  };
  const manifest = new TextEncoder().encode(JSON.stringify({
    schemaVersion: 2,
    mediaType: OCI_MANIFEST,
    config: {
      mediaType: OCI_EMPTY_MEDIA_TYPE,
      size: config.size,
      digest: config.digest,
      artifactType: SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
    },
    layers: [{ mediaType: SIGSTORE_BUNDLE_V03_MEDIA_TYPE, size: layer.size, digest: layer.digest }],
    annotations,
    subject: { mediaType: subject.mediaType, size: subject.size, digest: subject.digest },
    artifactType: SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
  }));
  const pushed = await pushManifest(
    client,
    ref,
    await computeDigest(manifest),
    { bytes: manifest, mediaType: OCI_MANIFEST },
    options,
  );
  if (
    pushed.ociSubject === subject.digest ||
    await hasReferrersApi(client, ref, subject.digest, options)
  ) {
    return { manifestDigest: pushed.digest, listedBy: "referrers-api" };
  }
  const fallbackTag = referrersFallbackTag(subject.digest);
  await addToFallbackIndex(client, ref, fallbackTag, {
    mediaType: OCI_MANIFEST,
    size: pushed.size,
    digest: pushed.digest,
    artifactType: SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
    annotations,
  }, { ...options, action, what });
  return { manifestDigest: pushed.digest, listedBy: "fallback-tag", fallbackTag };
}

async function addToFallbackIndex(
  client: RegistryClient,
  ref: ImageReference,
  tag: string,
  descriptor: LayerDescriptor,
  options: RequestOptions & { action: string; what: string },
): Promise<void> {
  const existing = await getTaggedManifest(client, ref, tag, options);
  let manifests: LayerDescriptor[] = [];
  let extra: Record<string, unknown> = {};
  if (existing) {
    const index = parseObject(existing.bytes);
    const found = index?.manifests;
    if (
      index === undefined || existing.mediaType !== OCI_INDEX || index.schemaVersion !== 2 ||
      !Array.isArray(found) || !found.every(isDescriptor)
    ) {
      refuse(
        ref,
        options.action,
        options.what,
        `the referrers fallback tag ${tag} holds something else than an OCI image index`,
      );
    }
    if (found.some((d) => d.digest === descriptor.digest)) return;
    manifests = found;
    // Keep what else the index says (its own annotations, say); rewrite only the list.
    const { schemaVersion: _v, mediaType: _m, manifests: _l, ...rest } = index;
    extra = rest;
  }
  if (manifests.length >= MAX_FALLBACK_REFERRERS) {
    refuse(ref, options.action, options.what, `${tag} lists ${manifests.length} referrers already`);
  }
  manifests = [...manifests, descriptor].sort((a, b) =>
    a.digest < b.digest ? -1 : a.digest > b.digest ? 1 : 0
  );
  const bytes = new TextEncoder().encode(
    JSON.stringify({ schemaVersion: 2, mediaType: OCI_INDEX, manifests, ...extra }),
  );
  await pushManifest(client, ref, tag, { bytes, mediaType: OCI_INDEX }, options);
}
