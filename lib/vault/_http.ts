/**
 * Private helpers shared by the Key Protect and IAM clients: one request, sent again with
 * jittered exponential backoff when the service answers 429 or a 5xx other than 501 (or does not
 * answer), honouring `Retry-After`, a bounded number of times (4 retries, as IBM's Go SDK) within
 * a bounded total time; then either the answer or a clear {@link VaultError}. Time, randomness and
 * the network are passed in, so tests run without real waits.
 *
 * Text from an answer goes into messages only through {@linkcode safeExcerpt} (bounded, the token
 * or API key and anything secret-shaped scrubbed).
 *
 * @module
 */
import { safeExcerpt } from "../errors.ts";
import { backoffDelay, parseRetryAfter, type RetryPolicy } from "../retry.ts";
import { VaultError } from "./vault_error.ts";
import { type FetchFunction, RequestTimeoutError, timedFetch } from "../fetch.ts";

/** How vault and IAM requests are retried. */
export interface VaultRetryPolicy extends RetryPolicy {
  /**
   * The most time one request may take from its first attempt, waits included: a retry whose
   * wait would end later is not made. Default 60 s.
   */
  readonly budgetMs: number;
}

/**
 * The default policy, as IBM's Go SDK (`RetryMax` 4, waits from 1 s doubling up to 30 s), with
 * jitter and a total budget of 60 s.
 */
export const DEFAULT_VAULT_RETRY: VaultRetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  budgetMs: 60_000,
};

/** One attempt of a request, as `-v` tells it. */
export interface VaultTraceEvent {
  /** Which service was asked. */
  readonly service: "Key Protect" | "IAM";
  /** The HTTP method. */
  readonly method: string;
  /** The URL's path and query (never a secret: ids, aliases, filters). */
  readonly path: string;
  /** The attempt, from 1. */
  readonly attempt: number;
  /** The status of the answer; absent when none came. */
  readonly status?: number;
  /** Why no answer came. */
  readonly failure?: string;
  /** How long the attempt took. */
  readonly elapsedMs: number;
  /** The `correlation-id` sent (Key Protect) or IAM's request id, when known. */
  readonly correlationId?: string;
  /** Set when another attempt follows after this wait. */
  readonly retryInMs?: number;
}

/**
 * One attempt as a line (for `-v`, and to say a retry is coming): `Key Protect GET
 * /api/v2/keys/x/metadata: 503 in 12 ms [correlation-id: …]; retrying in 1.2 s (attempt 2)`.
 */
export function describeTraceEvent(event: VaultTraceEvent): string {
  const outcome = event.status !== undefined ? String(event.status) : event.failure || "no answer";
  const id = event.correlationId
    ? ` [${event.service === "IAM" ? "IAM request id" : "correlation-id"}: ${event.correlationId}]`
    : "";
  const retry = event.retryInMs !== undefined
    ? `; retrying in ${formatDuration(event.retryInMs)} (attempt ${event.attempt + 1})`
    : "";
  return `${event.service} ${event.method} ${event.path}: ${outcome} in ${
    formatDuration(event.elapsedMs)
  }${id}${retry}`;
}

/** What the vault and IAM clients reach the network and time through. */
export interface VaultTransportOptions {
  /** The fetch function. @default {globalThis.fetch} */
  fetch?: FetchFunction;
  /** The current time in ms since the epoch. @default {Date.now} */
  now?: () => number;
  /** Waits `ms` (between attempts). @default {setTimeout} */
  sleep?: (ms: number) => Promise<void>;
  /** A random number in [0, 1), for the jitter of waits. @default {Math.random} */
  random?: () => number;
  /** How long to wait for each answer. @default {30000} */
  timeoutMs?: number;
  /** The retry policy; missing fields take {@linkcode DEFAULT_VAULT_RETRY}'s. */
  retry?: Partial<VaultRetryPolicy>;
  /** Told about every attempt (for `-v`, and to say a retry is coming). */
  trace?: (event: VaultTraceEvent) => void;
}

/** {@link VaultTransportOptions} with every default filled in. */
export interface Transport {
  readonly fetch: FetchFunction;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
  readonly timeoutMs: number;
  readonly retry: VaultRetryPolicy;
  readonly trace: (event: VaultTraceEvent) => void;
}

/** Fills in the defaults of `options`. */
export function transportOf(options: VaultTransportOptions): Transport {
  return {
    fetch: options.fetch ?? fetch,
    now: options.now ?? Date.now,
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    random: options.random ?? Math.random,
    timeoutMs: options.timeoutMs ?? 30_000,
    retry: { ...DEFAULT_VAULT_RETRY, ...options.retry },
    trace: options.trace ?? (() => {}),
  };
}

/** An answer whose body has been read. */
export interface Answer {
  /** The HTTP status. */
  readonly status: number;
  /** The HTTP status text (may be empty under HTTP/2). */
  readonly statusText: string;
  /** The response headers. */
  readonly headers: Headers;
  /** The body as text. */
  readonly text: string;
  /** How many times the request was sent. */
  readonly attempts: number;
  /** How long all attempts took, waits included. */
  readonly elapsedMs: number;
  /**
   * Why a retryable answer was not retried, for its error message (`; it asked to retry after
   * 2 min, beyond the retry budget of 60 s`), or "".
   */
  readonly stopped: string;
}

