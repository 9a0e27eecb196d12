/**
 * Registry authentication: anonymous, Basic and Bearer tokens (the Docker token protocol).
 *
 * - **Basic** is sent on a `WWW-Authenticate: Basic` challenge, and proactively when credentials
 *   are known for the host and the host has not asked for Bearer tokens.
 * - **Bearer**: on a `Bearer realm=…,service=…,scope=…` challenge the token service (`realm`) is
 *   asked with `GET realm?service=…&scope=repository:<path>:pull` (plus the challenge's own
 *   scope when it differs), with Basic credentials when there are some. The answer's `token`
 *   (or `access_token`) is cached per (realm, service, scopes, identity) for `expires_in`
 *   seconds (60 when missing). Once a host is known to use tokens, later requests fetch or reuse
 *   a token first and skip the 401 round trip.
 * - Credentials are only sent to a token service over HTTPS, or over HTTP when its host is one
 *   of the insecure registries.
 * - When several credentials apply (a key for the repository path and one for the host, several
 *   pull secrets) they are tried in order until one is accepted; the one that worked is tried
 *   first next time for that repository.
 *
 * Nothing here puts a password, an `Authorization` value or a token into an error message.
 *
 * @module
 */

import type { ReadBudget } from "../read_budget.ts";
import { basicAuthorization as basic } from "../base64.ts";
import { type AuthChallenge, parseAuthenticate } from "./challenge.ts";
import type { Credential } from "./credentials.ts";
import type { CredentialStore } from "./keyring.ts";
import { TtlCache } from "../cache.ts";
import { DEFAULT_TOKEN_LIFETIME_SECONDS, type TokenCache, type TokenKey } from "./token_cache.ts";
import type { HttpRequest, HttpResponse, Transport } from "./transport.ts";
import { safeExcerpt } from "../errors.ts";
import { parseJsonWithin } from "../json_shape.ts";

/** An action on a repository, as used in token scopes. */
export type RepositoryAction = "pull" | "push";

/** Returns the token scope for a repository: `repository:team/app:pull,push`. */
export function repositoryScope(path: string, actions: readonly RepositoryAction[]): string {
  return `repository:${path}:${actions.join(",")}`;
}

/** What a request is for, to choose credentials and token scopes. */
export interface AuthTarget {
  /** The registry host as in the image reference (`docker.io`, `127.0.0.1:5000`). */
  readonly registry: string;
  /** The repository path, when the request is for one. */
  readonly repository?: string | undefined;
  /** The actions the request needs (`["pull"]`, `["pull", "push"]`). */
  readonly actions: readonly RepositoryAction[];
}

/** The outcome of an authenticated request. */
export interface AuthenticatedResponse {
  /** The registry's answer, when the registry was reached with some authorization. */
  readonly response?: HttpResponse;
  /** Why authentication failed, without secrets (set when the answer is 401 or missing). */
  readonly failure?: string;
  /** The status of the failure when there is no registry answer (the token service's). */
  readonly failureStatus?: number;
}

/** What the auth layer needs. */
export interface RegistryAuthOptions {
  /** Sends the requests (registry and token service). */
  readonly transport: Transport;
  /** Where credentials come from; none means anonymous only. */
  readonly credentials?: CredentialStore | undefined;
  /** The token cache. */
  readonly tokens: TokenCache;
  /** The clock (ms). */
  readonly now: () => number;
  /** Whether a host (`host:port` or `host`) may be reached over plain HTTP. */
  readonly isInsecureHost: (host: string) => boolean;
  /** The largest token service answer read. Default 1 MiB. */
  readonly maxTokenBytes?: number;
}

/** Sends requests with the right authorization. */
export interface RegistryAuth {
  /**
   * Sends the request made by `build` (given the `Authorization` value to use, if any), answering
   * challenges and trying the applicable credentials in order.
   */
  send(
    target: AuthTarget,
    build: (authorization: string | undefined) => HttpRequest,
  ): Promise<AuthenticatedResponse>;
  /** Records what a host's `/v2/` ping said about its authentication. */
  learn(registry: string, challenges: readonly AuthChallenge[]): void;
}

