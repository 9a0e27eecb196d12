/**
 * Where toolkit's own images are published (the release workflow checks these against what it
 * pushes): the webhook's, which `enable` and the chart deploy, and the CLI's, which the Tekton
 * Task `toolkit-image-sign` runs. Both carry toolkit's release signature, which the default
 * `toolkit-release` ClusterImagePolicy requires.
 *
 * @module
 */

/** The repository of the webhook's image. */
export const TOOLKIT_IMAGE_REPOSITORY = "ghcr.io/toolkit-dev/toolkit-webhook";

/**
 * The repository of the CLI's image (`cli/main.ts`, built by the Dockerfile's `cli` stage beside
 * the webhook's; the release workflow publishes and signs it).
 */
export const TOOLKIT_CLI_IMAGE_REPOSITORY = "ghcr.io/toolkit-dev/toolkit";

/** Both, for the policy and the lookaside store of toolkit's release signatures. */
export const TOOLKIT_IMAGE_REPOSITORIES: readonly string[] = [
  TOOLKIT_IMAGE_REPOSITORY,
  TOOLKIT_CLI_IMAGE_REPOSITORY,
];
