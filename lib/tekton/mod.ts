/**
 * Tekton for `toolkit pipeline --tekton`: the versions the cluster serves, the repository's
 * runtime, the template pipelines and their parameters, copying a pipeline and its Tasks, the
 * Triggers objects that start it on a push to one branch of a repository (for every git-host
 * flavour), the EventListener's account and exposure, waiting for it, starting a PipelineRun, and
 * the signing Task `toolkit-image-sign` with its place in a pipeline.
 *
 * ```ts
 * import { buildTriggerObjects, upsertTrigger, webhookSecret } from "./mod.ts";
 *
 * const objects = buildTriggerObjects({
 *   pipelineName: "demo-app",
 *   namespace: "dev",
 *   flavour: "github",
 *   repoPath: "octo-org/demo-app",
 *   branch: "main",
 *   secretName: "demo-app-webhook",
 *   secretKey: "secret",
 *   triggersApiVersion: "triggers.tekton.dev/v1beta1",
 *   pipelinesApiVersion: "tekton.dev/v1",
 * });
 * const secret = webhookSecret({
 *   name: "demo-app-webhook",
 *   namespace: "dev",
 *   key: "secret",
 *   value: crypto.randomUUID(),
 *   pipelineName: "demo-app",
 * });
 * const listener = upsertTrigger(undefined, objects.trigger, {
 *   namespace: "dev",
 *   triggersApiVersion: "triggers.tekton.dev/v1beta1",
 *   replacing: objects.supersedes,
 * });
 * ```
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
export * from "./cel_string.ts";
export * from "./trigger_flavours.ts";
export * from "./triggers.ts";
export * from "./sign_task.ts";
export * from "./signing_step.ts";
