/**
 * Test helpers for cosign signatures in registries:
 *
 * - {@linkcode pushCosignSignatures} writes signatures as cosign lays them out (the legacy
 *   `sha256-<hex>.sig` manifest; v3 bundle referrers, with the `sha256-<hex>` fallback index
 *   where the registry has no referrers API) through the distribution API of a real registry;
 * - {@linkcode serveReferrersRegistry} is a loopback stand-in answering the reads of
 *   `readCosignSignatures` from memory, for what a real registry does not do: referrers indexes
 *   that list other subjects, thousands of referrers, paginated answers. It follows the
 *   distribution spec's `GET /v2/<name>/manifests/<ref>`, `/blobs/<digest>` and OCI 1.1's
 *   `/referrers/<digest>` (an image index of descriptors with `artifactType` and annotations).
 *
 * @module
 */
import {
  COSIGN_SIGN_PREDICATE_TYPE,
  COSIGN_SIMPLESIGNING_MEDIA_TYPE,
  cosignAttestationTag,
  cosignSignatureTag,
  DSSE_ENVELOPE_MEDIA_TYPE,
  OCI_EMPTY_CONFIG,
  OCI_EMPTY_CONFIG_DIGEST,
  OCI_EMPTY_MEDIA_TYPE,
  referrersFallbackTag,
  SIGSTORE_BUNDLE_CONTENT_ANNOTATION,
  SIGSTORE_BUNDLE_CONTENT_DSSE,
  SIGSTORE_BUNDLE_PREDICATE_TYPE_ANNOTATION,
  SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
} from "../../lib/signature/cosign_media_types.ts";
import type { StoredCosignSignature } from "../../lib/registry/mod.ts";
import { computeDigest } from "../../lib/registry/digest.ts";
import { OCI_INDEX, OCI_MANIFEST } from "../../lib/registry/media_types.ts";
import { serve, type TestServer } from "./loopback_server.ts";
import { mapLimit } from "../../lib/map_limit.ts";

const encoder = new TextEncoder();
const OCI_CONFIG = "application/vnd.oci.image.config.v1+json";

/** A manifest or blob to store, by digest (and by tag for manifests that have one). */
export interface StoredObject {
  readonly bytes: Uint8Array;
  readonly mediaType?: string;
  readonly tag?: string;
}

/** What cosign writes for the signatures of `digest`: blobs, then manifests (tags last). */
export interface CosignLayout {
  readonly blobs: Map<string, Uint8Array>;
  readonly manifests: Map<string, StoredObject>;
}

/** How {@linkcode cosignLayout} lays the signatures out. */
export interface CosignLayoutOptions {
  /** Also write the referrers fallback index (a registry without the referrers API). */
  readonly fallbackTag?: boolean;
  /** Write the fallback index under this digest's tag instead (an index that lies). */
  readonly fallbackTagFor?: string;
  /** The subject descriptor's size and media type. */
  readonly subjectSize?: number;
  readonly subjectMediaType?: string;
  /** Per bundle, annotations of the referrer manifest that make each one distinct. */
  readonly distinct?: boolean;
  /**
   * Lay them out as cosign's attestations of this predicate type instead: the legacy ones as
   * DSSE envelope layers of the `.att` manifest (annotation `predicateType`), the bundles
   * announcing it.
   */
  readonly attestationType?: string;
}

/**
 * The objects cosign writes for these signatures of `digest`: the legacy ones as the layers of
 * one `.sig` manifest, each bundle as a referrer manifest; with `fallbackTag`, also the
 * `sha256-<hex>` index of the referrers (as cosign writes it on a registry without the API).
 */
