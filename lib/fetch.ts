/**
 * The one type of an injectable `fetch`: the global one, a client's with custom CA certificates,
 * or a test's. The registry, git host and vault clients take it.
 *
 * @module
 */
import { ToolkitError } from "./errors.ts";

/** A `fetch` as Deno has it, with the `client` option for custom CA certificates. */
export type FetchFunction = (
  input: string | URL | Request,
  init?: RequestInit & { client?: Deno.HttpClient },
) => Promise<Response>;

/**
 * The longest wait a timer takes (about 24.8 days): what a client is given for "no limit"
 * (`--request-timeout=0`) where it takes a number of ms. {@linkcode timedFetch} and the
 * Kubernetes client read it (or more) as no limit and set no timer at all; a client that sets
 * its own timer from it waits that long, which is the same to a command (the timer is cleared
 * when the request ends, and no request is waited for for 24 days).
 */
export const NO_TIMEOUT_MS = 2_147_483_647;

/** Whether a timeout of `ms` is "no limit": 0 (or less), or {@linkcode NO_TIMEOUT_MS} or more. */
export function isNoLimit(ms: number): boolean {
  return !(ms > 0 && ms < NO_TIMEOUT_MS);
}

/** `1.5 s`, `30 s`, `2 min`: a duration in ms as messages write it. */
export function formatTimeout(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${ms} ms`;
}

/**
 * A server did not answer a request in time: no answer within the request timeout, or a body
 * that stopped for that long. The message names the server and the wait; the CLI adds which
 * flag sets it.
 */
export class RequestTimeoutError extends ToolkitError {
  /** The server (origin) that did not answer. */
  readonly server: string;
  /** How long the request waited, in ms. */
  readonly timeoutMs: number;

  /** Creates the error for `server` after `timeoutMs`. */
  constructor(server: string, timeoutMs: number, options?: ErrorOptions) {
    // Its cause, when it has one, is the abort that stopped the request: nothing to add.
    super(`no answer from ${server} within ${formatTimeout(timeoutMs)}`, {
      ...options,
      messageTellsCause: true,
    });
    this.name = "RequestTimeoutError";
    this.server = server;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * `error` as a {@linkcode RequestTimeoutError} of `server` when it is the abort of a timeout
 * (`AbortSignal.timeout()`'s `TimeoutError`, or a timeout error already), else `error` itself.
 */
export function timeoutOr(error: unknown, server: string, timeoutMs: number): unknown {
  if (error instanceof RequestTimeoutError) return error;
  if (error instanceof DOMException && error.name === "TimeoutError") {
    return new RequestTimeoutError(server, timeoutMs, { cause: error });
  }
  return error;
}

/** A URL as `-v` and messages show it: without credentials, query and fragment. */
export function displayUrl(url: string | URL): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return String(url);
  }
}

/** Told of each request before it is sent: its method and {@linkcode displayUrl}. */
export type RequestObserver = (method: string, url: string) => void;

/**
 * `base` telling `onRequest` of each request first (`-v`: what a command contacts). Without an
 * observer, `base` itself.
 */
export function observedFetch(
  base: FetchFunction,
  onRequest: RequestObserver | undefined,
): FetchFunction {
  if (onRequest === undefined) return base;
  return (input, init) => {
    const url = input instanceof Request ? input.url : input;
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    onRequest(method.toUpperCase(), displayUrl(url));
    return base(input, init);
  };
}

/** A promise that rejects with the signal's reason when it aborts (never settles otherwise). */
function rejection(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** What {@linkcode timedFetch}'s timeout bounds. */
export interface TimedFetchOptions {
  /**
   * `"silence"` (the default): the answer must start within the timeout and its body may not
   * stop for that long, so a large download that keeps coming is not cut. `"request"`: the whole
   * request, reading its body included, ends within the timeout (kubectl's `--request-timeout`,
   * "the length of time to wait before giving up on a single server request"), so a server that
   * keeps sending slowly is cut too.
   */
  readonly bound?: "silence" | "request";
}

/**
 * `base` giving up on a server that does not answer in time: by default a silent one (the answer
 * must start within `timeoutMs`, and its body may not stop for longer than that); with
 * `bound: "request"`, any request not over, body read, within `timeoutMs` of its start. A
 * request given up fails with a {@linkcode RequestTimeoutError} naming the server, even when
 * `base` does not honour the signal; the caller's own abort stays its own. `timeoutMs` 0 or
 * {@linkcode NO_TIMEOUT_MS} (no limit): `base` itself, no timer at all.
 *
 * A timer runs only while the caller waits (for the headers, or for a read of the body): a body
 * held unread keeps none, and with `bound: "request"` its next read gets what is left of the
 * request's time, none when it is past.
 */
export function timedFetch(
  base: FetchFunction,
  timeoutMs: number,
  options: TimedFetchOptions = {},
): FetchFunction {
  if (isNoLimit(timeoutMs)) return base;
  const wholeRequest = options.bound === "request";
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const controller = new AbortController();
    const expire = () => controller.abort(new RequestTimeoutError(url.origin, timeoutMs));
    const outer = init?.signal ?? undefined;
    const signal = outer ? AbortSignal.any([outer, controller.signal]) : controller.signal;
    const given = rejection(signal);
    given.catch(() => {});
    const deadline = Date.now() + timeoutMs;
    /** How long the next wait may last: the timeout again, or what is left of the request's. */
    const waitMs = () => wholeRequest ? deadline - Date.now() : timeoutMs;
    let timer = setTimeout(expire, timeoutMs);
    let response: Response;
    try {
      response = await Promise.race([base(input, { ...init, signal }), given]);
    } finally {
      clearTimeout(timer);
    }
    if (response.body === null) return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        const wait = waitMs();
        if (wait <= 0) expire();
        else timer = setTimeout(expire, wait);
        try {
          const { done, value } = await Promise.race([reader.read(), given]);
          if (done) stream.close();
          else stream.enqueue(value);
        } catch (error) {
          reader.cancel(error).catch(() => {});
          stream.error(error);
        } finally {
          clearTimeout(timer);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    const timed = new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    Object.defineProperty(timed, "url", { value: response.url });
    return timed;
  };
}

/**
 * An HTTPS request reached a server that answered in plain HTTP (the TLS handshake read an HTTP
 * answer): the server is reached over HTTP only. The CLI says which flag does that.
 */
export class PlainHttpAnswerError extends ToolkitError {
  /** The server (origin) that answered in plain HTTP. */
  readonly server: string;

  /** Creates the error for `server` (`https://host:port`). */
  constructor(server: string, options?: ErrorOptions) {
    super(`${server} gave an HTTP response to an HTTPS client`, {
      ...options,
      messageTellsCause: true,
    });
    this.name = "PlainHttpAnswerError";
    this.server = server;
  }
}
