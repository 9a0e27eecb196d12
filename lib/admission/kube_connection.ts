/**
 * The webhook's connection to the API server: `lib/kube`'s client, in-cluster (the Pod's
 * ServiceAccount: `$KUBERNETES_SERVICE_HOST`, the mounted token, re-read as the kubelet rotates
 * it, and CA) or with a kubeconfig context. Only what `lib/kube`'s streaming transport (`fetch`)
 * can do is accepted, because the policy watches need answers that stream.
 *
 * A cluster with `insecure-skip-tls-verify: true` is refused when connecting: the webhook always
 * verifies the API server's certificate, so it needs the CA in `certificate-authority-data`. The
 * CLI, which does not guard admission, honours the field (`lib/kube/authenticated_http.ts`).
 * Exec credential plugins, OIDC tokens, token files and client certificates are handled by
 * `lib/kube/auth.ts`, as for the CLI.
 *
 * @module
 */
import {
  connectContext,
  type ConnectOptions,
  fetchUnsupportedReason,
  type KubeClient,
  resolveConnectionContext,
} from "../kube/mod.ts";
import { PolicySourceError } from "./errors.ts";

/**
 * Connects: with `kubeconfig` when given; else in-cluster when `$KUBERNETES_SERVICE_HOST` is set;
 * else `$KUBECONFIG` or `~/.kube/config`.
 *
 * @throws {PolicySourceError} when no configuration can be used.
 */
export async function connectKube(
  options: Pick<ConnectOptions, "kubeconfig" | "env" | "serviceAccountDir">,
): Promise<KubeClient> {
  try {
    const context = await resolveConnectionContext({ ...options, inCluster: true });
    const { cluster } = context;
    if (cluster.insecureSkipTlsVerify) {
      throw new PolicySourceError(
        `Cannot use context "${context.name}": its cluster "${cluster.name}" sets insecure-skip-tls-verify, and the webhook always verifies the API server's certificate; remove insecure-skip-tls-verify and put the API server's CA in certificate-authority-data (or certificate-authority)`,
      );
    }
    const unsupported = fetchUnsupportedReason(context);
    if (unsupported) {
      throw new PolicySourceError(
        `Cannot use context "${context.name}": ${unsupported}, which the webhook cannot use (its watches need the fetch transport; use a token or a client certificate)`,
      );
    }
    return await connectContext(context, { env: options.env, transport: "fetch" });
  } catch (error) {
    if (error instanceof PolicySourceError) throw error;
    throw new PolicySourceError(
      `Cannot connect to the API server: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