export async function cosignLayout(
  digest: string,
  signatures: readonly StoredCosignSignature[],
  options: CosignLayoutOptions = {},
): Promise<CosignLayout> {
  const blobs = new Map<string, Uint8Array>();
  const manifests = new Map<string, StoredObject>();
  const blob = async (bytes: Uint8Array) => {
    const d = await computeDigest(bytes);
    blobs.set(d, bytes);
    return { digest: d, size: bytes.byteLength };
  };
  const legacy = signatures.filter((s) => s.format === "legacy");
  if (legacy.length > 0) {
    const config = encoder.encode(JSON.stringify({ architecture: "", os: "", rootfs: {} }));
    const layers = [];
    for (const s of legacy) {
      layers.push({
        mediaType: options.attestationType
          ? DSSE_ENVELOPE_MEDIA_TYPE
          : COSIGN_SIMPLESIGNING_MEDIA_TYPE,
        ...await blob(s.payload),
        annotations: options.attestationType
          ? { predicateType: options.attestationType, ...s.annotations }
          : s.annotations,
      });
    }
    const manifest = encoder.encode(JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      config: { mediaType: OCI_CONFIG, ...await blob(config) },
      layers,
    }));
    manifests.set(await computeDigest(manifest), {
      bytes: manifest,
      mediaType: OCI_MANIFEST,
      tag: options.attestationType ? cosignAttestationTag(digest) : cosignSignatureTag(digest),
    });
  }
  const referrers = [];
  for (const [index, s] of signatures.entries()) {
    if (s.format !== "bundle") continue;
    blobs.set(OCI_EMPTY_CONFIG_DIGEST, OCI_EMPTY_CONFIG);
    const annotations = {
      [SIGSTORE_BUNDLE_CONTENT_ANNOTATION]: SIGSTORE_BUNDLE_CONTENT_DSSE,
      [SIGSTORE_BUNDLE_PREDICATE_TYPE_ANNOTATION]: options.attestationType ??
        COSIGN_SIGN_PREDICATE_TYPE,
      ...(options.distinct ? { "org.opencontainers.image.created": `n${index}` } : {}),
    };
    const manifest = encoder.encode(JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      artifactType: SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
      config: { mediaType: OCI_EMPTY_MEDIA_TYPE, digest: OCI_EMPTY_CONFIG_DIGEST, size: 2 },
      layers: [{ mediaType: SIGSTORE_BUNDLE_V03_MEDIA_TYPE, ...await blob(s.bundle) }],
      subject: {
        mediaType: options.subjectMediaType ?? OCI_MANIFEST,
        digest,
        size: options.subjectSize ?? 0,
      },
      annotations,
    }));
    const manifestDigest = await computeDigest(manifest);
    manifests.set(manifestDigest, { bytes: manifest, mediaType: OCI_MANIFEST });
    referrers.push({
      mediaType: OCI_MANIFEST,
      digest: manifestDigest,
      size: manifest.byteLength,
      artifactType: SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
      annotations,
    });
  }
  if ((options.fallbackTag || options.fallbackTagFor) && referrers.length > 0) {
    const index = encoder.encode(JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_INDEX,
      manifests: referrers,
    }));
    manifests.set(await computeDigest(index), {
      bytes: index,
      mediaType: OCI_INDEX,
      tag: referrersFallbackTag(options.fallbackTagFor ?? digest),
    });
  }
  return { blobs, manifests };
}

/**
 * Pushes cosign's objects for `digest` in the repository `repo` of the registry at
 * `http://host` (anonymous, as the test registries run): see {@linkcode pushLayout}.
 */
export async function pushCosignSignatures(
  host: string,
  repo: string,
  digest: string,
  signatures: readonly StoredCosignSignature[],
  options: CosignLayoutOptions = {},
): Promise<CosignLayout> {
  const layout = await cosignLayout(digest, signatures, options);
  await pushLayout(host, repo, layout);
  return layout;
}

/**
 * Pushes a layout to the repository `repo` of the registry at `http://host`: blobs in one
 * piece, then the manifests (those without a tag by digest, eight at a time, then the tagged
 * ones, which may list them).
 */
