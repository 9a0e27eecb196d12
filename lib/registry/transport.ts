/**
 * The HTTP layer of the registry client: one place that sets the User-Agent, trusts extra CA
 * certificates, puts a timeout on every request, limits every response body it reads, follows
 * redirects without carrying credentials to other hosts, retries with backoff, and counts
 * requests.
 *
 * Bodies are read completely (up to their limit) before `send` returns, so a timeout covers the
 * whole exchange and nothing is left open: registry API answers (manifests, tokens, signature
 * lists, errors) are small. Blob downloads are not part of this client.
 *
 * @module
 */

import { BudgetExceededError, type ReadBudget } from "../read_budget.ts";
import { readStreamLimited } from "../bytes.ts";
import { USER_AGENT } from "../version.ts";
import { abortableSleep } from "../sleep.ts";
import { ResponseTooLargeError, TransportError } from "./errors.ts";
import { safeExcerpt } from "../errors.ts";
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  isRetryableStatus,
  parseRetryAfter,
  type RetryPolicy,
} from "../retry.ts";
import {
  displayUrl,
  type FetchFunction,
  isNoLimit,
  PlainHttpAnswerError,
  RequestTimeoutError,
  timedFetch,
} from "../fetch.ts";

export type { FetchFunction } from "../fetch.ts";

/** How the transport sends requests; every field has a default. */
export interface TransportOptions {
  /** The fetch to use. Default: the global `fetch`. */
  fetch?: FetchFunction;
  /** Extra trusted CA certificates (PEM), added to the default roots. */
  caCerts?: readonly string[];
  /** The time one attempt may take, body included. Default 30 000 ms. */
  timeoutMs?: number;
  /** Retry policy; missing fields take the {@linkcode DEFAULT_RETRY_POLICY} values. */
  retry?: Partial<RetryPolicy>;
  /** Waits between retries. Default: a `setTimeout` promise. Tests pass a fake one. */
  sleep?: (ms: number) => Promise<void>;
  /** The clock, in milliseconds since the epoch (for HTTP-date `Retry-After`). */
  now?: () => number;
  /** The jitter source, [0, 1). Default `Math.random`. */
  random?: () => number;
  /** The User-Agent header. Default {@linkcode USER_AGENT}. */
  userAgent?: string;
  /** Redirects followed per attempt. Default 5. */
  maxRedirects?: number;
}

/** One request. */
export interface HttpRequest {
  /** The method. GET and HEAD are retried on 5xx and network errors, others only on 429. */
  readonly method: "GET" | "HEAD" | "PUT" | "POST" | "PATCH" | "DELETE";
  /** The absolute URL. */
  readonly url: string;
  /** Request headers. `Authorization` is dropped on a redirect to another origin. */
  readonly headers?: HeadersInit;
  /** The request body. */
  readonly body?: string | Uint8Array;
  /** The largest body accepted for a successful (2xx) answer; more fails. */
  readonly maxBytes: number;
  /** Aborts the request (and any wait before a retry). */
  readonly signal?: AbortSignal | undefined;
  /**
   * Charged for every byte of every body read (answers, error answers, each retry), before it
   * is kept; past it the request fails with {@linkcode BudgetExceededError}.
   */
  readonly budget?: ReadBudget | undefined;
}

/** A response, with its body read. */
export interface HttpResponse {
  /** The HTTP status. */
  readonly status: number;
  /** The status text. */
  readonly statusText: string;
  /** The response headers. */
  readonly headers: Headers;
  /**
   * The body. For a 2xx answer the whole body (or a {@linkcode ResponseTooLargeError}); for
   * other answers at most {@linkcode ERROR_BODY_LIMIT} bytes, silently truncated.
   */
  readonly body: Uint8Array;
  /** The URL that answered, after redirects. */
  readonly url: string;
}

/** Sends registry requests. */
export interface Transport extends Disposable {
  /** Sends a request, following redirects and retrying; resolves with any HTTP status. */
  send(request: HttpRequest): Promise<HttpResponse>;
  /** HTTP requests sent so far (every attempt and redirect counts). */
  readonly requestCount: number;
  /** Releases the HTTP client made for custom CA certificates. */
  close(): void;
}

/** How much of an error answer's body is kept (enough for any JSON error list). */
export const ERROR_BODY_LIMIT = 64 * 1024;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Reads a body incrementally, failing (or truncating) at `limit` bytes. */
export async function readLimited(
  response: Response,
  limit: number,
  options: { truncate: boolean; url: string; budget?: ReadBudget | undefined },
): Promise<Uint8Array> {
  if (response.body === null) return new Uint8Array();
  const declared = Number(response.headers.get("content-length"));
  if (!options.truncate && Number.isFinite(declared) && declared > limit) {
    await response.body.cancel().catch(() => {});
    throw new ResponseTooLargeError(options.url, limit);
  }
  const { bytes, overLimit } = await readStreamLimited(response.body, limit, {
    truncate: options.truncate,
    budget: options.budget,
  });
  if (overLimit && !options.truncate) throw new ResponseTooLargeError(options.url, limit);
  return bytes;
}

