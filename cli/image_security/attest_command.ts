/**
 * `toolkit image-security attest` as `--help` and completion know it: usage, help text and flags.
 * Its implementation, `attest.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { OUTPUT, REGISTRY_FLAGS, SIGNING_PASSPHRASE_FILE, signingKeySources } from "../flags.ts";

/** `image-security attest`. */
export const ATTEST = defineCommand({
  usage: "attest <image>",
  describe: "Sign a statement about the image's digest (an in-toto attestation) and store it",
  examples: [
    [
      "image-security attest quay.io/team/app:1 --predicate provenance.json --type slsaprovenance1 --key cosign.key",
      "A cosign v3 bundle (OCI referrer); cosign verify-attestation --type slsaprovenance1 verifies it",
    ],
    [
      "image-security attest quay.io/team/app:1 --predicate sbom.json --type spdxjson --key cosign.key --format cosign",
      "cosign's legacy sha256-<hex>.att tag",
    ],
    [
      "image-security attest quay.io/team/app:1 --predicate p.json --type https://example.com/review/v1 --key ci.key.asc",
      "An OpenPGP key (toolkit's simple-signing keys): the .att tag, verified by toolkit only",
    ],
    [
      "image-security attest quay.io/team/app:1 --predicate provenance.json --type slsaprovenance1 --key cosign.key --recursive",
      "A multi-platform image: its index and every platform manifest it lists, each its own statement",
    ],
  ],
  positionals: { image: { type: "string", required: true, describe: "The image reference" } },
  flags: {
    predicate: {
      type: "string",
      describe:
        "The predicate file: JSON (for --type custom, any text, wrapped as cosign wraps it)",
    },
    type: {
      type: "string",
      describe:
        "The predicate type: a URI, or one of cosign's names slsaprovenance1, slsaprovenance02, slsaprovenance (v0.2), link, spdx, spdxjson, cyclonedx, vuln, openvex, custom (default: custom; slsaprovenance1 with --build-*)",
    },
    key: {
      type: "string",
      describe: "Private key file: cosign's (cosign.key) or armoured OpenPGP",
    },
    ...signingKeySources("the vault, key, API key, fingerprint and builder id"),
    ...SIGNING_PASSPHRASE_FILE,
    format: {
      type: "string",
      choices: ["cosign", "bundle"],
      describe:
        "bundle: a sigstore bundle as an OCI referrer, as cosign v3 (cosign keys only); cosign: cosign's sha256-<hex>.att tag (default: bundle for cosign keys, cosign for OpenPGP keys). Keyed, no transparency log",
    },
    digest: {
      type: "string",
      describe:
        "The digest attested (sha256:…; Tekton's IMAGE_DIGEST): the image's tag must serve it",
    },
    recursive: {
      type: "boolean",
      describe:
        "When the image is a multi-platform index, also attest every platform manifest it lists (as cosign attest --recursive; BuildKit attestation manifests are left out): the same predicate, each statement's subject the platform's digest, in the same format",
    },
    "build-repository": {
      type: "string",
      describe:
        "SLSA provenance of toolkit's pipeline instead of --predicate: the git repository URL the PipelineRun got",
    },
    "build-revision": {
      type: "string",
      describe: "Provenance: the revision the PipelineRun got (a branch or a commit)",
    },
    "build-commit": {
      type: "string",
      describe: "Provenance: the commit built, full hash (default: --build-revision)",
    },
    "build-pipeline": { type: "string", describe: "Provenance: the Pipeline's name" },
    "build-task": {
      type: "string",
      describe: "Provenance: the pipeline task that built and pushed the image",
    },
    "build-invocation-id": {
      type: "string",
      describe: "Provenance: the PipelineRun's uid",
    },
    "build-started-on": {
      type: "string",
      describe: "Provenance: when the run started (RFC 3339; empty: left out)",
    },
    "build-finished-on": {
      type: "string",
      describe: "Provenance: when the build finished (RFC 3339; default: now)",
    },
    "build-required": {
      type: "boolean",
      describe:
        "Fail when the --build-* flags are all empty (the Task's PROVENANCE_REQUIRED); without it, all empty means no provenance is written, and the step says so",
    },
    "builder-id": {
      type: "string",
      describe:
        "Provenance: runDetails.builder.id (default: the signing Secret's builder-id, from setup-signing)",
    },
    ...REGISTRY_FLAGS,
    "registry-secret-dir": {
      type: "string",
      describe:
        "A registry Secret mounted as files (.dockerconfigjson, .dockercfg, or REGISTRY_USER and REGISTRY_PASSWORD), instead of --creds/--authfile",
    },
    "store-file": {
      type: "string",
      describe: "Also write where the attestation was stored to this file (a Tekton result)",
    },
    ...OUTPUT,
  },
});