export async function pushLayout(host: string, repo: string, layout: CosignLayout): Promise<void> {
  for (const [d, bytes] of layout.blobs) {
    // POST opens an upload session, PUT with the digest completes it in one piece.
    const start = await fetch(`http://${host}/v2/${repo}/blobs/uploads/`, { method: "POST" });
    await start.body?.cancel();
    const location = start.headers.get("location");
    if (start.status !== 202 || location === null) {
      throw new Error(`blob upload ${d}: HTTP ${start.status}`);
    }
    const url = new URL(location, `http://${host}`);
    url.searchParams.set("digest", d);
    const response = await fetch(url, {
      method: "PUT",
      headers: { "content-type": "application/octet-stream" },
      body: bytes as BodyInit,
    });
    await response.body?.cancel();
    if (response.status !== 201) throw new Error(`blob upload ${d}: HTTP ${response.status}`);
  }
  const put = async ([d, object]: [string, StoredObject]) => {
    const response = await fetch(`http://${host}/v2/${repo}/manifests/${object.tag ?? d}`, {
      method: "PUT",
      headers: { "content-type": object.mediaType ?? OCI_MANIFEST },
      body: object.bytes as BodyInit,
    });
    await response.body?.cancel();
    if (response.status !== 201) {
      throw new Error(`manifest ${object.tag ?? d}: HTTP ${response.status}`);
    }
  };
  const entries = [...layout.manifests];
  await mapLimit(entries.filter(([, o]) => o.tag === undefined), 8, put);
  for (const entry of entries.filter(([, o]) => o.tag !== undefined)) await put(entry);
}

/** How the stand-in answers the referrers API. */
export interface ReferrersRegistryOptions {
  /** Objects to serve (one repository: any name is answered the same). */
  readonly layout: CosignLayout;
  /**
   * The referrers answer for a digest: descriptors to list (default: the layout's referrer
   * manifests whose subject is that digest, with the config media type as `artifactType`, as
   * go-containerregistry reports it); `"unsupported"` answers 404.
   */
  readonly referrers?: "unsupported" | ((digest: string) => unknown[]);
  /** Descriptors per page; more follow a `Link: <…>; rel="next"` header. */
  readonly pageSize?: number;
  /**
   * Applies the `?artifactType=` filter (and says so with `OCI-Filters-Applied`), as a registry
   * of the distribution spec 1.1 may; without it the filter is ignored, as
   * go-containerregistry's registry does.
   */
  readonly applyFilter?: boolean;
  /** The body of every referrers answer instead (a hostile registry's). */
  readonly referrersBody?: () => BodyInit;
}

/** Starts the stand-in on a free loopback port. */
export function serveReferrersRegistry(options: ReferrersRegistryOptions): TestServer {
  // Looked up on each request: a test may fill the layout once it knows the server's host.
  const byTag = (tag: string) =>
    [...options.layout.manifests.values()].find((object) => object.tag === tag);
  const json = (value: unknown, status = 200, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(value), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });
  const notFound = () => json({ errors: [{ code: "MANIFEST_UNKNOWN", message: "unknown" }] }, 404);
  function defaultReferrers(digest: string): unknown[] {
    const out = [];
    for (const [d, object] of options.layout.manifests) {
      const doc = JSON.parse(new TextDecoder().decode(object.bytes));
      if (doc.subject?.digest !== digest) continue;
      out.push({
        mediaType: object.mediaType,
        digest: d,
        size: object.bytes.byteLength,
        artifactType: doc.config?.mediaType,
        ...(doc.annotations ? { annotations: doc.annotations } : {}),
      });
    }
    return out;
  }
  return serve(async (request) => {
    const url = new URL(request.url);
    const parts = url.pathname.split("/");
    const kind = parts[parts.length - 2];
    const reference = decodeURIComponent(parts[parts.length - 1]!);
    if (url.pathname === "/v2/") return json({});
    if (kind === "manifests") {
      const object = options.layout.manifests.get(reference) ?? byTag(reference);
      if (object === undefined) return notFound();
      return new Response(object.bytes as BodyInit, {
        headers: {
          "content-type": object.mediaType ?? OCI_MANIFEST,
          "docker-content-digest": await computeDigest(object.bytes),
        },
      });
    }
    if (kind === "blobs") {
      const bytes = options.layout.blobs.get(reference);
      return bytes === undefined
        ? json({ errors: [{ code: "BLOB_UNKNOWN" }] }, 404)
        : new Response(bytes as BodyInit);
    }
    if (kind === "referrers") {
      if (options.referrers === "unsupported") return json({}, 404);
      if (options.referrersBody) {
        return new Response(options.referrersBody(), {
          headers: { "content-type": OCI_INDEX },
        });
      }
      const listed = options.referrers ? options.referrers(reference) : defaultReferrers(reference);
      const wanted = url.searchParams.get("artifactType");
      const filtered = options.applyFilter === true && wanted !== null;
      const all = filtered
        ? listed.filter((d) => (d as { artifactType?: string }).artifactType === wanted)
        : listed;
      const applied: Record<string, string> = filtered
        ? { "oci-filters-applied": "artifactType" }
        : {};
      const pageSize = options.pageSize ?? all.length;
      const start = Number(url.searchParams.get("page") ?? "0");
      const page = all.slice(start, start + Math.max(pageSize, 1));
      const more = start + pageSize < all.length;
      return json(
        { schemaVersion: 2, mediaType: OCI_INDEX, manifests: page },
        200,
        {
          ...applied,
          ...(more ? { link: `<${url.pathname}?page=${start + pageSize}>; rel="next"` } : {}),
        },
      );
    }
    return json({}, 404);
  });
}

