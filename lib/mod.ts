/**
 * The toolkit library: what the CLI and the webhook share. `cli/` and `webhook/` import
 * `lib/` only through this module and the `mod.ts` of its folders.
 *
 * @module
 */
export * from "./errors.ts";
export * from "./file_write.ts";
export * from "./yaml.ts";
export * from "./version.ts";
export * from "./quote.ts";
export * from "./base64.ts";
export * from "./json_shape.ts";
export * from "./image/mod.ts";
export * from "./lookaside/mod.ts";
export * from "./policy/mod.ts";
export * from "./vault/mod.ts";
export * from "./signature/mod.ts";
export * from "./signing/mod.ts";
/** Sigstore (cosign) verification: PEM keys, keyless identities (the verifier itself on demand). */
export * as sigstore from "./sigstore/mod.ts";
export * from "./registry/mod.ts";
/** The Kubernetes client the CLI uses (kubeconfig, REST, apply). */
export * as kube from "./kube/mod.ts";
/** The admission decision the webhook and `image-security check` share. */
export * as admission from "./admission/mod.ts";
/** The manifests and steps of `image-security enable`. */
export * as install from "./install/mod.ts";
/** Git hosts: repository URLs, flavours, default branch, files and push webhooks. */
export * as githost from "./githost/mod.ts";
/** Tekton: served versions, template pipelines, triggers, the EventListener, PipelineRuns. */
export * as tekton from "./tekton/mod.ts";
/** Jenkins: the webhook endpoints of its git-host plugins. */
export * as jenkins from "./jenkins/mod.ts";
/** OpenShift: SCCs, Jenkins pipeline BuildConfigs, Templates. */
export * as openshift from "./openshift/mod.ts";