/** The standard reason phrases of the statuses a vault or IAM answers with. */
const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  410: "Gone",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** `404 Not Found`: the status with its reason phrase. */
export function statusLine(answer: Pick<Answer, "status" | "statusText">): string {
  const phrase = safeExcerpt(answer.statusText, { maxChars: 64 }) ||
    REASON_PHRASES[answer.status] || "";
  return phrase ? `${answer.status} ${phrase}` : String(answer.status);
}

/**
 * Whether an answer is worth another attempt, as IBM's Go SDK decides (`kpCheckRetry`): 429 Too
 * Many Requests and every 5xx but 501 Not Implemented.
 */
export function isRetryableVaultStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599 && status !== 501);
}

/** What one request is, for its messages and its trace. */
export interface RequestContext {
  /** Starts every error message, e.g. `Cannot fetch key "signing"`. */
  readonly action: string;
  /** Strings never to quote (the token, the API key). */
  readonly secrets: readonly string[];
  /** Which service is asked. */
  readonly service: VaultTraceEvent["service"];
  /** The `correlation-id` the request carries, if any. */
  readonly correlationId?: string;
}

/**
 * Sends a request and reads the whole answer, each attempt within `timeoutMs`, retrying as
 * {@link isRetryableVaultStatus} and the policy say. Resolves with the last answer, whatever its
 * status (the caller reads error bodies); rejects with a {@link VaultError} without a status when
 * no answer came at all.
 */
export async function exchange(
  transport: Transport,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string | URLSearchParams },
  context: RequestContext,
): Promise<Answer> {
  const start = transport.now();
  const { pathname, search } = new URL(url);
  for (let attempt = 1;; attempt++) {
    const attemptStart = transport.now();
    let answer: Omit<Answer, "attempts" | "elapsedMs" | "stopped"> | undefined;
    let failure: VaultError | undefined;
    try {
      answer = await once(transport, url, init, context);
    } catch (error) {
      if (!(error instanceof VaultError)) throw error;
      failure = error;
    }
    const retryable = answer === undefined || isRetryableVaultStatus(answer.status);
    let wait: number | undefined;
    let stopped = "";
    if (retryable && attempt <= transport.retry.maxRetries) {
      const retryAfter = answer &&
        parseRetryAfter(answer.headers.get("retry-after"), transport.now());
      const delay = retryAfter ?? backoffDelay(attempt - 1, transport.retry, transport.random);
      const spent = transport.now() - start;
      if (spent + delay <= transport.retry.budgetMs) {
        wait = delay;
      } else {
        stopped = retryAfter !== undefined
          ? `; it asked to retry after ${formatDuration(retryAfter)}, beyond the retry budget ` +
            `of ${formatDuration(transport.retry.budgetMs)}`
          : `; the retry budget of ${formatDuration(transport.retry.budgetMs)} is spent`;
      }
    }
    transport.trace({
      service: context.service,
      method: init.method,
      path: `${pathname}${search}`,
      attempt,
      ...(answer ? { status: answer.status } : { failure: failure?.message ?? "" }),
      elapsedMs: transport.now() - attemptStart,
      ...(context.correlationId ? { correlationId: context.correlationId } : {}),
      ...(wait !== undefined ? { retryInMs: wait } : {}),
    });
    if (wait === undefined) {
      const elapsedMs = transport.now() - start;
      if (answer) return { ...answer, attempts: attempt, elapsedMs, stopped };
      throw new VaultError(
        `${failure!.message}${attemptsNote(attempt, elapsedMs)}${stopped}` +
          correlationNote(context.correlationId),
        {
          cause: failure!.cause ?? failure,
          attempts: attempt,
          ...(context.correlationId ? { correlationId: context.correlationId } : {}),
        },
      );
    }
    await transport.sleep(wait);
  }
}

/** One attempt: the answer read whole, or a VaultError without a status. */
async function once(
  transport: Transport,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string | URLSearchParams },
  context: RequestContext,
): Promise<Omit<Answer, "attempts" | "elapsedMs" | "stopped">> {
  const origin = new URL(url).origin;
  try {
    const response = await timedFetch(transport.fetch, transport.timeoutMs, { bound: "request" })(
      url,
      {
        method: init.method,
        headers: init.headers,
        ...(init.body !== undefined ? { body: init.body } : {}),
      },
    );
    const text = await response.text();
    return {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
      text,
    };
  } catch (error) {
    if (error instanceof RequestTimeoutError) {
      throw new VaultError(
        `${context.action}: no answer from ${origin} within ${formatDuration(transport.timeoutMs)}`,
        { cause: error, messageTellsCause: true },
      );
    }
    const detail = safeExcerpt(error instanceof Error ? error.message : String(error), {
      secrets: context.secrets,
      maxChars: 500,
    });
    throw new VaultError(`${context.action}: cannot reach ${origin}: ${detail}`, { cause: error });
  }
}

/** ` (after 5 attempts in 15 s)` when the request was retried, else "". */
export function attemptsNote(attempts: number, elapsedMs: number): string {
  return attempts > 1 ? ` (after ${attempts} attempts in ${formatDuration(elapsedMs)})` : "";
}

/** ` [correlation-id: …]`, the id IBM support asks for, or "". */
export function correlationNote(correlationId: string | undefined): string {
  return correlationId ? ` [correlation-id: ${correlationId}]` : "";
}

/** `250 ms`, `3 s`, `1.5 s`, `2 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds >= 120 && Number.isInteger(seconds / 60)) return `${seconds / 60} min`;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/** True for a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
