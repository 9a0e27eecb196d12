/**
 * The platform manifests of a multi-platform image, read within bounds. An OCI image index or a
 * Docker manifest list names the manifests of its platforms (and may name further indexes); its
 * entries are counted, and the nesting of indexes, before any of them is fetched:
 *
 * - at most {@linkcode MAX_INDEX_MANIFESTS} entries in all, the nested indexes' included (an
 *   index over it is refused whole: nothing it lists is read);
 * - at most {@linkcode MAX_INDEX_NESTING} level of indexes inside the index (an index listing
 *   an index listing an index is refused);
 * - each index at most {@linkcode MAX_INDEX_BYTES}, its JSON values counted before it is parsed.
 *
 * BuildKit's attestation manifests (`vnd.docker.reference.type: attestation-manifest`, platform
 * `unknown/unknown`) are listed as such: they are not platforms.
 *
 * @module
 */
import { formatReference, type ImageReference, isDigest } from "../image/mod.ts";
import { ToolkitError } from "../errors.ts";
import { parseJsonWithin } from "../json_shape.ts";
import type { RegistryClient, RequestOptions } from "./client_types.ts";
import { isIndexMediaType, MANIFEST_JSON_LIMITS } from "./media_types.ts";

/** The most manifests one image's index lists, its nested indexes' entries included. */
export const MAX_INDEX_MANIFESTS = 64;

/** The most levels of indexes inside an image's index (1: an index of indexes of manifests). */
export const MAX_INDEX_NESTING = 1;

/** The largest index read (an entry is about 400 bytes: 64 of them are about 26 KiB). */
export const MAX_INDEX_BYTES = 128 * 1024;

/** One manifest an index lists. */
export interface PlatformManifest {
  readonly digest: string;
  readonly mediaType: string;
  /** Its size in bytes, as the index says (-1 when it does not). */
  readonly size: number;
  /** `os/architecture[/variant]`, when the index says; undefined when it does not. */
  readonly platform: string | undefined;
  /** A BuildKit attestation manifest (not a platform's image). */
  readonly attestation: boolean;
}

/** What the manifest of a digest is: an image, or an index of platform manifests. */
export type ImageManifestShape =
  | { readonly index: false; readonly mediaType: string }
  | {
    readonly index: true;
    readonly mediaType: string;
    /** The manifests listed, nested indexes replaced by what they list, in the index's order. */
    readonly manifests: readonly PlatformManifest[];
  };

/** An index over one of the bounds above: refused before any of its entries is read. */
export class ImageIndexBoundError extends ToolkitError {
  /** Which bound: entries, or nesting. */
  readonly bound: "manifests" | "nesting";
  readonly limit: number;

  /** Creates the error for the index of `image`. */
  constructor(image: string, bound: "manifests" | "nesting", limit: number, found: number) {
    super(
      bound === "manifests"
        ? `the image index ${image} lists ${found} manifests (its nested indexes' included); at most ${limit} are read`
        : `the image index ${image} nests indexes ${found} levels deep; at most ${limit} is read`,
    );
    this.name = "ImageIndexBoundError";
    this.bound = bound;
    this.limit = limit;
  }
}

/** An index whose content is not an index's (no manifest list, an entry without a digest). */
export class ImageIndexFormatError extends ToolkitError {
  constructor(image: string, problem: string) {
    super(`the image index ${image} cannot be read: ${problem}`);
    this.name = "ImageIndexFormatError";
  }
}

/** `linux/arm64/v8` from a descriptor's `platform`, or undefined. */
function platformName(raw: unknown): string | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const p = raw as Record<string, unknown>;
  if (typeof p.os !== "string" || typeof p.architecture !== "string") return undefined;
  const variant = typeof p.variant === "string" && p.variant !== "" ? `/${p.variant}` : "";
  return `${p.os}/${p.architecture}${variant}`;
}

/** The descriptors of an index's bytes, checked. */
function descriptorsOf(bytes: Uint8Array, image: string): PlatformManifest[] {
  let doc: unknown;
  try {
    doc = parseJsonWithin(bytes, MANIFEST_JSON_LIMITS, `the image index ${image}`);
  } catch (error) {
    throw new ImageIndexFormatError(image, error instanceof Error ? error.message : String(error));
  }
  const list = (doc as { manifests?: unknown } | null)?.manifests;
  if (!Array.isArray(list)) throw new ImageIndexFormatError(image, "it has no manifests list");
  if (list.length > MAX_INDEX_MANIFESTS) {
    throw new ImageIndexBoundError(image, "manifests", MAX_INDEX_MANIFESTS, list.length);
  }
  return list.map((entry, i) => {
    const d = (typeof entry === "object" && entry !== null ? entry : {}) as Record<
      string,
      unknown
    >;
    if (typeof d.digest !== "string" || !isDigest(d.digest)) {
      throw new ImageIndexFormatError(image, `manifests[${i}] has no valid digest`);
    }
    const annotations =
      (typeof d.annotations === "object" && d.annotations !== null ? d.annotations : {}) as Record<
        string,
        unknown
      >;
    return {
      digest: d.digest,
      mediaType: typeof d.mediaType === "string" ? d.mediaType : "",
      size: typeof d.size === "number" && Number.isSafeInteger(d.size) && d.size >= 0 ? d.size : -1,
      platform: platformName(d.platform),
      attestation: annotations["vnd.docker.reference.type"] === "attestation-manifest",
    };
  });
}

/**
 * Reads the manifest of `ref` (which names a digest) and, when it is an index, what it lists
 * (see the module's bounds). One GET for an image or an index; one more for each nested index.
 */
export async function readImageManifestShape(
  client: Pick<RegistryClient, "getManifest">,
  ref: ImageReference & { readonly digest: string },
  options: RequestOptions = {},
): Promise<ImageManifestShape> {
  const manifest = await client.getManifest(ref, { ...options, maxBytes: MAX_INDEX_BYTES });
  if (!isIndexMediaType(manifest.mediaType)) return { index: false, mediaType: manifest.mediaType };
  const image = formatReference(ref);
  const top = descriptorsOf(manifest.bytes, image);
  const manifests: PlatformManifest[] = [];
  let total = top.length;
  for (const entry of top) {
    if (!isIndexMediaType(entry.mediaType)) {
      manifests.push(entry);
      continue;
    }
    // Counted before it is read: its own entries are added to the total once known, and an
    // index inside it is one level too deep.
    const inner = await client.getManifest(
      { domain: ref.domain, path: ref.path, digest: entry.digest },
      { ...options, maxBytes: MAX_INDEX_BYTES },
    );
    const innerImage = `${image} (its index ${entry.digest})`;
    const innerEntries = descriptorsOf(inner.bytes, innerImage);
    total += innerEntries.length - 1;
    if (total > MAX_INDEX_MANIFESTS) {
      throw new ImageIndexBoundError(image, "manifests", MAX_INDEX_MANIFESTS, total);
    }
    const deeper = innerEntries.find((m) => isIndexMediaType(m.mediaType));
    if (deeper !== undefined) {
      throw new ImageIndexBoundError(image, "nesting", MAX_INDEX_NESTING, MAX_INDEX_NESTING + 1);
    }
    manifests.push(...innerEntries);
  }
  return { index: true, mediaType: manifest.mediaType, manifests };
}
