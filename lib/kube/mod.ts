/**
 * The one Kubernetes layer of toolkit, used by the CLI, `lib/install` and the webhook:
 *
 * - where to connect: kubeconfig files and context resolution the way kubectl does it
 *   (`kubeconfig.ts`), or the Pod's ServiceAccount in-cluster (`in_cluster.ts`);
 * - how requests travel and authenticate (`transport.ts`: Deno `fetch`, whose answers stream,
 *   or `@kubernetes/client-node` in `client_node_transport.ts` for what `fetch` cannot do);
 *   the credentials of a request are read in one place (`auth.ts`: exec plugins, OIDC, token
 *   files re-read as they rotate, client certificates, `insecure-skip-tls-verify`, proxies);
 * - the client (`client.ts`): typed errors (`errors.ts`), JSON requests, answers left unread
 *   for watches, optional throttling;
 * - the resource table (`resources.ts`): every resource toolkit reads or writes, and its REST
 *   path; API discovery (`discovery.ts`): served group versions and resources, the newest
 *   served version from a preference list, OpenShift detection;
 * - list+watch with a local copy (`reflector.ts`) and Events (`events.ts`);
 * - idempotent writes (`apply.ts`): server-side apply as field manager `toolkit`, reporting
 *   created / updated / unchanged; copying objects across namespaces (`copy.ts`); editing the
 *   namespace of a kubeconfig context (`kubeconfig_edit.ts`).
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
export * from "./in_cluster.ts";
export * from "./client.ts";
export * from "./discovery.ts";
export * from "./reflector.ts";
export * from "./events.ts";
export * from "./apply.ts";
export * from "./copy.ts";
