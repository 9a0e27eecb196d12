/**
 * The names cosign and sigstore give to what they store in a registry, shared by the code that
 * writes cosign signatures and the code that reads them: media types, annotation keys, the
 * in-toto and DSSE types of a cosign v3 bundle, and the tags of both storage formats.
 *
 * - Legacy format (cosign ≤ v2, v3 with `--new-bundle-format=false`): the tag
 *   `sha256-<hex>.sig` holds an OCI image manifest whose layers of type
 *   {@link COSIGN_SIMPLESIGNING_MEDIA_TYPE} carry the payload, each with its signature in the
 *   {@link COSIGN_SIGNATURE_ANNOTATION} annotation.
 * - Bundle format (cosign v3 default): an OCI 1.1 referrer manifest (artifactType
 *   {@link SIGSTORE_BUNDLE_V03_MEDIA_TYPE}, config {@link OCI_EMPTY_MEDIA_TYPE}, one layer holding
 *   the sigstore bundle, `subject` = the image), found through `GET /v2/<name>/referrers/<digest>`
 *   or, where the registry has no referrers API, through the index at the tag `sha256-<hex>`.
 *
 * Sources: cosign v3.1.3 `pkg/oci/static/signature.go`, `pkg/oci/remote/write.go`,
 * `pkg/types/media.go`, `pkg/types/predicate.go`, `specs/SIGNATURE_SPEC.md`; go-containerregistry
 * v0.22.1 `pkg/v1/remote/referrers.go` (the fallback tag); the OCI image spec v1.1.
 *
 * @module
 */

/** The PEM label of a cosign public key (PKIX SubjectPublicKeyInfo): `cosign.pub`. */
export const PUBLIC_KEY_PEM_LABEL = "PUBLIC KEY";

/** The media type of a legacy cosign signature layer (the blob is the payload). */
export const COSIGN_SIMPLESIGNING_MEDIA_TYPE = "application/vnd.dev.cosign.simplesigning.v1+json";
/** `critical.type` of a legacy cosign payload. */
export const COSIGN_PAYLOAD_TYPE = "cosign container image signature";

/** Layer annotation: the base64 signature (ASN.1 DER for ECDSA) over the layer's payload. */
export const COSIGN_SIGNATURE_ANNOTATION = "dev.cosignproject.cosign/signature";
/** Layer annotation (keyless): the PEM signing certificate. */
export const COSIGN_CERTIFICATE_ANNOTATION = "dev.sigstore.cosign/certificate";
/** Layer annotation (keyless): the PEM certificate chain up to the root. */
export const COSIGN_CHAIN_ANNOTATION = "dev.sigstore.cosign/chain";
/** Layer annotation: the Rekor bundle (signed entry timestamp) as JSON. */
export const COSIGN_BUNDLE_ANNOTATION = "dev.sigstore.cosign/bundle";
/** Layer annotation: an RFC 3161 timestamp as JSON. */
export const COSIGN_RFC3161_TIMESTAMP_ANNOTATION = "dev.sigstore.cosign/rfc3161timestamp";

/** The media type (and the referrer's `artifactType`) of a sigstore bundle v0.3. */
export const SIGSTORE_BUNDLE_V03_MEDIA_TYPE = "application/vnd.dev.sigstore.bundle.v0.3+json";
/** Referrer manifest annotation: what the bundle holds (`dsse-envelope` for `cosign sign`). */
export const SIGSTORE_BUNDLE_CONTENT_ANNOTATION = "dev.sigstore.bundle.content";
/** The value of {@link SIGSTORE_BUNDLE_CONTENT_ANNOTATION} for a DSSE envelope. */
export const SIGSTORE_BUNDLE_CONTENT_DSSE = "dsse-envelope";
/** Referrer manifest annotation: the in-toto predicate type of the bundle's statement. */
export const SIGSTORE_BUNDLE_PREDICATE_TYPE_ANNOTATION = "dev.sigstore.bundle.predicateType";
/** Referrer manifest annotation: when it was made (RFC 3339, UTC, seconds). */
export const OCI_CREATED_ANNOTATION = "org.opencontainers.image.created";

/** The predicate type of the in-toto statement `cosign sign` makes (the predicate is `{}`). */
export const COSIGN_SIGN_PREDICATE_TYPE = "https://sigstore.dev/cosign/sign/v1";
/** The DSSE payload type of an in-toto statement. */
export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";
/** The `_type` of an in-toto statement v1. */
export const IN_TOTO_STATEMENT_V1 = "https://in-toto.io/Statement/v1";

/** The config media type of an OCI 1.1 artifact without a config. */
export const OCI_EMPTY_MEDIA_TYPE = "application/vnd.oci.empty.v1+json";
/** The bytes of the empty config: `{}`. */
export const OCI_EMPTY_CONFIG: Uint8Array = new TextEncoder().encode("{}");
/** The digest of {@link OCI_EMPTY_CONFIG}. */
export const OCI_EMPTY_CONFIG_DIGEST =
  "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a";

const DIGEST = /^([a-z0-9]+(?:[+._-][a-z0-9]+)*):([a-f0-9]{32,})$/;

function digestTagBase(digest: string): string {
  const match = DIGEST.exec(digest);
  if (!match) throw new TypeError(`not a manifest digest: ${JSON.stringify(digest)}`);
  return `${match[1]}-${match[2]}`;
}

/** The tag of the legacy signature manifest of `digest`: `sha256:<hex>` → `sha256-<hex>.sig`. */
export function cosignSignatureTag(digest: string): string {
  return `${digestTagBase(digest)}.sig`;
}

/** The tag of the legacy attestation manifest of `digest`: `sha256:<hex>` → `sha256-<hex>.att`. */
export function cosignAttestationTag(digest: string): string {
  return `${digestTagBase(digest)}.att`;
}

/** The media type of a legacy attestation layer (`.att`): its blob is a DSSE envelope. */
export const DSSE_ENVELOPE_MEDIA_TYPE = "application/vnd.dsse.envelope.v1+json";

/** The annotation of a legacy attestation layer naming its statement's predicate type. */
export const COSIGN_PREDICATE_TYPE_ANNOTATION = "predicateType";

/**
 * The OCI 1.1 referrers fallback tag of `digest` (`sha256:<hex>` → `sha256-<hex>`): an image
 * index of the referrers, kept by the writer where the registry has no referrers API.
 */
export function referrersFallbackTag(digest: string): string {
  return digestTagBase(digest);
}