/** A descriptor of a referrer that is no signature (an SBOM), for indexes of many referrers. */
export function unrelatedReferrer(index: number, artifactType = OCI_EMPTY_MEDIA_TYPE): unknown {
  const hex = index.toString(16).padStart(64, "0");
  return {
    mediaType: OCI_MANIFEST,
    digest: `sha256:${hex}`,
    size: 500,
    artifactType,
    annotations: { "org.opencontainers.image.created": new Date(0).toISOString() },
  };
}

/** What junk referrers {@linkcode junkReferrers} makes. */
export type JunkKind =
  /** An artifact of another type (an SBOM): its descriptor says it is no signature. */
  | "other-type"
  /** The bundle's artifact type, with a layer of the bundle type holding garbage. */
  | "garbage-bundle"
  /** The bundle's artifact type, but no bundle layer (found once its manifest is read). */
  | "not-a-bundle";

/**
 * A layout of `count` junk referrers of `digest` of one kind, each distinct, for the attack of
 * issue #33 (referrers that are not signatures, pushed to a signed image). `created` is their
 * `org.opencontainers.image.created` annotation (default: now).
 */
export async function junkReferrers(
  digest: string,
  count: number,
  kind: JunkKind,
  options: { readonly created?: string; readonly subjectSize?: number } = {},
): Promise<CosignLayout> {
  const blobs = new Map<string, Uint8Array>([[OCI_EMPTY_CONFIG_DIGEST, OCI_EMPTY_CONFIG]]);
  const manifests = new Map<string, StoredObject>();
  const created = options.created ?? new Date().toISOString().replace(/\.\d+Z$/, "Z");
  for (let i = 0; i < count; i++) {
    const content = encoder.encode(JSON.stringify({ junk: i, kind }));
    const contentDigest = await computeDigest(content);
    blobs.set(contentDigest, content);
    const artifactType = kind === "other-type"
      ? "application/spdx+json"
      : SIGSTORE_BUNDLE_V03_MEDIA_TYPE;
    const layerType = kind === "garbage-bundle"
      ? SIGSTORE_BUNDLE_V03_MEDIA_TYPE
      : "application/spdx+json";
    const manifest = encoder.encode(JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      artifactType,
      config: { mediaType: OCI_EMPTY_MEDIA_TYPE, digest: OCI_EMPTY_CONFIG_DIGEST, size: 2 },
      layers: [{ mediaType: layerType, digest: contentDigest, size: content.byteLength }],
      subject: { mediaType: OCI_MANIFEST, digest, size: options.subjectSize ?? 0 },
      annotations: {
        "org.opencontainers.image.created": created,
        ...(kind === "other-type" ? {} : {
          [SIGSTORE_BUNDLE_CONTENT_ANNOTATION]: SIGSTORE_BUNDLE_CONTENT_DSSE,
          [SIGSTORE_BUNDLE_PREDICATE_TYPE_ANNOTATION]: COSIGN_SIGN_PREDICATE_TYPE,
        }),
      },
    }));
    manifests.set(await computeDigest(manifest), { bytes: manifest, mediaType: OCI_MANIFEST });
  }
  return { blobs, manifests };
}

/** The objects of both layouts in one (the second's win). */
export function mergeLayouts(a: CosignLayout, b: CosignLayout): CosignLayout {
  return {
    blobs: new Map([...a.blobs, ...b.blobs]),
    manifests: new Map([...a.manifests, ...b.manifests]),
  };
}
