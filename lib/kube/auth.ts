/**
 * How requests to the API server of a kubeconfig context authenticate: the `Authorization`
 * header of each request and the TLS identity (CA, client certificate and key) of the
 * connection. The one place that reads a kubeconfig user's credentials:
 *
 * | kubeconfig | here |
 * |---|---|
 * | `exec` (ExecCredential v1/v1beta1) | {@linkcode ExecCredentialPlugin}: its token, or its client certificate as the TLS identity; cached until `expirationTimestamp`, run again after it or a 401 |
 * | `auth-provider: oidc` | {@linkcode OidcTokenSource}: the id-token, refreshed through the issuer when it expires or after a 401, the new tokens saved in the kubeconfig |
 * | `tokenFile` | read again whenever the file changes (service-account and projected tokens rotate); wins over `token`, as in client-go |
 * | `token` | as it is |
 * | `username`/`password` | Basic, UTF-8 encoded |
 * | `client-certificate(-data)`, `client-key(-data)` | the TLS identity; files are read again when they change |
 * | `certificate-authority(-data)` | the CA of the TLS identity |
 *
 * How the connection is made from the TLS identity (`insecure-skip-tls-verify`,
 * `tls-server-name`, `proxy-url`) is `authenticated_http.ts`'s business.
 *
 * Commands (exec plugins) run through an injected runner, the issuer is reached through an
 * injected `fetch`, and the clock is injected. No token, key or password is ever put into an
 * error message.
 *
 * @module
 */
import { basicAuthorization, decodeBase64 } from "../base64.ts";
import { NoClusterContextError } from "./errors.ts";
import {
  type CommandRunner,
  denoCommandRunner,
  type ExecCredential,
  ExecCredentialPlugin,
} from "./exec_credential.ts";
import type { ResolvedContext } from "./kubeconfig.ts";
import { saveOidcTokens } from "./oidc_persist.ts";
import { authProviderName, type OidcFetch, type OidcTokens, OidcTokenSource } from "./oidc.ts";

/** The TLS side of the credentials: what the connection presents and trusts. */
export interface TlsIdentity {
  /** PEM CA the server's certificate must chain to (else the system's roots). */
  readonly ca?: string;
  /** PEM client certificate. */
  readonly cert?: string;
  /** PEM client key. */
  readonly key?: string;
}

/** The credentials of one context, asked for on every request. */
export interface KubeAuth {
  /** The `Authorization` header value for the next request, or undefined for none. */
  authorization(): Promise<string | undefined>;
  /**
   * The TLS identity for the next request. The same object is returned until something in it
   * changes (a renewed exec certificate, a rewritten file), so a caller can keep its HTTP client
   * while it is the same.
   */
  tlsIdentity(): Promise<TlsIdentity>;
  /** Both of the above for one request, from one credential. */
  credentials(): Promise<{ authorization: string | undefined; tls: TlsIdentity }>;
  /**
   * The server answered 401: forgets what can be obtained again (an exec credential, an OIDC
   * id-token). True when the next request would carry new credentials, so retrying is worth it.
   */
  invalidate(): boolean;
}

/** What the credentials need from their surroundings; each has a real default. */
export interface KubeAuthOptions {
  /** Runs exec credential plugins (default: `Deno.Command`). */
  readonly runner?: CommandRunner;
  /** The clock in milliseconds since the epoch (default `Date.now`). */
  readonly now?: () => number;
  /** Reaches an OIDC issuer (default: the global `fetch`). */
  readonly fetch?: OidcFetch;
  /** Whether stdin is a terminal, for interactive exec plugins (default: `Deno.stdin`'s). */
  readonly isTerminal?: () => boolean;
  /** Keeps refreshed OIDC tokens (default: saved in the kubeconfig file of the user). */
  readonly persistOidcTokens?: (tokens: OidcTokens) => Promise<void>;
}

/** Reads a file again only when its modification time or size changed. */
class WatchedFile {
  readonly #path: string;
  readonly #what: string;
  #stamp = "";
  #text = "";

  constructor(path: string, what: string) {
    this.#path = path;
    this.#what = what;
  }

