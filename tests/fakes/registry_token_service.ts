/**
 * A registry token service for tests. It stands in for a registry's token service such as
 * Docker Hub's auth service (`auth.docker.io/token`), which cannot run here, and follows the
 * Docker token authentication spec (distribution `docs/spec/auth/token.md`):
 *
 * - `GET <realm>?service=<service>&scope=repository:<name>:<actions>` (scope repeatable),
 *   optionally with Basic credentials.
 * - Wrong Basic credentials: 401 with `WWW-Authenticate: Basic realm=…` and a JSON error list.
 *   An unknown `service`: 400.
 * - Otherwise 200 with `{"token", "access_token", "expires_in", "issued_at"}` (which of them is
 *   sent is configurable, to test clients against every variant the spec allows). Anonymous
 *   callers get `pull` on the public repositories only, and an empty `access` for the rest, as
 *   Docker Hub does for private repositories.
 * - Tokens are real JWTs (ES256, WebCrypto) with an `x5c` header holding the signing
 *   certificate, issued by a CA that the registry trusts through `auth.token.rootcertbundle`,
 *   so the real distribution registry verifies `iss`, `aud`, `exp`, `nbf`, `access` and the
 *   signature.
 *
 * `startTokenRegistry()` starts the real `docker-registry` with `auth: token:` pointing here,
 * both over TLS with one test CA.
 *
 * @module
 */

import { decodeBase64, decodeBase64Text, encodeBase64 } from "../../lib/base64.ts";
import {
  type CertFiles,
  freePort,
  issueCert,
  LOOPBACK_SANS,
  makeCA,
  type ManagedProcess,
  requireTool,
  startProcess,
  waitFor,
} from "../env/mod.ts";

const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  return encodeBase64(bytes, { urlSafe: true });
}

function pemToDer(pem: string): Uint8Array<ArrayBuffer> {
  const body = pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, "").replace(/\s+/g, "");
  return decodeBase64(body);
}

/** How the token service answers. */
export interface TokenServiceOptions {
  /** The `service` it issues tokens for (the registry's `auth.token.service`). */
  service: string;
  /** The `iss` claim (the registry's `auth.token.issuer`). */
  issuer: string;
  /** Users allowed every action on every repository. */
  users: Record<string, string>;
  /** Repositories anonymous callers may pull. */
  publicRepositories?: string[];
  /** Which token fields the answer carries. Default "both". */
  tokenField?: "token" | "access_token" | "both";
  /** `expires_in` in seconds; undefined leaves it out. Default 300. */
  expiresIn?: number | undefined;
}

/** A running token service. */
export interface TokenService extends AsyncDisposable {
  /** `https://127.0.0.1:PORT/token`. */
  readonly realm: string;
  /** Every token request, with its query and whether it carried credentials. */
  readonly requests: { scopes: string[]; service: string | null; user: string | undefined }[];
  /** Changes the answers from now on. */
  configure(options: Partial<TokenServiceOptions>): void;
  /** Stops it. */
  stop(): Promise<void>;
}

