/**
 * Image signing set up for pipelines: the `image-signing` Secret that tells a pipeline which key in
 * which vault signs its images.
 *
 * @module
 */
export * from "./signing_secret.ts";
