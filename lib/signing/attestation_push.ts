/**
 * Storing attestations in a registry as cosign v3.1.3 stores them:
 *
 * - {@linkcode appendCosignAttestation}: cosign's legacy tag `sha256-<hex>.att`, an image
 *   manifest whose layers are the attestations of the image, one DSSE envelope (JSON) a layer of
 *   media type {@linkcode DSSE_ENVELOPE_MEDIA_TYPE}, annotated with its `predicateType` and the
 *   empty `dev.cosignproject.cosign/signature` (as `cosign attest --new-bundle-format=false`).
 *   A new attestation is one more layer; the layers there, other attesters' included, are kept,
 *   and the same envelope is not added twice, nor (with `isSameAttestation`) the same statement
 *   signed again by the same key: a signature is not the same bytes twice, so a layer of the
 *   same predicate type whose size is within {@linkcode SAME_ENVELOPE_SIZE_SLACK} of the new
 *   envelope's is read (its own size, at most {@linkcode MAX_COMPARED_ENVELOPE_BYTES}) and
 *   asked about.
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
import {
  COSIGN_PREDICATE_TYPE_ANNOTATION,
  COSIGN_SIGNATURE_ANNOTATION,
  cosignAttestationTag,
  DSSE_ENVELOPE_MEDIA_TYPE,
} from "../signature/mod.ts";
import { pushBlob } from "./registry_push.ts";
import { readLayersManifest, writeLayersManifest } from "./cosign_push.ts";

/** The most attestations kept under one `.att` tag. */
export const MAX_LEGACY_ATTESTATIONS = 1000;

/**
 * How much the size of an envelope of the same statement may differ from the new one's (only
 * its signatures differ: an ECDSA DER signature is 70 to 72 bytes, an OpenPGP one varies too).
 */
export const SAME_ENVELOPE_SIZE_SLACK = 256;
/** The largest `.att` layer read to tell whether it holds the same statement. */
export const MAX_COMPARED_ENVELOPE_BYTES = 4 * 1024 * 1024;

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
  options: RequestOptions & {
    predicateType: string;
    /** Whether an existing envelope (its JSON bytes) is this signer's of the same statement. */
    isSameAttestation?: (envelope: Uint8Array) => Promise<boolean>;
  },
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
  const layers = existing.layers;
  const unchanged = {
    tag,
    manifestDigest: existing.digest!,
    added: false,
    attestations: layers.length,
  };
  const isSame = options.isSameAttestation;
  if (isSame !== undefined) {
    for (const old of layers) {
      if (
        old.mediaType !== DSSE_ENVELOPE_MEDIA_TYPE ||
        old.annotations?.[COSIGN_PREDICATE_TYPE_ANNOTATION] !== options.predicateType ||
        Math.abs(old.size - envelope.byteLength) > SAME_ENVELOPE_SIZE_SLACK ||
        old.size > MAX_COMPARED_ENVELOPE_BYTES
      ) continue;
      const bytes = await client.getBlob(ref, old.digest, { ...options, maxBytes: old.size });
      if (await isSame(bytes)) return unchanged;
    }
  }
  const blob = await pushBlob(client, ref, envelope, options);
  if (layers.some((l) => l.digest === blob.digest && l.mediaType === DSSE_ENVELOPE_MEDIA_TYPE)) {
    return unchanged;
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
      [COSIGN_PREDICATE_TYPE_ANNOTATION]: options.predicateType,
    },
  }];
  const pushed = await writeLayersManifest(client, ref, tag, existing.mediaType, all, options);
  return { tag, manifestDigest: pushed.digest, added: true, attestations: all.length };
}
