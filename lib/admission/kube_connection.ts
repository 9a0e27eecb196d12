/**
 * The webhook's connection to the API server: `fetch` with the TLS material and credentials of
 * a kubeconfig context (client certificate, bearer token or token file, basic auth) or of the
 * Pod's ServiceAccount (in-cluster: `$KUBERNETES_SERVICE_HOST`, the mounted token, re-read as
 * the kubelet rotates it, and CA). Responses are returned as they are, so watches can stream.
 *
 * Exec credential plugins and auth providers are not supported here: the webhook runs
 * in-cluster or with a certificate or token kubeconfig. A cluster with
 * `insecure-skip-tls-verify: true` is refused when connecting: the webhook always verifies the
 * API server's certificate (Deno's `fetch` cannot skip verification for one client, only for the
 * whole process), so it needs the CA in `certificate-authority-data`. The CLI, which does not
 * guard admission, honours the field through `@kubernetes/client-node` (`lib/kube/transport.ts`).
 *
 * @module
 */
import { loadContext, type ResolvedContext } from "../kube/mod.ts";
import { PolicySourceError } from "./errors.ts";
import { parseJson, safeExcerpt } from "../errors.ts";

/** A connection to one API server. */
export interface KubeConnection extends Disposable {
  /** The API server URL. */
  readonly server: string;
  /** Sends a request to a path below the server (`/api/v1/...`). */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Releases the HTTP client. */
  close(): void;
}

/** Where the connection's settings come from. */
export interface ConnectOptions {
  /** A kubeconfig file; without it, in-cluster settings, then `$KUBECONFIG`/`~/.kube/config`. */
  readonly kubeconfig?: string | undefined;
  /** Environment variables. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The directory of the ServiceAccount mount. */
  readonly serviceAccountDir?: string;
}

/** The ServiceAccount mount of a Pod. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

function decodeBase64(data: string): string {
  const binary = atob(data.replace(/\s+/g, ""));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

async function material(data?: string, file?: string): Promise<string | undefined> {
  if (data) return decodeBase64(data);
  if (file) return await Deno.readTextFile(file);
  return undefined;
}

function connection(
  server: string,
  client: Deno.HttpClient,
  authorization: () => Promise<string | undefined>,
): KubeConnection {
  const base = server.replace(/\/+$/, "");
  const close = () => client.close();
  return {
    server: base,
    async fetch(path, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has("accept")) headers.set("accept", "application/json");
      const auth = await authorization();
      if (auth) headers.set("authorization", auth);
      return await fetch(`${base}${path}`, { ...init, headers, client });
    },
    close,
    [Symbol.dispose]: close,
  };
}

async function fromContext(context: ResolvedContext): Promise<KubeConnection> {
  const { cluster, user } = context;
  if (user.exec !== undefined || user.authProvider !== undefined) {
    throw new PolicySourceError(
      `Cannot use context "${context.name}": exec credential plugins and auth providers are not supported by the webhook (use a token or a client certificate)`,
    );
  }
  if (cluster.insecureSkipTlsVerify) {
    throw new PolicySourceError(
      `Cannot use context "${context.name}": its cluster "${cluster.name}" sets insecure-skip-tls-verify, and the webhook always verifies the API server's certificate; remove insecure-skip-tls-verify and put the API server's CA in certificate-authority-data (or certificate-authority)`,
    );
  }
  const ca = await material(cluster.certificateAuthorityData, cluster.certificateAuthority);
  const cert = await material(user.clientCertificateData, user.clientCertificate);
  const key = await material(user.clientKeyData, user.clientKey);
  const options: Deno.CreateHttpClientOptions = {
    ...(ca ? { caCerts: [ca] } : {}),
    ...(cluster.proxyUrl ? { proxy: { url: cluster.proxyUrl } } : {}),
  };
  const client = cert && key
    ? Deno.createHttpClient({ ...options, cert, key })
    : Deno.createHttpClient(options);
  let authorization: () => Promise<string | undefined> = () => Promise.resolve(undefined);
  if (user.token) {
    const value = `Bearer ${user.token}`;
    authorization = () => Promise.resolve(value);
  } else if (user.tokenFile) {
    authorization = tokenFileReader(user.tokenFile);
  } else if (user.username !== undefined) {
    const value = `Basic ${btoa(`${user.username}:${user.password ?? ""}`)}`;
    authorization = () => Promise.resolve(value);
  }
  return connection(cluster.server, client, authorization);
}

/** Reads a token file, again at most once a minute (the kubelet rotates projected tokens). */
function tokenFileReader(path: string): () => Promise<string> {
  let value = "";
  let readAt = 0;
  return async () => {
    if (value === "" || Date.now() - readAt > 60_000) {
      value = `Bearer ${(await Deno.readTextFile(path)).trim()}`;
      readAt = Date.now();
    }
    return value;
  };
}

/**
 * Connects: with `kubeconfig` when given; else in-cluster when `$KUBERNETES_SERVICE_HOST` is set
 * and the ServiceAccount is mounted; else `$KUBECONFIG` or `~/.kube/config`.
 *
 * @throws {PolicySourceError} when no configuration can be used.
 */
export async function connectKube(options: ConnectOptions): Promise<KubeConnection> {
  try {
    const host = options.env.KUBERNETES_SERVICE_HOST;
    const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
    if (!options.kubeconfig && host) {
      const port = options.env.KUBERNETES_SERVICE_PORT ?? "443";
      const ca = await Deno.readTextFile(`${dir}/ca.crt`);
      const server = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
      const client = Deno.createHttpClient({ caCerts: [ca] });
      return connection(server, client, tokenFileReader(`${dir}/token`));
    }
    return await fromContext(
      await loadContext({ kubeconfig: options.kubeconfig, env: options.env }),
    );
  } catch (error) {
    if (error instanceof PolicySourceError) throw error;
    throw new PolicySourceError(
      `Cannot connect to the API server: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** Reads a JSON answer, throwing {@linkcode PolicySourceError} on an error status. */
export async function readJson(response: Response, action: string): Promise<unknown> {
  const text = await response.text();
  if (!response.ok) {
    let detail = `HTTP ${response.status}`;
    try {
      const status = JSON.parse(text) as { message?: unknown };
      if (typeof status.message === "string") {
        detail += `: ${safeExcerpt(status.message, { maxChars: 500 })}`;
      }
    } catch {
      // not a Status
    }
    throw new PolicySourceError(`Cannot ${action}: ${detail}`);
  }
  try {
    // A list of Secrets is secret: a body cut short must not be quoted by the parser's error.
    return parseJson(text);
  } catch (error) {
    throw new PolicySourceError(`Cannot ${action}: ${(error as Error).message}`, { cause: error });
  }
}
