/**
 * toolkit's real test environment: etcd and kube-apiserver (and kube-controller-manager), the
 * distribution registry and go-containerregistry's registry with the OCI referrers API, gpg,
 * skopeo and cosign, Gitea, Tekton Triggers' sink, interceptors and evaluators, and Tekton
 * Pipelines' validation, TaskRun resolution and pod builder, started on
 * free 127.0.0.1 ports and stopped by process id.
 * `tests/env/provision.sh` finds or builds the binaries.
 *
 * @module
 */
export * from "./cluster.ts";
export * from "./cosign.ts";
export * from "./gpg.ts";
export * from "./image.ts";
export * from "./gitea.ts";
export * from "./tekton_triggers.ts";
export * from "./tekton_pipeline.ts";
export * from "./registry.ts";
export * from "./tools.ts";
export * from "./pki.ts";
export * from "./kubelet.ts";
export {
  freePort,
  onInterrupt,
  run,
  runOk,
  startProcess,
  waitFor,
  webhookReady,
} from "./process.ts";
export type { ManagedProcess } from "./process.ts";
