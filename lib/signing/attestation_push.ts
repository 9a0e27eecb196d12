/**
 * Storing attestations in a registry as cosign v3.1.3 stores them:
 *
 * - {@linkcode appendCosignAttestation}: cosign's legacy tag `sha256-<hex>.att`, an image
 *   manifest whose layers are the attestations of the image, one DSSE envelope (JSON) a layer of
 *   media type {@linkcode DSSE_ENVELOPE_MEDIA_TYPE}, annotated with its `predicateType` and the
 *   empty `dev.cosignproject.cosign/signature` (as `cosign attest --new-bundle-format=false`).
 *   A new attestation is one more layer; the layers there, other attesters' included, are kept,
 *   and the same envelope is not added twice.
 * - a sigstore bundle with a DSSE envelope is stored as an OCI referrer of the image exactly as
 *   a v3 signature bundle is: {@linkcode pushCosignBundle} with the statement's predicate type.
 *
 * Both read, change and write a tag, as cosign does: not for concurrent use on one image.
 *
 * @module
 */
import type { ImageReference } from "../image/mod.ts";
import type { RegistryClient, RequestOptions } from "../registry/mod.ts";
import { RegistryError } from "../registry/mod.ts";
import { COSIGN_SIGNATURE_ANNOTATION } from "../signature/mod.ts";
import { pushBlob } from "./registry_push.ts";
import { readLayersManifest, writeLayersManifest } from "./cosign_push.ts";

/** The media type of an `.att` layer: a DSSE envelope. */
export const DSSE_ENVELOPE_MEDIA_TYPE = "application/vnd.dsse.envelope.v1+json";
/** The `.att` layer annotation naming the statement's predicate type. */
export const PREDICATE_TYPE_ANNOTATION = "predicateType";
/** The most attestations kept under one `.att` tag. */
export const MAX_LEGACY_ATTESTATIONS = 1000;

/** The tag of the legacy attestation manifest of `digest`: `sha256-<hex>.att`. */
export function cosignAttestationTag(digest: string): string {
  const match = /^(sha256|sha384|sha512):([a-f0-9]{64,128})$/.exec(digest);
  if (!match) throw new TypeError(`not a manifest digest: ${JSON.stringify(digest)}`);
  return `${match[1]}-${match[2]}.att`;
}

/** What {@linkcode appendCosignAttestation} did. */
export interface AppendedAttestation {
  /** The tag: `sha256-<hex>.att`. */
  readonly tag: string;
  /** The digest of the attestation manifest now under the tag. */
  readonly manifestDigest: string;
  /** False when the same envelope was there already (nothing was written). */
  readonly added: boolean;
  /** Attestations under the tag now. */
  readonly attestations: number;
}

/**
 * Adds a DSSE envelope (its JSON bytes, `encodeEnvelope`) about `digest` to the
 * `sha256-<hex>.att` manifest in the repository of `ref`.
 */
export async function appendCosignAttestation(
  client: RegistryClient,
  ref: ImageReference,
  digest: string,
  envelope: Uint8Array,
  options: RequestOptions & { predicateType: string },
): Promise<AppendedAttestation> {
  const action = "store the attestation of";
  const tag = cosignAttestationTag(digest);
  const what = `${ref.domain}/${ref.path}@${digest}`;
  const existing = await readLayersManifest(client, ref, tag, {
    ...options,
    action,
    what,
    kind: "an attestation manifest",
  });
  const blob = await pushBlob(client, ref, envelope, options);
  const layers = existing.layers;
  if (layers.some((l) => l.digest === blob.digest && l.mediaType === DSSE_ENVELOPE_MEDIA_TYPE)) {
    return { tag, manifestDigest: existing.digest!, added: false, attestations: layers.length };
  }
  if (layers.length >= MAX_LEGACY_ATTESTATIONS) {
    throw new RegistryError(
      `Cannot ${action} "${what}": ${tag} holds ${layers.length} attestations already`,
      { registry: ref.domain, repository: ref.path },
    );
  }
  const all = [...layers, {
    mediaType: DSSE_ENVELOPE_MEDIA_TYPE,
    size: blob.size,
    digest: blob.digest,
    annotations: {
      [COSIGN_SIGNATURE_ANNOTATION]: "",
      [PREDICATE_TYPE_ANNOTATION]: options.predicateType,
    },
  }];
  const pushed = await writeLayersManifest(client, ref, tag, existing.mediaType, all, options);
  return { tag, manifestDigest: pushed.digest, added: true, attestations: all.length };
}
