/**
 * Kubernetes access for toolkit: kubeconfig loading and context resolution the way kubectl
 * does it, credentials as real kubeconfigs use them (exec plugins, OIDC, token files, client
 * certificates, `insecure-skip-tls-verify`, proxies: `auth.ts`), a small REST client (Deno
 * `fetch`, or `@kubernetes/client-node` for the rare context it does not handle), OpenShift
 * detection by API discovery, idempotent writes that report created / updated / unchanged, copying objects across namespaces, and editing the namespace
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
export * from "./auth_errors.ts";
export * from "./auth.ts";
export * from "./exec_credential.ts";
export * from "./oidc.ts";
export * from "./oidc_persist.ts";
export * from "./authenticated_http.ts";
export * from "./transport.ts";
export * from "./client_node_transport.ts";
export * from "./client.ts";
export * from "./apply.ts";
export * from "./copy.ts";
