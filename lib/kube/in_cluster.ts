/**
 * The context of a Pod (in-cluster): the API server at `$KUBERNETES_SERVICE_HOST` and
 * `$KUBERNETES_SERVICE_PORT`, the CA and the ServiceAccount token the kubelet mounts. The token
 * is a token file, so the transport re-reads it as the kubelet rotates it.
 *
 * @module
 */
import type { ResolvedContext } from "./kubeconfig.ts";

/** The ServiceAccount mount of a Pod. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** Where the in-cluster settings come from. */
export interface InClusterOptions {
  /** Environment variables: `KUBERNETES_SERVICE_HOST`, `KUBERNETES_SERVICE_PORT`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The directory of the ServiceAccount mount. @default SERVICE_ACCOUNT_DIR */
  readonly serviceAccountDir?: string | undefined;
}

/** The in-cluster context, or undefined when `$KUBERNETES_SERVICE_HOST` is not set. */
export function inClusterContext(options: InClusterOptions): ResolvedContext | undefined {
  const host = options.env.KUBERNETES_SERVICE_HOST;
  if (!host) return undefined;
  const port = options.env.KUBERNETES_SERVICE_PORT || "443";
  const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const server = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const cluster = { name: "in-cluster", server, certificateAuthority: `${dir}/ca.crt` };
  const user = { name: "serviceaccount", tokenFile: `${dir}/token` };
  const standalone = JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{
      name: cluster.name,
      cluster: { server, "certificate-authority": cluster.certificateAuthority },
    }],
    users: [{ name: user.name, user: { tokenFile: user.tokenFile } }],
    contexts: [{ name: "in-cluster", context: { cluster: cluster.name, user: user.name } }],
    "current-context": "in-cluster",
  });
  return { name: "in-cluster", cluster, user, file: "", files: [], standalone };
}
