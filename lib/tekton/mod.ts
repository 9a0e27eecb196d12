/**
 * Tekton for `toolkit pipeline --tekton`: the versions the cluster serves, the repository's
 * runtime, the template pipelines and their parameters, copying a pipeline and its Tasks, the
 * EventListener's account and exposure, waiting for it, and starting a PipelineRun.
 *
 * @module
 */
export * from "./versions.ts";
export * from "./runtime.ts";
export * from "./templates.ts";
export * from "./copy.ts";
export * from "./access.ts";
export * from "./exposure.ts";
export * from "./wait.ts";
export * from "./run.ts";