/** Creates a transport. Call `close()` (or `using`) when done with it. */
export function createTransport(options: TransportOptions = {}): Transport {
  const doFetch: FetchFunction = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const userAgent = options.userAgent ?? USER_AGENT;
  const maxRedirects = options.maxRedirects ?? 5;
  const client = options.caCerts && options.caCerts.length > 0
    ? Deno.createHttpClient({ caCerts: [...options.caCerts] })
    : undefined;
  let requestCount = 0;

  /**
   * One attempt: the request and its redirects, with the body read, under one timeout. Each hop
   * is a `timedFetch` bounding the whole request (`bound: "request"`) by what is left of the
   * attempt's time, so the attempt ends within `timeoutMs` of its start.
   */
  async function attempt(request: HttpRequest): Promise<HttpResponse> {
    const deadline = Date.now() + timeoutMs;
    /** The fetch of the next hop: at least 1 ms, as 0 would be "no limit". */
    const hopFetch = (): FetchFunction =>
      timedFetch(doFetch, isNoLimit(timeoutMs) ? timeoutMs : Math.max(1, deadline - Date.now()), {
        bound: "request",
      });
    const signal = request.signal;
    let url = request.url;
    let method: string = request.method;
    let body = request.body;
    const headers = new Headers(request.headers);
    if (!headers.has("user-agent")) headers.set("user-agent", userAgent);
    try {
      for (let hop = 0;; hop++) {
        requestCount++;
        const init: RequestInit & { client?: Deno.HttpClient } = {
          method,
          headers,
          redirect: "manual",
        };
        if (signal) init.signal = signal;
        if (body !== undefined) init.body = body as BodyInit;
        if (client) init.client = client;
        const response = await hopFetch()(url, init);
        const location = response.headers.get("location");
        if (REDIRECT_STATUSES.has(response.status) && location !== null) {
          await response.body?.cancel().catch(() => {});
          if (hop >= maxRedirects) {
            throw new TransportError(
              displayUrl(request.url),
              `more than ${maxRedirects} redirects`,
              {
                timedOut: false,
              },
            );
          }
          const next = new URL(location, url);
          const current = new URL(url);
          if (current.protocol === "https:" && next.protocol !== "https:") {
            throw new TransportError(
              displayUrl(request.url),
              `refusing a redirect from HTTPS to "${displayUrl(next.href)}"`,
              { timedOut: false },
            );
          }
          if (next.origin !== current.origin) headers.delete("authorization");
          if (response.status === 303 && method !== "HEAD") {
            method = "GET";
            body = undefined;
          }
          url = next.href;
          continue;
        }
        const ok = response.status >= 200 && response.status < 300;
        const read = { url: displayUrl(url), budget: request.budget };
        const bytes = ok
          ? await readLimited(response, request.maxBytes, { truncate: false, ...read })
          : await readLimited(response, ERROR_BODY_LIMIT, { truncate: true, ...read });
        return {
          status: response.status,
          // The reason phrase is the server's free text: bounded and scrubbed like a body.
          statusText: safeExcerpt(response.statusText, { maxChars: 64 }),
          headers: response.headers,
          body: bytes,
          url,
        };
      }
    } catch (error) {
      if (
        error instanceof ResponseTooLargeError || error instanceof TransportError ||
        error instanceof BudgetExceededError
      ) {
        throw error;
      }
      if (error instanceof RequestTimeoutError && !request.signal?.aborted) {
        throw new TransportError(displayUrl(url), `no answer within ${timeoutMs} ms`, {
          timedOut: true,
          cause: new RequestTimeoutError(new URL(url).origin, timeoutMs),
        });
      }
      if (request.signal?.aborted) throw request.signal.reason ?? error;
      if (url.startsWith("https:") && answeredPlainHttp(error)) {
        // skopeo's words: the server gave an HTTP response to an HTTPS client.
        throw new TransportError(
          displayUrl(url),
          "the server gave an HTTP response to an HTTPS client",
          {
            timedOut: false,
            plainHttp: true,
            cause: new PlainHttpAnswerError(new URL(url).origin, { cause: error }),
          },
        );
      }
      throw new TransportError(displayUrl(url), networkDetail(error), {
        timedOut: false,
        cause: error,
      });
    }
  }

  async function wait(ms: number, signal?: AbortSignal): Promise<void> {
    if (options.sleep) {
      await options.sleep(ms);
      if (signal?.aborted) throw signal.reason;
    } else {
      await abortableSleep(ms, signal);
    }
  }

  async function send(request: HttpRequest): Promise<HttpResponse> {
    const idempotent = request.method === "GET" || request.method === "HEAD";
    for (let retry = 0;; retry++) {
      const canRetry = retry < policy.maxRetries;
      let response: HttpResponse;
      try {
        response = await attempt(request);
      } catch (error) {
        const retryable = error instanceof TransportError && !error.timedOut && idempotent;
        if (!retryable || !canRetry) throw error;
        await wait(backoffDelay(retry, policy, random), request.signal);
        continue;
      }
      if (!canRetry || !isRetryableStatus(response.status)) return response;
      if (!idempotent && response.status !== 429) return response;
      const retryAfter = parseRetryAfter(response.headers.get("retry-after"), now());
      if (retryAfter !== undefined && retryAfter > policy.maxDelayMs) return response;
      await wait(retryAfter ?? backoffDelay(retry, policy, random), request.signal);
    }
  }

  const close = () => client?.close();
  return {
    send,
    get requestCount() {
      return requestCount;
    },
    close,
    [Symbol.dispose]: close,
  };
}

/** A short description of a fetch failure, without URLs or headers. */
/**
 * Whether a fetch failed because the TLS handshake read a plain HTTP answer (rustls:
 * `received corrupt message of type InvalidContentType`; Go: `server gave HTTP response`).
 */
export function answeredPlainHttp(error: unknown): boolean {
  const text = networkDetail(error);
  return /InvalidContentType|HTTP response to HTTPS|wrong version number/i.test(text);
}

function networkDetail(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${error.message}${cause}`;
  }
  return String(error);
}
