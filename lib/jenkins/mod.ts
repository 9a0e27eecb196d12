/**
 * Jenkins for `toolkit pipeline --jenkins` and `create-webhook`: where a git host's webhook must
 * point for each Jenkins plugin.
 *
 * @module
 */
export * from "./hook_url.ts";
