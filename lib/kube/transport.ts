/**
 * How requests reach the API server. Two transports share one interface:
 *
 * - {@linkcode fetchTransport}: Deno's `fetch` (or `node:https` where a cluster skips TLS
 *   verification or names its TLS server) with the credentials of `auth.ts` applied per
 *   request by `authenticated_http.ts`: exec credential plugins, OIDC, token files, client
 *   certificates, bearer tokens, basic auth, http/https/socks5 proxies. It loads no npm
 *   package, so a command that talks to a cluster starts in a few milliseconds.
 * - `clientNodeTransport` (in `client_node_transport.ts`): `@kubernetes/client-node`, loaded
 *   only for what the fetch transport does not do (see {@linkcode fetchUnsupportedReason}):
 *   auth providers other than `oidc`, and a proxy together with `insecure-skip-tls-verify` or
 *   `tls-server-name`. Loading it takes most of a second.
 *
 * `TOOLKIT_KUBE_CLIENT=client-node` (or `fetch`) forces one of them.
 *
 * @module
 */
import { NoClusterContextError } from "./errors.ts";
import type { ResolvedContext } from "./kubeconfig.ts";
import { KubeUnreachableError } from "./auth_errors.ts";
import { kubeAuth, type KubeAuthOptions } from "./auth.ts";
import { authenticatedHttp } from "./authenticated_http.ts";
import { authProviderName } from "./oidc.ts";

/** One HTTP request to the API server. */
export interface TransportRequest {
  /** `GET`, `POST`, `PUT`, `PATCH`, `DELETE`. */
  readonly method: string;
  /** Absolute URL. */
  readonly url: string;
  /** Request headers. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body, already serialised. */
  readonly body?: string;
  /** Aborts the request (and a streaming answer). */
  readonly signal?: AbortSignal;
}

/** The API server's answer. */
export interface TransportResponse {
  /** HTTP status. */
  readonly status: number;
  /** The body as text. */
  readonly text: string;
}

/** Sends requests to the API server of one context. */
export interface KubeTransport {
  /** Which implementation this is. */
  readonly kind: "fetch" | "client-node";
  /**
   * True when {@linkcode open} hands over the body as the server sends it (a watch); false
   * when the whole answer is read first (a watch is then seen when the server ends it).
   */
  readonly streams: boolean;
  /**
   * Sends a request and reads the answer as text. Network failures throw
   * {@linkcode NoClusterContextError}.
   */
  send(request: TransportRequest): Promise<TransportResponse>;
  /** Sends a request and returns the answer with its body unread (for watches). */
  open(request: TransportRequest): Promise<Response>;
  /** Releases connections. */
  close(): void;
}

/**
 * Why `fetch` cannot talk to this context (so `@kubernetes/client-node` has to), or undefined
 * when it can. Exec plugins, OIDC, token files, client certificates, basic auth,
 * `insecure-skip-tls-verify`, `tls-server-name` and http/https/socks5 proxies are all handled
 * by `auth.ts` and `authenticated_http.ts`.
 */
export function fetchUnsupportedReason(context: ResolvedContext): string | undefined {
  const { cluster, user } = context;
  const provider = authProviderName(user.authProvider);
  if (user.authProvider !== undefined && provider !== "oidc") {
    return `the user has the auth provider "${provider ?? "(unnamed)"}"`;
  }
  if (cluster.proxyUrl && !/^(https?|socks5h?):\/\//.test(cluster.proxyUrl)) {
    return "the cluster's proxy-url is not an http, https or socks5 proxy";
  }
  if (cluster.proxyUrl && (cluster.insecureSkipTlsVerify || cluster.tlsServerName)) {
    return "the cluster sets proxy-url together with insecure-skip-tls-verify or tls-server-name";
  }
  return undefined;
}

/** A network failure as the error commands show: the API server cannot be reached. */
export function unreachable(context: ResolvedContext, cause: unknown): KubeUnreachableError {
  const why = cause instanceof Error
    ? (cause.cause instanceof Error ? cause.cause : cause).message
    : "";
  return new KubeUnreachableError(context, why, { cause });
}

/** A transport's `send` made of its `open`: the answer read as text. */
export function sendThrough(
  open: (request: TransportRequest) => Promise<Response>,
): KubeTransport["send"] {
  return async (request) => {
    const response = await open(request);
    return { status: response.status, text: await response.text() };
  };
}

/** Makes the `fetch` transport for a context; `options` are the credentials' dependencies. */
export function fetchTransport(
  context: ResolvedContext,
  options: KubeAuthOptions = {},
): Promise<KubeTransport> {
  let http: ReturnType<typeof authenticatedHttp>;
  try {
    http = authenticatedHttp(context, kubeAuth(context, options));
  } catch (error) {
    return Promise.reject(error);
  }
  const open = async (request: TransportRequest): Promise<Response> => {
    try {
      return await http.fetch(request.url, request);
    } catch (error) {
      if (request.signal?.aborted) throw error;
      if (error instanceof NoClusterContextError) throw error;
      throw unreachable(context, error);
    }
  };
  return Promise.resolve({
    kind: "fetch",
    streams: true,
    open,
    send: sendThrough(open),
    close() {
      http.close();
    },
  });
}
