/**
 * OpenShift for `toolkit pipeline --jenkins`: SecurityContextConstraints, Jenkins pipeline
 * BuildConfigs and their webhooks, and processing Templates.
 *
 * @module
 */
export * from "./scc.ts";
export * from "./build_config.ts";
export * from "./template.ts";
