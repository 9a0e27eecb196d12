/**
 * toolkit: supply-chain security and developer tooling for Kubernetes.
 *
 * This module is the public library API: image references, registry access, simple-signing
 * signatures and keys, the policy engine the admission webhook runs, and the Kubernetes
 * helpers the CLI uses.
 *
 * @example Print the version
 * ```ts
 * import { VERSION } from "./mod.ts";
 * console.log(VERSION);
 * ```
 *
 * @module
 */
export * from "./lib/mod.ts";
