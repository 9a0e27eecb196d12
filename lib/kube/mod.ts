/**
 * Kubernetes access for toolkit: kubeconfig loading and context resolution the way kubectl
 * does it, a small REST client (Deno `fetch`, or `@kubernetes/client-node` for exec plugins
 * and auth providers), OpenShift detection by API discovery, idempotent writes that report
 * created / updated / unchanged, copying objects across namespaces, and editing the namespace
 * of a kubeconfig context while keeping the file intact.
 *
 * ```ts
 * import { applyObject, CONFIG_MAPS, connectCluster } from "./mod.ts";
 *
 * using client = await connectCluster({ env: { KUBECONFIG: "/tmp/kubeconfig" } });
 * const result = await applyObject(client, CONFIG_MAPS, {
 *   metadata: { name: "demo", namespace: "dev" },
 *   data: { a: "1" },
 * });
 * result.outcome; // "created", then "unchanged" on the next run
 * ```
 *
 * @module
 */
export * from "./errors.ts";
export * from "./kubeconfig.ts";
export * from "./kubeconfig_edit.ts";
export * from "./resources.ts";
export * from "./transport.ts";
export * from "./client_node_transport.ts";
export * from "./in_cluster.ts";
export * from "./client.ts";
export * from "./discovery.ts";
export * from "./reflector.ts";
export * from "./events.ts";
export * from "./apply.ts";
export * from "./copy.ts";
