/**
 * Jenkins for `toolkit pipeline --jenkins` and `create-webhook`: where a git host's webhook must
 * point for each Jenkins plugin, the job's `config.xml`, and the REST calls that create it.
 *
 * @module
 */
export * from "./hook_url.ts";
export * from "./job_config.ts";
export * from "./client.ts";