/** Starts the token service over TLS with `serving`, signing with `signing` (ES256, x5c). */
export async function startTokenService(
  options: TokenServiceOptions,
  tls: { serving: CertFiles; signing: CertFiles },
): Promise<TokenService> {
  let config: TokenServiceOptions = { tokenField: "both", expiresIn: 300, ...options };
  const key = await crypto.subtle.importKey(
    "pkcs8",
    pemToDer(tls.signing.keyPem),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign"],
  );
  const x5c = [encodeBase64(pemToDer(tls.signing.certPem))];
  const requests: TokenService["requests"] = [];

  async function issue(subject: string, access: unknown[], now: number): Promise<string> {
    const header = { typ: "JWT", alg: "ES256", x5c };
    const claims = {
      iss: config.issuer,
      sub: subject,
      aud: config.service,
      exp: now + (config.expiresIn ?? 60),
      nbf: now - 1,
      iat: now,
      jti: crypto.randomUUID(),
      access,
    };
    const signingInput = `${base64url(encoder.encode(JSON.stringify(header)))}.${
      base64url(encoder.encode(JSON.stringify(claims)))
    }`;
    const signature = new Uint8Array(
      await crypto.subtle.sign(
        { name: "ECDSA", hash: "SHA-256" },
        key,
        encoder.encode(signingInput),
      ),
    );
    return `${signingInput}.${base64url(signature)}`;
  }

  function error(status: number, code: string, message: string, headers?: HeadersInit) {
    return Response.json({ errors: [{ code, message }] }, { status, headers });
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== "/token" || request.method !== "GET") {
      return error(404, "NOT_FOUND", "not found");
    }
    const scopes = url.searchParams.getAll("scope");
    const service = url.searchParams.get("service");
    let user: string | undefined;
    const authorization = request.headers.get("authorization");
    if (authorization !== null) {
      const match = /^Basic\s+(.+)$/i.exec(authorization);
      const decoded = match ? decodeBase64Text(match[1]!) : "";
      const colon = decoded.indexOf(":");
      const name = decoded.slice(0, colon);
      if (colon < 0 || config.users[name] !== decoded.slice(colon + 1)) {
        requests.push({ scopes, service, user: name || "(malformed)" });
        return error(401, "UNAUTHORIZED", "incorrect username or password", {
          "www-authenticate": 'Basic realm="toolkit-token-service"',
        });
      }
      user = name;
    }
    requests.push({ scopes, service, user });
    if (service !== config.service) {
      return error(400, "UNSUPPORTED", `unknown service "${service ?? ""}"`);
    }
    const access = scopes.flatMap((scope) => {
      const [type, name, actions] = [
        scope.slice(0, scope.indexOf(":")),
        scope.slice(scope.indexOf(":") + 1, scope.lastIndexOf(":")),
        scope.slice(scope.lastIndexOf(":") + 1).split(","),
      ];
      if (type !== "repository") return [];
      const granted = user !== undefined
        ? actions
        : (config.publicRepositories ?? []).includes(name)
        ? actions.filter((a) => a === "pull")
        : [];
      return [{ type, name, actions: granted }];
    });
    const now = Math.floor(Date.now() / 1000);
    const token = await issue(user ?? "", access, now);
    const body: Record<string, unknown> = { issued_at: new Date(now * 1000).toISOString() };
    if (config.tokenField !== "access_token") body.token = token;
    if (config.tokenField !== "token") body.access_token = token;
    if (config.expiresIn !== undefined) body.expires_in = config.expiresIn;
    return Response.json(body);
  }

  const controller = new AbortController();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: tls.serving.certPem,
    key: tls.serving.keyPem,
    signal: controller.signal,
    onListen: () => {},
  }, handle);
  const stop = async () => {
    controller.abort();
    await server.finished;
  };
  return {
    realm: `https://127.0.0.1:${server.addr.port}/token`,
    requests,
    configure(update) {
      config = { ...config, ...update };
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** The real registry with token auth, and its token service. */
export interface TokenRegistry extends AsyncDisposable {
  /** `127.0.0.1:PORT`. */
  readonly host: string;
  /** The CA of both servers and of the token-signing certificate. */
  readonly caCertPem: string;
  /** A directory with `ca.crt`, for skopeo's `--cert-dir`. */
  readonly certDir: string;
  /** The token service. */
  readonly tokens: TokenService;
  /** The registry process. */
  readonly process: ManagedProcess;
  /** Stops both and removes the temp dir. */
  stop(): Promise<void>;
}

/** Starts `docker-registry` with `auth: token:` and a token service issuing for it. */
export async function startTokenRegistry(
  options: Pick<TokenServiceOptions, "users" | "publicRepositories">,
): Promise<TokenRegistry> {
  const binary = requireTool("docker-registry");
  const dir = await Deno.makeTempDir({ prefix: "toolkit-token-registry-" });
  let tokens: TokenService | undefined;
  let process: ManagedProcess | undefined;
  try {
    const ca = await makeCA(dir, "test-ca");
    const serving = await issueCert(dir, ca, {
      name: "serving",
      cn: "127.0.0.1",
      sans: LOOPBACK_SANS,
    });
    const signing = await issueCert(dir, ca, { name: "token-signing", cn: "toolkit token signer" });
    const certDir = `${dir}/certs`;
    await Deno.mkdir(certDir);
    await Deno.writeTextFile(`${certDir}/ca.crt`, ca.certPem);
    const service = "toolkit-test-registry";
    const issuer = "toolkit-test-token-issuer";
    tokens = await startTokenService({ service, issuer, ...options }, { serving, signing });
    const host = `127.0.0.1:${freePort()}`;
    await Deno.writeTextFile(
      `${dir}/config.yml`,
      [
        "version: 0.1",
        "log:",
        "  level: warn",
        "  accesslog:",
        "    disabled: true",
        "storage:",
        "  filesystem:",
        `    rootdirectory: ${dir}/data`,
        "http:",
        `  addr: ${host}`,
        "  secret: toolkit-test-secret",
        "  tls:",
        `    certificate: ${serving.certFile}`,
        `    key: ${serving.keyFile}`,
        "auth:",
        "  token:",
        `    realm: ${tokens.realm}`,
        `    service: ${service}`,
        `    issuer: ${issuer}`,
        `    rootcertbundle: ${ca.certFile}`,
        "",
      ].join("\n"),
    );
    process = await startProcess(binary, ["serve", `${dir}/config.yml`], {
      logFile: `${dir}/registry.log`,
    });
    const client = Deno.createHttpClient({ caCerts: [ca.certPem] });
    try {
      await waitFor("the token-auth registry", async () => {
        const response = await fetch(`https://${host}/v2/`, { client });
        await response.body?.cancel();
        return response.status === 401;
      }, { process, timeoutMs: 30_000 });
    } finally {
      client.close();
    }
    const running = process;
    const service_ = tokens;
    const stop = async () => {
      await running.stop();
      await service_.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    };
    return {
      host,
      caCertPem: ca.certPem,
      certDir,
      tokens,
      process,
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (error) {
    await process?.stop();
    await tokens?.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  }
}