/** What is known about a host's authentication. */
interface HostState {
  scheme?: "basic" | "bearer";
  bearer?: { realm: string; service: string };
  /** The index of the credential that last worked, per repository. */
  preferred: TtlCache<string, number>;
}

/**
 * The most registry hosts a client remembers (what their `/v2/` said about authentication, and
 * their ping); the least recently used are forgotten and asked again.
 */
export const MAX_REGISTRY_HOSTS = 256;
/** The most repositories per host whose working credential is remembered. */
export const MAX_PREFERRED_CREDENTIALS = 256;
/** How long what a host said is remembered. */
export const HOST_MEMORY_MS = 3600_000;

/** The token service refused (401/403) the credentials or anonymous access. */
class TokenRefused {
  constructor(readonly detail: string, readonly status: number) {}
}

function basicAuthorization(credential: Credential): string {
  return basic(credential.username, credential.password);
}

function refusedToken(credential: Credential | undefined): string {
  return credential
    ? `the registry refused the token issued for the credentials from ${credential.source}`
    : "the registry refused the anonymous token; credentials may be needed";
}

function describeRealm(realm: string): string {
  try {
    const u = new URL(realm);
    return `${u.origin}${u.pathname}`;
  } catch {
    return "(invalid realm)";
  }
}

/** Creates the auth layer. */
export function createRegistryAuth(options: RegistryAuthOptions): RegistryAuth {
  const hosts = new TtlCache<string, HostState>({
    name: "registry-host",
    ttlMs: HOST_MEMORY_MS,
    maxEntries: MAX_REGISTRY_HOSTS,
    now: options.now,
  });
  const pending = new Map<string, Promise<string | TokenRefused>>();
  const maxTokenBytes = options.maxTokenBytes ?? 1024 * 1024;

  function host(registry: string): HostState {
    let state = hosts.get(registry);
    if (state === undefined) {
      state = {
        preferred: new TtlCache({
          ttlMs: HOST_MEMORY_MS,
          maxEntries: MAX_PREFERRED_CREDENTIALS,
          now: options.now,
        }),
      };
      hosts.set(registry, state);
    }
    return state;
  }

  function learn(registry: string, challenges: readonly AuthChallenge[]): void {
    const state = host(registry);
    const bearer = challenges.find((c) => c.scheme === "bearer" && c.params.realm);
    if (bearer) {
      state.scheme = "bearer";
      state.bearer = { realm: bearer.params.realm!, service: bearer.params.service ?? "" };
    } else if (challenges.some((c) => c.scheme === "basic")) {
      state.scheme = "basic";
    }
  }

  function scopesFor(target: AuthTarget, challenge?: AuthChallenge): string[] {
    const scopes: string[] = [];
    if (target.repository !== undefined) {
      scopes.push(repositoryScope(target.repository, target.actions));
    }
    const extra = challenge?.params.scope;
    if (extra) {
      for (const scope of extra.split(" ")) {
        if (scope !== "" && !scopes.includes(scope)) scopes.push(scope);
      }
    }
    return scopes;
  }

  function tokenKey(
    bearer: { realm: string; service: string },
    scopes: readonly string[],
    credential: Credential | undefined,
  ): TokenKey {
    const identity = credential ? `${credential.source}\u0000${credential.username}` : "";
    return { realm: bearer.realm, service: bearer.service, scopes, identity };
  }

  /**
   * Gets a token (cached, or fresh when `fresh` or none is cached); a TokenRefused when the
   * service refuses. Concurrent requests for the same token share one token request.
   */
  function token(
    bearer: { realm: string; service: string },
    scopes: readonly string[],
    credential: Credential | undefined,
    signal: AbortSignal | undefined,
    budget: ReadBudget | undefined,
    fresh: boolean,
  ): Promise<string | TokenRefused> {
    const key = tokenKey(bearer, scopes, credential);
    if (!fresh) {
      const cached = options.tokens.get(key);
      if (cached !== undefined) return Promise.resolve(cached);
    } else {
      options.tokens.delete(key);
    }
    const id = JSON.stringify(key);
    const running = pending.get(id);
    if (running !== undefined) return running;
    const promise = requestToken(bearer, scopes, credential, signal, budget, key).finally(() =>
      pending.delete(id)
    );
    pending.set(id, promise);
    return promise;
  }

  /** Asks the token service for a token and caches it. */
  async function requestToken(
    bearer: { realm: string; service: string },
    scopes: readonly string[],
    credential: Credential | undefined,
    signal: AbortSignal | undefined,
    budget: ReadBudget | undefined,
    key: TokenKey,
  ): Promise<string | TokenRefused> {
    let url: URL;
    try {
      url = new URL(bearer.realm);
    } catch {
      return new TokenRefused("the registry's Bearer challenge has an invalid realm", 401);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      return new TokenRefused(
        "the registry's Bearer challenge has a realm that is not HTTP(S)",
        401,
      );
    }
    if (bearer.service) url.searchParams.set("service", bearer.service);
    for (const scope of scopes) url.searchParams.append("scope", scope);
    const headers = new Headers({ accept: "application/json" });
    const realmName = describeRealm(bearer.realm);
    if (credential) {
      if (url.protocol === "http:" && !options.isInsecureHost(url.host)) {
        return new TokenRefused(
          `refusing to send the credentials from ${credential.source} to the token service "${realmName}" over plain HTTP`,
          401,
        );
      }
      headers.set("authorization", basicAuthorization(credential));
    }
    const obtainedAt = options.now();
    const request: HttpRequest = {
      method: "GET",
      url: url.href,
      headers,
      maxBytes: maxTokenBytes,
      signal,
      budget,
    };
    const response = await options.transport.send(request);
    if (response.status === 401 || response.status === 403) {
      return new TokenRefused(
        credential
          ? `the token service "${realmName}" rejected the credentials from ${credential.source} (HTTP ${response.status})`
          : `the token service "${realmName}" refused anonymous access (HTTP ${response.status})`,
        response.status,
      );
    }
    if (response.status < 200 || response.status >= 300) {
      return new TokenRefused(
        `the token service "${realmName}" answered HTTP ${response.status} ${response.statusText}`
          .trim(),
        response.status,
      );
    }
    let body: unknown;
    try {
      // `{"token", "access_token", "expires_in", "issued_at", "refresh_token"}` and a few more.
      body = parseJsonWithin(response.body, { maxValues: 256, maxDepth: 8 }, "the token answer");
    } catch {
      return new TokenRefused(
        `the token service "${realmName}" answered with invalid JSON or too many values`,
        502,
      );
    }
    const record = typeof body === "object" && body !== null ? body as Record<string, unknown> : {};
    const value = typeof record.token === "string" && record.token !== ""
      ? record.token
      : typeof record.access_token === "string" && record.access_token !== ""
      ? record.access_token
      : undefined;
    if (value === undefined) {
      return new TokenRefused(`the token service "${realmName}" answered without a token`, 502);
    }
    const expiresIn = typeof record.expires_in === "number" && Number.isFinite(record.expires_in) &&
        record.expires_in > 0
      ? record.expires_in
      : DEFAULT_TOKEN_LIFETIME_SECONDS;
    options.tokens.set(key, value, obtainedAt, expiresIn);
    return value;
  }

  type Attempt =
    | { ok: true; response: HttpResponse }
    | { ok: false; response?: HttpResponse; failure: string; status?: number; fatal?: boolean };

  async function attemptWith(
    target: AuthTarget,
    credential: Credential | undefined,
    build: (authorization: string | undefined) => HttpRequest,
  ): Promise<Attempt> {
    const state = host(target.registry);
    let authorization: string | undefined;
    let usedCachedToken = false;
    let sentBasic = false;
    const firstRequest = build(undefined);
    const { signal, budget } = firstRequest;
    if (state.scheme === "bearer" && state.bearer) {
      const scopes = scopesFor(target);
      const key = tokenKey(state.bearer, scopes, credential);
      usedCachedToken = options.tokens.get(key) !== undefined;
      const got = await token(state.bearer, scopes, credential, signal, budget, false);
      if (got instanceof TokenRefused) {
        return { ok: false, failure: got.detail, status: got.status, fatal: got.status >= 500 };
      }
      authorization = `Bearer ${got}`;
    } else if (credential && state.scheme !== "bearer") {
      authorization = basicAuthorization(credential);
      sentBasic = true;
    }
    let response = await options.transport.send(
      authorization ? build(authorization) : firstRequest,
    );
    if (response.status !== 401) return { ok: true, response };

    const challenges = parseAuthenticate(response.headers.get("www-authenticate"));
    const bearer = challenges.find((c) => c.scheme === "bearer" && c.params.realm);
    if (bearer) {
      const wasBearer = authorization?.startsWith("Bearer ") ?? false;
      learn(target.registry, challenges);
      const wantsMore = scopesFor(target, bearer).length > scopesFor(target).length;
      if (wasBearer && !usedCachedToken && !wantsMore) {
        return { ok: false, response, failure: refusedToken(credential) };
      }
      // A refused cached token is replaced; without one, a token cached meanwhile (by a
      // concurrent request) is good.
      const got = await token(
        state.bearer!,
        scopesFor(target, bearer),
        credential,
        signal,
        budget,
        wasBearer,
      );
      if (got instanceof TokenRefused) {
        return {
          ok: false,
          response,
          failure: got.detail,
          status: got.status,
          fatal: got.status >= 500,
        };
      }
      response = await options.transport.send(build(`Bearer ${got}`));
      if (response.status !== 401) return { ok: true, response };
      return { ok: false, response, failure: refusedToken(credential) };
    }
    if (challenges.some((c) => c.scheme === "basic")) {
      state.scheme = "basic";
      if (!credential) {
        return {
          ok: false,
          response,
          failure: `no credentials are configured for ${target.registry}`,
        };
      }
      if (!sentBasic) {
        response = await options.transport.send(build(basicAuthorization(credential)));
        if (response.status !== 401) return { ok: true, response };
      }
      return {
        ok: false,
        response,
        failure: `the registry rejected the credentials from ${credential.source}`,
      };
    }
    return {
      ok: false,
      response,
      failure: challenges.length === 0
        ? "the registry sent no WWW-Authenticate challenge"
        : `the registry asks for an unsupported authentication scheme "${
          safeExcerpt(challenges[0]!.scheme, { maxChars: 32 })
        }"`,
    };
  }

  async function send(
    target: AuthTarget,
    build: (authorization: string | undefined) => HttpRequest,
  ): Promise<AuthenticatedResponse> {
    const found = target.repository !== undefined
      ? options.credentials?.lookup(target.registry, target.repository) ?? []
      : [];
    const candidates: (Credential | undefined)[] = found.length > 0 ? [...found] : [undefined];
    const state = host(target.registry);
    const repoKey = target.repository ?? "";
    const preferred = state.preferred.get(repoKey) ?? 0;
    const order = candidates.map((_, i) => i);
    if (preferred > 0 && preferred < candidates.length) {
      order.splice(order.indexOf(preferred), 1);
      order.unshift(preferred);
    }
    const failures: string[] = [];
    let last: Attempt | undefined;
    for (const index of order) {
      const result = await attemptWith(target, candidates[index], build);
      if (result.ok) {
        state.preferred.set(repoKey, index);
        return { response: result.response };
      }
      failures.push(result.failure);
      last = result;
      if (result.fatal) break;
    }
    const failure = failures.join("; ");
    if (last !== undefined && !last.ok && last.response !== undefined) {
      return { response: last.response, failure };
    }
    return { failure, failureStatus: last !== undefined && !last.ok ? last.status ?? 401 : 401 };
  }

  return { send, learn };
}
