/**
 * toolkit's real test environment: etcd and kube-apiserver, the distribution registry, gpg
 * and skopeo, started on free 127.0.0.1 ports and stopped by process id.
 *
 * @module
 */
export * from "./registry.ts";
export * from "./tools.ts";
export { freePort, run, runOk, startProcess, waitFor } from "./process.ts";
export type { ManagedProcess } from "./process.ts";
export * from "./pki.ts";
