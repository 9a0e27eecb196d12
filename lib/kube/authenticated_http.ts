/**
 * HTTP to the API server of one context with its credentials ({@linkcode KubeAuth}) applied
 * on every request: the `Authorization` header, and a connection made from the current TLS
 * identity, remade when that identity changes (an exec plugin's renewed certificate, a
 * rewritten certificate file). After a 401 the credentials that can be obtained again are
 * dropped and the request is sent once more.
 *
 * Which HTTP stack, and why:
 *
 * - Deno's `fetch` with a `Deno.createHttpClient` client, the default: CA, client certificate
 *   and `proxy-url` (`http://`, `https://`, `socks5://`, `socks5h://`; user info in the URL is
 *   the proxy's Basic credentials). Deno 2.9's `createHttpClient` has no option to skip
 *   certificate verification or to set the TLS server name (only the process-wide
 *   `--unsafely-ignore-certificate-errors` flag), so:
 * - `node:https` (built into Deno, loaded in a few milliseconds, unlike
 *   `@kubernetes/client-node`) for clusters with `insecure-skip-tls-verify` or
 *   `tls-server-name`: an `https.Agent` with `rejectUnauthorized: false` / `servername`, for
 *   this one connection only. It does not tunnel through a proxy, so a cluster that also has
 *   a `proxy-url` stays with `@kubernetes/client-node` (see `fetchUnsupportedReason`).
 *
 * Both give a web `Response`, so a caller can stream a watch.
 *
 * @module
 */
import type { Agent } from "node:https";
import type { KubeAuth, TlsIdentity } from "./auth.ts";
import type { ResolvedContext } from "./kubeconfig.ts";
import { NoClusterContextError } from "./errors.ts";

/** One request, without credentials. */
export interface KubeHttpRequest {
  /** `GET`, `POST`, … */
  readonly method: string;
  /** Request headers (an `Authorization` header is added). */
  readonly headers: Readonly<Record<string, string>>;
  /** The body, already serialised (so a request can be sent again after a 401). */
  readonly body?: string;
  /** Aborts the request. */
  readonly signal?: AbortSignal;
}

/** Sends authenticated requests to one API server. */
export interface AuthenticatedHttp {
  /**
   * Sends a request with the context's credentials. Credentials that cannot be obtained
   * throw a {@linkcode NoClusterContextError} (a `KubeAuthenticationError`); network failures
   * throw what the HTTP stack throws (callers report them as unreachable).
   */
  fetch(url: string, request: KubeHttpRequest): Promise<Response>;
  /** Releases connections. */
  close(): void;
}

interface Connection {
  send(url: string, request: KubeHttpRequest, headers: Record<string, string>): Promise<Response>;
  close(): void;
}

/** The `proxy` option of `Deno.createHttpClient` for a kubeconfig `proxy-url`. */
export function denoProxy(proxyUrl: string): Deno.Proxy {
  let url: URL;
  try {
    url = new URL(proxyUrl);
  } catch (error) {
    throw new NoClusterContextError("the cluster's proxy-url is not a URL", { cause: error });
  }
  const scheme = url.protocol.replace(/:$/, "");
  const transport = scheme === "socks5" || scheme === "socks5h" ? "socks5" : scheme;
  if (transport !== "http" && transport !== "https" && transport !== "socks5") {
    throw new NoClusterContextError(`the cluster's proxy-url has the unsupported scheme ${scheme}`);
  }
  const basicAuth = url.username
    ? {
      basicAuth: {
        username: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
      },
    }
    : {};
  url.username = "";
  url.password = "";
  return { transport, url: url.href.replace(/\/$/, ""), ...basicAuth };
}

function denoConnection(context: ResolvedContext, identity: TlsIdentity): Connection {
  const { cluster } = context;
  let client: Deno.HttpClient;
  try {
    const base: Deno.CreateHttpClientOptions = {
      ...(identity.ca ? { caCerts: [identity.ca] } : {}),
      ...(cluster.proxyUrl ? { proxy: denoProxy(cluster.proxyUrl) } : {}),
    };
    client = identity.cert && identity.key
      ? Deno.createHttpClient({ ...base, cert: identity.cert, key: identity.key })
      : Deno.createHttpClient(base);
  } catch (error) {
    if (error instanceof NoClusterContextError) throw error;
    throw new NoClusterContextError(
      `cannot use the TLS material of context "${context.name}"`,
      { cause: error },
    );
  }
  return {
    send: (url, request, headers) =>
      fetch(url, {
        method: request.method,
        headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
        client,
      }),
    close: () => client.close(),
  };
}

async function nodeConnection(
  context: ResolvedContext,
  identity: TlsIdentity,
): Promise<Connection> {
  const https = await import("node:https");
  const { Readable } = await import("node:stream");
  const { cluster } = context;
  const tls = {
    ...(identity.ca ? { ca: identity.ca } : {}),
    ...(identity.cert && identity.key ? { cert: identity.cert, key: identity.key } : {}),
    rejectUnauthorized: !cluster.insecureSkipTlsVerify,
    ...(cluster.tlsServerName ? { servername: cluster.tlsServerName } : {}),
  };
  const agent: Agent = new https.Agent({ ...tls, keepAlive: true });
  return {
    send: (url, request, headers) =>
      new Promise<Response>((resolve, reject) => {
        const req = https.request(url, {
          method: request.method,
          headers,
          agent,
          ...tls,
          ...(request.signal ? { signal: request.signal } : {}),
        }, (res) => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
              responseHeaders.append(name, v);
            }
          }
          const status = res.statusCode ?? 0;
          const empty = status === 204 || status === 304 || request.method === "HEAD";
          if (empty) res.resume();
          resolve(
            new Response(empty ? null : Readable.toWeb(res) as ReadableStream<Uint8Array>, {
              status,
              headers: responseHeaders,
            }),
          );
        });
        req.on("error", reject);
        if (request.body !== undefined) req.write(request.body);
        req.end();
      }),
    close: () => agent.destroy(),
  };
}

/** Makes authenticated HTTP for a context from its credentials. */
export function authenticatedHttp(context: ResolvedContext, auth: KubeAuth): AuthenticatedHttp {
  const { cluster } = context;
  const useNode = cluster.insecureSkipTlsVerify === true || cluster.tlsServerName !== undefined;
  let current: { identity: TlsIdentity; connection: Promise<Connection> } | undefined;
  const connectionFor = (identity: TlsIdentity): Promise<Connection> => {
    if (current?.identity !== identity) {
      const previous = current?.connection;
      current = {
        identity,
        connection: useNode
          ? nodeConnection(context, identity)
          : Promise.resolve().then(() => denoConnection(context, identity)),
      };
      previous?.then((c) => c.close(), () => {});
    }
    return current.connection;
  };
  const attempt = async (url: string, request: KubeHttpRequest): Promise<Response> => {
    const headers: Record<string, string> = { ...request.headers };
    const { authorization, tls } = await auth.credentials();
    if (authorization !== undefined) headers.Authorization = authorization;
    const connection = await connectionFor(tls);
    return await connection.send(url, request, headers);
  };
  return {
    async fetch(url, request) {
      const response = await attempt(url, request);
      if (response.status !== 401 || !auth.invalidate()) return response;
      await response.body?.cancel();
      return await attempt(url, request);
    },
    close() {
      current?.connection.then((c) => c.close(), () => {});
      current = undefined;
    },
  };
}
