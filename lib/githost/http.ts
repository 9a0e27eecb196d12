/**
 * HTTP for git-host APIs: one client per host with its base URL, its authentication headers, an
 * injectable `fetch`, the CA certificates of `--git-ca-file`, and a timeout per request. Answers
 * are turned into data or into the errors of `errors.ts`; pages are followed through `Link:
 * rel="next"` headers (GitHub, GitLab, Gitea, Gogs) or a `next` URL in the body (Bitbucket).
 *
 * @module
 */
import {
  GitBranchNotFoundError,
  GitHostApiError,
  GitHostAuthError,
  GitHostNotFoundError,
  GitHostUnreachableError,
} from "./errors.ts";
import { type FetchFunction, RequestTimeoutError, timedFetch, timeoutOr } from "../fetch.ts";
import { jsonLimitsForLength, parseJsonWithin } from "../json_shape.ts";

/** Parses a Git host's answer within a shape proportional to its length. */
function parseAnswer(text: string): unknown {
  return parseJsonWithin(text, jsonLimitsForLength(text.length, 64), "the answer");
}

export type { FetchFunction } from "../fetch.ts";

/** How to reach a host's API. */
export interface GitHostHttpOptions {
  /** The API's base URL, no trailing slash (`https://api.github.com`). */
  readonly baseUrl: string;
  /** The host as messages name it (`github.com`). */
  readonly host: string;
  /** The repository as messages name it (`org/repo`). */
  readonly repository: string;
  /** Headers of every request (authentication, Accept). */
  readonly headers: Readonly<Record<string, string>>;
  /** What to tell a user whose token is refused. */
  readonly authHint: string;
  /** The fetch to use (default the global one, with `caCertificates`). */
  readonly fetch?: FetchFunction;
  /** PEM CA certificates the host's certificate is checked against. */
  readonly caCertificates?: readonly string[];
  /** Per-request timeout in ms (default 30 s). */
  readonly timeoutMs?: number;
}

/** An answer of the API. */
export interface ApiAnswer<T> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

/** The `next` link of a `Link` header, or undefined. */
export function nextLink(header: string | null): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(",")) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (match) return match[1];
  }
  return undefined;
}

/** A client of one host's API. */
export class GitHostHttp {
  readonly #options: GitHostHttpOptions;
  readonly #fetch: FetchFunction;
  #client?: Deno.HttpClient;

  /** A client for `options`. */
  constructor(options: GitHostHttpOptions) {
    this.#options = options;
    const base: FetchFunction = options.fetch ?? ((input, init) => fetch(input, init));
    if (options.caCertificates?.length) {
      this.#client = Deno.createHttpClient({ caCerts: [...options.caCertificates] });
      const client = this.#client;
      this.#fetch = (input, init) => base(input, { ...init, client });
    } else {
      this.#fetch = base;
    }
  }

  /** The host as messages name it. */
  get host(): string {
    return this.#options.host;
  }

  /** The API's base URL. */
  get baseUrl(): string {
    return this.#options.baseUrl;
  }

  /** The repository as messages name it. */
  get repository(): string {
    return this.#options.repository;
  }

  /** Closes the HTTP client of the CA certificates. */
  close(): void {
    this.#client?.close();
  }

  /** The text at `path` (a raw file), or undefined when the host answers 404. */
  async optionalText(path: string, action: string): Promise<string | undefined> {
    const { status, body } = await this.request<string>("GET", path, action, {
      accept: [404],
      text: true,
    });
    return status === 404 ? undefined : body;
  }

