/**
 * The `oidc` auth provider of a kubeconfig user (`auth-provider: {name: oidc, config: …}`), as
 * kubectl's built-in plugin did before it moved to exec plugins such as kubelogin:
 *
 * - the `id-token` is sent as the bearer token while it is valid (its `exp` claim, less ten
 *   seconds, as kubectl);
 * - once it has expired (or the API server answered 401), and a `refresh-token` is set, the
 *   issuer's discovery document (`idp-issuer-url` + `/.well-known/openid-configuration`) gives
 *   the `token_endpoint`, which is asked for a new id-token with `grant_type=refresh_token`,
 *   `client-id` and `client-secret`; `idp-certificate-authority(-data)` is the issuer's CA;
 * - the new tokens are kept for the process and handed to `persist` (by default
 *   `oidc_persist.ts` writes them into the kubeconfig, as kubectl did: an issuer that rotates
 *   refresh tokens refuses the old one next time); a failure to save them fails the request,
 *   as in kubectl.
 *
 * The id-token is not verified here: the API server does that. Nothing here quotes a token; an
 * issuer's error is reported by its OAuth `error` code only.
 *
 * @module
 */
import { decodeBase64, decodeBase64Text } from "../base64.ts";
import { parseJson } from "../errors.ts";
import { checkJsonShape, jsonLimitsForLength } from "../json_shape.ts";
import { KubeAuthenticationError } from "./auth_errors.ts";
import type { ResolvedContext } from "./kubeconfig.ts";

/** kubectl's margin: an id-token that expires within this many milliseconds is refreshed. */
export const OIDC_EXPIRY_MARGIN_MS = 10_000;

/** `fetch` with Deno's `client` option (a CA for the issuer). */
export type OidcFetch = (
  url: string,
  init: RequestInit & { client?: Deno.HttpClient },
) => Promise<Response>;

/** The tokens after a refresh. */
export interface OidcTokens {
  /** The new id-token. */
  readonly idToken: string;
  /** The refresh token to use next (the issuer's new one, or the old one). */
  readonly refreshToken: string;
}

/** What the provider needs from its surroundings. */
export interface OidcOptions {
  /** Sends the discovery and token requests. */
  readonly fetch: OidcFetch;
  /** The clock, in milliseconds since the epoch. */
  readonly now: () => number;
  /** Called with the tokens of each refresh, to keep them (e.g. in the kubeconfig). */
  readonly persist?: (tokens: OidcTokens) => Promise<void>;
}

