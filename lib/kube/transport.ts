/**
 * How requests reach the API server. Two transports share one interface:
 *
 * - {@linkcode fetchTransport}: Deno's `fetch` with a client from `Deno.createHttpClient` (CA,
 *   client certificate, bearer token, basic auth, HTTP proxy). It loads nothing, so a command
 *   that talks to a cluster starts in a few milliseconds.
 * - `clientNodeTransport` (in `client_node_transport.ts`): `@kubernetes/client-node`, loaded
 *   only when needed: for exec credential plugins, auth providers (OIDC, …),
 *   `insecure-skip-tls-verify`, `tls-server-name` and SOCKS proxies, which `fetch` cannot do.
 *   Loading it takes most of a second, which is why it is not the default.
 *
 * `TOOLKIT_KUBE_CLIENT=client-node` (or `fetch`) forces one of them.
 *
 * @module
 */
import { NoClusterContextError } from "./errors.ts";
import type { ResolvedContext } from "./kubeconfig.ts";

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
 * when it can.
 */
export function fetchUnsupportedReason(context: ResolvedContext): string | undefined {
  const { cluster, user } = context;
  if (user.exec !== undefined) return "the user runs an exec credential plugin";
  if (user.authProvider !== undefined) return "the user has an auth provider";
  if (cluster.insecureSkipTlsVerify) return "the cluster sets insecure-skip-tls-verify";
  if (cluster.tlsServerName) return "the cluster sets tls-server-name";
  if (cluster.proxyUrl && !/^https?:\/\//.test(cluster.proxyUrl)) {
    return "the cluster's proxy-url is not an HTTP proxy";
  }
  return undefined;
}

function decodeBase64(data: string, what: string): string {
  try {
    const bin = atob(data.replace(/\s+/g, ""));
    return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } catch (error) {
    throw new NoClusterContextError(`${what} is not valid base64`, { cause: error });
  }
}

async function readFile(path: string, what: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    throw new NoClusterContextError(`cannot read ${what} ${path}`, { cause: error });
  }
}

async function material(
  data: string | undefined,
  file: string | undefined,
  what: string,
): Promise<string | undefined> {
  if (data) return decodeBase64(data, what);
  if (file) return await readFile(file, what);
  return undefined;
}

/** A network failure as the error commands show: the API server cannot be reached. */
export function unreachable(context: ResolvedContext, cause: unknown): NoClusterContextError {
  const why = cause instanceof Error
    ? (cause.cause instanceof Error ? cause.cause : cause).message
    : "";
  return new NoClusterContextError(
    `cannot reach the API server ${context.cluster.server} of context "${context.name}"${
      why ? ` (${why})` : ""
    }`,
    { cause },
  );
}

/**
 * What a request of one context carries: the TLS material and the `Authorization` header.
 * `authorization()` is called for every request, so a token file is re-read as it is rotated
 * (a projected ServiceAccount token, say).
 */
export interface RequestCredentials {
  /** PEM of the CA that signs the API server's certificate. */
  readonly ca?: string | undefined;
  /** PEM of the client certificate. */
  readonly cert?: string | undefined;
  /** PEM of the client key. */
  readonly key?: string | undefined;
  /** The `Authorization` header of the next request, or undefined to send none. */
  authorization(): Promise<string | undefined>;
}

/** How long a token read from a file is used before the file is read again. */
export const TOKEN_FILE_REREAD_MS = 60_000;

/**
 * Reads the credentials of a context (CA, client certificate, bearer token, basic auth). A token
 * file is read now and again when the last read is {@linkcode TOKEN_FILE_REREAD_MS} old by
 * `clock` (milliseconds).
 */
export async function requestCredentials(
  context: ResolvedContext,
  clock: () => number = Date.now,
): Promise<RequestCredentials> {
  const { cluster, user } = context;
  const ca = await material(
    cluster.certificateAuthorityData,
    cluster.certificateAuthority,
    `the CA of cluster "${cluster.name}"`,
  );
  const cert = await material(
    user.clientCertificateData,
    user.clientCertificate,
    `the client certificate of user "${user.name}"`,
  );
  const key = await material(
    user.clientKeyData,
    user.clientKey,
    `the client key of user "${user.name}"`,
  );
  let authorization: () => Promise<string | undefined> = () => Promise.resolve(undefined);
  if (user.token) {
    const value = `Bearer ${user.token}`;
    authorization = () => Promise.resolve(value);
  } else if (user.tokenFile) {
    const path = user.tokenFile;
    const what = `the token file of user "${user.name}"`;
    let value = `Bearer ${(await readFile(path, what)).trim()}`;
    let readAt = clock();
    authorization = async () => {
      if (clock() - readAt >= TOKEN_FILE_REREAD_MS) {
        value = `Bearer ${(await readFile(path, what)).trim()}`;
        readAt = clock();
      }
      return value;
    };
  } else if (user.username !== undefined) {
    const value = `Basic ${btoa(`${user.username}:${user.password ?? ""}`)}`;
    authorization = () => Promise.resolve(value);
  }
  return { ca, cert, key, authorization };
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

/** Makes the `fetch` transport for a context. */
export async function fetchTransport(context: ResolvedContext): Promise<KubeTransport> {
  const { cluster } = context;
  const { ca, cert, key, authorization } = await requestCredentials(context);
  let client: Deno.HttpClient;
  try {
    const base: Deno.CreateHttpClientOptions = {
      ...(ca ? { caCerts: [ca] } : {}),
      ...(cluster.proxyUrl ? { proxy: { url: cluster.proxyUrl } } : {}),
    };
    client = cert && key
      ? Deno.createHttpClient({ ...base, cert, key })
      : Deno.createHttpClient(base);
  } catch (error) {
    throw new NoClusterContextError(
      `cannot use the TLS material of context "${context.name}"`,
      { cause: error },
    );
  }
  const open = async (request: TransportRequest): Promise<Response> => {
    const headers: Record<string, string> = { ...request.headers };
    const auth = await authorization();
    if (auth) headers.Authorization = auth;
    try {
      return await fetch(request.url, {
        method: request.method,
        headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
        client,
      });
    } catch (error) {
      if (request.signal?.aborted) throw error;
      throw unreachable(context, error);
    }
  };
  return {
    kind: "fetch",
    streams: true,
    open,
    send: sendThrough(open),
    close() {
      client.close();
    },
  };
}