  /**
   * Sends a request (`path` below the base URL, or an absolute URL from a `next` link) and
   * returns the answer; `accept` lists the statuses that are answers, not errors (404 is turned
   * into {@link GitHostNotFoundError} unless accepted).
   */
  async request<T = unknown>(
    method: string,
    path: string,
    action: string,
    options: { body?: unknown; accept?: readonly number[]; text?: boolean } = {},
  ): Promise<ApiAnswer<T>> {
    const url = /^https?:\/\//.test(path) ? path : `${this.#options.baseUrl}${path}`;
    const headers: Record<string, string> = { ...this.#options.headers };
    if (options.body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    const timeoutMs = this.#options.timeoutMs ?? 30_000;
    const origin = new URL(url).origin;
    try {
      response = await timedFetch(this.#fetch, timeoutMs, { bound: "request" })(url, {
        method,
        headers,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      });
    } catch (error) {
      throw new GitHostUnreachableError(this.#options.host, timeoutOr(error, origin, timeoutMs));
    }
    const text = await response.text().catch((error) => {
      if (error instanceof RequestTimeoutError) {
        throw new GitHostUnreachableError(this.#options.host, error);
      }
      return "";
    });
    const accepted = options.accept?.includes(response.status) ?? false;
    if (!response.ok && !accepted) {
      if (response.status === 401 || response.status === 403) {
        throw new GitHostAuthError(
          this.#options.host,
          response.status,
          action,
          this.#options.authHint,
        );
      }
      if (response.status === 404) {
        throw new GitHostNotFoundError(this.#options.host, this.#options.repository);
      }
      throw new GitHostApiError(this.#options.host, action, response.status, errorMessage(text));
    }
    let body: unknown = text;
    if (!options.text && text !== "") {
      try {
        body = parseAnswer(text);
      } catch {
        body = text;
      }
    }
    return { status: response.status, body: body as T, headers: response.headers };
  }

  /**
   * The commit `branch` points to: the full hash `pick` finds in the host's answer for the branch
   * at `path`. A 404 is {@link GitBranchNotFoundError} naming the branch; an answer without a full
   * hash (40 hex digits, SHA-1; 64, SHA-256) is a {@link GitHostApiError}.
   */
  async branchHead(
    path: string,
    branch: string,
    pick: (body: Record<string, unknown>) => unknown,
  ): Promise<string> {
    const action = `read the head of branch ${branch}`;
    const { status, body } = await this.request<unknown>("GET", path, action, { accept: [404] });
    if (status === 404) {
      throw new GitBranchNotFoundError(this.#options.host, this.#options.repository, branch);
    }
    const hash = typeof body === "object" && body !== null && !Array.isArray(body)
      ? pick(body as Record<string, unknown>)
      : undefined;
    if (typeof hash !== "string" || !FULL_COMMIT_HASH.test(hash)) {
      throw new GitHostApiError(
        this.#options.host,
        action,
        status,
        "the answer names no full commit hash",
      );
    }
    return hash;
  }

  /** Every item of a paged list, following `Link: rel="next"`. */
  async pages<T>(path: string, action: string): Promise<T[]> {
    const items: T[] = [];
    let next: string | undefined = path;
    for (let page = 0; next && page < 100; page++) {
      const answer: ApiAnswer<T[]> = await this.request<T[]>("GET", next, action);
      if (Array.isArray(answer.body)) items.push(...answer.body);
      next = nextLink(answer.headers.get("link"));
    }
    return items;
  }
}

/** The object `body[field]` of an answer, or undefined when it is not an object. */
export function objectField(
  body: Record<string, unknown>,
  field: string,
): Record<string, unknown> | undefined {
  const value = body[field];
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}

/** A full git commit hash: SHA-1 (40 hex digits) or SHA-256 (64), as hosts write them. */
const FULL_COMMIT_HASH = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** The message of an error body (`{"message": …}`, `{"error": {"message": …}}`) or its text. */
export function errorMessage(text: string): string {
  try {
    const body = parseAnswer(text) as Record<string, unknown>;
    const nested = body.error as Record<string, unknown> | string | undefined;
    const message = body.message ?? (typeof nested === "object" ? nested?.message : nested) ??
      body.errors;
    if (message !== undefined) {
      return (typeof message === "string" ? message : JSON.stringify(message)).slice(0, 300);
    }
  } catch {
    // not JSON
  }
  return text.slice(0, 300);
}