interface OidcConfig {
  readonly idToken?: string;
  readonly refreshToken?: string;
  readonly issuer?: string;
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly caData?: string;
  readonly caFile?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The `name` of a kubeconfig user's auth provider, or undefined. */
export function authProviderName(authProvider: unknown): string | undefined {
  return isRecord(authProvider) && typeof authProvider.name === "string"
    ? authProvider.name
    : undefined;
}

/** The `exp` claim of a JWT in milliseconds, or undefined when it has none or is not a JWT. */
export function jwtExpiry(token: string): number | undefined {
  const payload = token.split(".")[1];
  if (payload === undefined) return undefined;
  try {
    const claims = JSON.parse(decodeBase64Text(payload));
    return isRecord(claims) && typeof claims.exp === "number" ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** Gives the bearer token of an `oidc` auth provider, refreshing it when it expires. */
export class OidcTokenSource {
  readonly #context: ResolvedContext;
  readonly #options: OidcOptions;
  readonly #config: OidcConfig;
  #idToken: string | undefined;
  #refreshToken: string | undefined;
  #refused = false;
  #refreshing: Promise<string> | undefined;

  /** Reads the provider's configuration; nothing is sent yet. */
  constructor(context: ResolvedContext, options: OidcOptions) {
    this.#context = context;
    this.#options = options;
    const raw = isRecord(context.user.authProvider) && isRecord(context.user.authProvider.config)
      ? context.user.authProvider.config
      : {};
    const text = (key: string) =>
      typeof raw[key] === "string" && raw[key] !== "" ? raw[key] as string : undefined;
    this.#config = {
      ...optional("idToken", text("id-token")),
      ...optional("refreshToken", text("refresh-token")),
      ...optional("issuer", text("idp-issuer-url")),
      ...optional("clientId", text("client-id")),
      ...optional("clientSecret", text("client-secret")),
      ...optional("caData", text("idp-certificate-authority-data")),
      ...optional("caFile", text("idp-certificate-authority")),
    };
    this.#idToken = this.#config.idToken;
    this.#refreshToken = this.#config.refreshToken;
  }

  /** The id-token to send: the current one while valid, else a refreshed one. */
  token(): Promise<string> {
    const token = this.#idToken;
    if (token !== undefined && !this.#refused) {
      const expiry = jwtExpiry(token);
      if (expiry === undefined || this.#options.now() + OIDC_EXPIRY_MARGIN_MS < expiry) {
        return Promise.resolve(token);
      }
    }
    this.#refreshing ??= this.#refresh().finally(() => this.#refreshing = undefined);
    return this.#refreshing;
  }

  /** The server refused the id-token: true when a refresh can give a new one. */
  invalidate(): boolean {
    if (this.#refreshToken === undefined) return false;
    this.#refused = true;
    return true;
  }

  #fail(detail: string, cause?: unknown): KubeAuthenticationError {
    return new KubeAuthenticationError(
      this.#context,
      `the oidc auth provider ${detail}`,
      cause === undefined ? undefined : { cause },
    );
  }

  async #httpClient(): Promise<Deno.HttpClient | undefined> {
    const { caData, caFile } = this.#config;
    let ca: string | undefined;
    try {
      if (caData) ca = new TextDecoder().decode(decodeBase64(caData));
      else if (caFile) ca = await Deno.readTextFile(caFile);
    } catch (error) {
      throw this.#fail("cannot read the issuer's certificate authority", error);
    }
    return ca ? Deno.createHttpClient({ caCerts: [ca] }) : undefined;
  }

  async #json(url: string, init: RequestInit, client: Deno.HttpClient | undefined, what: string) {
    let response: Response;
    try {
      response = await this.#options.fetch(url, { ...init, ...(client ? { client } : {}) });
    } catch (error) {
      throw this.#fail(`cannot reach the issuer for ${what}`, error);
    }
    const text = await response.text();
    let body: unknown;
    try {
      checkJsonShape(text, jsonLimitsForLength(text.length, 32), "the issuer's answer");
      body = parseJson(text);
    } catch (error) {
      if (response.ok) throw this.#fail(`got ${what} that is not JSON`, error);
    }
    if (!response.ok) {
      const code =
        isRecord(body) && typeof body.error === "string" && /^[\w.-]{1,64}$/.test(body.error)
          ? `: ${body.error}`
          : "";
      throw this.#fail(`was refused ${what} (HTTP ${response.status}${code})`);
    }
    return isRecord(body) ? body : {};
  }

  async #refresh(): Promise<string> {
    const { issuer, clientId, clientSecret } = this.#config;
    const refreshToken = this.#refreshToken;
    if (refreshToken === undefined) {
      throw this.#fail(
        this.#idToken === undefined
          ? "has no id-token and no refresh-token"
          : "has an expired id-token and no refresh-token to renew it",
      );
    }
    if (!issuer) throw this.#fail("has a refresh-token but no idp-issuer-url");
    const client = await this.#httpClient();
    try {
      const discovery = await this.#json(
        `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`,
        { headers: { Accept: "application/json" } },
        client,
        "the discovery document",
      );
      const endpoint = discovery.token_endpoint;
      if (typeof endpoint !== "string" || !/^https:\/\//.test(endpoint)) {
        throw this.#fail("got a discovery document without an https token_endpoint");
      }
      const form = new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: refreshToken,
      });
      if (clientId) form.set("client_id", clientId);
      if (clientSecret) form.set("client_secret", clientSecret);
      const answer = await this.#json(
        endpoint,
        {
          method: "POST",
          headers: {
            "Content-Type": "application/x-www-form-urlencoded",
            Accept: "application/json",
          },
          body: form.toString(),
        },
        client,
        "a token refresh",
      );
      const idToken = answer.id_token;
      if (typeof idToken !== "string" || idToken === "") {
        throw this.#fail("got a token response without an id_token");
      }
      const next = typeof answer.refresh_token === "string" && answer.refresh_token !== ""
        ? answer.refresh_token
        : refreshToken;
      this.#idToken = idToken;
      this.#refreshToken = next;
      this.#refused = false;
      try {
        await this.#options.persist?.({ idToken, refreshToken: next });
      } catch (error) {
        throw this.#fail("refreshed the id-token but cannot save it", error);
      }
      return idToken;
    } finally {
      client?.close();
    }
  }
}

function optional<K extends string>(key: K, value: string | undefined) {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}