  async read(): Promise<string> {
    try {
      const info = await Deno.stat(this.#path);
      const stamp = `${info.mtime?.getTime()}:${info.size}:${info.ino}`;
      if (stamp !== this.#stamp) {
        this.#text = await Deno.readTextFile(this.#path);
        this.#stamp = stamp;
      }
      return this.#text;
    } catch (error) {
      throw new NoClusterContextError(`cannot read ${this.#what} ${this.#path}`, { cause: error });
    }
  }
}

/** PEM from base64 kubeconfig data, or from a watched file, or nothing. */
function pemSource(
  data: string | undefined,
  file: string | undefined,
  what: string,
): () => Promise<string | undefined> {
  if (data) {
    let pem: string;
    try {
      pem = new TextDecoder().decode(decodeBase64(data));
    } catch (error) {
      throw new NoClusterContextError(`${what} is not valid base64`, { cause: error });
    }
    return () => Promise.resolve(pem);
  }
  if (file) {
    const watched = new WatchedFile(file, what);
    return () => watched.read();
  }
  return () => Promise.resolve(undefined);
}

function defaultIsTerminal(): boolean {
  try {
    return Deno.stdin.isTerminal();
  } catch {
    return false;
  }
}

/**
 * Makes the credentials of a context. Throws {@linkcode NoClusterContextError} (an
 * `ExecPluginError` for a bad `exec` section) when they are unusable as written; anything
 * that needs a file, a command or the issuer happens per request.
 */
export function kubeAuth(context: ResolvedContext, options: KubeAuthOptions = {}): KubeAuth {
  const { cluster, user } = context;
  const now = options.now ?? Date.now;
  const ca = pemSource(
    cluster.certificateAuthorityData,
    cluster.certificateAuthority,
    `the CA of cluster "${cluster.name}"`,
  );
  const cert = pemSource(
    user.clientCertificateData,
    user.clientCertificate,
    `the client certificate of user "${user.name}"`,
  );
  const key = pemSource(
    user.clientKeyData,
    user.clientKey,
    `the client key of user "${user.name}"`,
  );
  const exec = user.exec !== undefined
    ? new ExecCredentialPlugin(context, {
      runner: options.runner ?? denoCommandRunner,
      now,
      isTerminal: options.isTerminal ?? defaultIsTerminal,
      clusterCa: ca,
    })
    : undefined;
  const provider = authProviderName(user.authProvider);
  if (user.authProvider !== undefined && provider !== "oidc") {
    throw new NoClusterContextError(
      `user "${user.name}" of context "${context.name}" has the auth provider "${
        provider ?? "(unnamed)"
      }", which toolkit's fetch transport does not handle`,
    );
  }
  const userFile = context.userFile;
  const persistOidcTokens = options.persistOidcTokens ??
    (userFile ? (tokens: OidcTokens) => saveOidcTokens(userFile, user.name, tokens) : undefined);
  const oidc = provider === "oidc"
    ? new OidcTokenSource(context, {
      fetch: options.fetch ?? fetch,
      now,
      ...(persistOidcTokens ? { persist: persistOidcTokens } : {}),
    })
    : undefined;
  const tokenFile = user.tokenFile
    ? new WatchedFile(user.tokenFile, `the token file of user "${user.name}"`)
    : undefined;

  let identity: TlsIdentity = {};
  const authorizationWith = async (fromExec: ExecCredential | undefined) => {
    if (fromExec?.token !== undefined) return `Bearer ${fromExec.token}`;
    if (fromExec?.clientCertificateData !== undefined) return undefined;
    if (oidc) return `Bearer ${await oidc.token()}`;
    if (tokenFile) return `Bearer ${(await tokenFile.read()).trim()}`;
    if (user.token) return `Bearer ${user.token}`;
    if (user.username !== undefined) return basicAuthorization(user.username, user.password ?? "");
    return undefined;
  };
  const tlsIdentityWith = async (fromExec: ExecCredential | undefined) => {
    let next: TlsIdentity = {};
    const caPem = await ca();
    if (caPem) next = { ca: caPem };
    const certPem = fromExec?.clientCertificateData ?? await cert();
    const keyPem = fromExec?.clientKeyData ?? await key();
    if (certPem && keyPem) next = { ...next, cert: certPem, key: keyPem };
    if (next.ca !== identity.ca || next.cert !== identity.cert || next.key !== identity.key) {
      identity = next;
    }
    return identity;
  };
  return {
    async authorization() {
      return await authorizationWith(await exec?.credential());
    },
    async tlsIdentity() {
      return await tlsIdentityWith(await exec?.credential());
    },
    async credentials() {
      // One exec credential for both halves: a plugin that returns an already expired
      // credential is run once per request, not once per half.
      const fromExec = await exec?.credential();
      return {
        authorization: await authorizationWith(fromExec),
        tls: await tlsIdentityWith(fromExec),
      };
    },
    invalidate() {
      if (exec) {
        exec.invalidate();
        return true;
      }
      return oidc?.invalidate() ?? false;
    },
  };
}
