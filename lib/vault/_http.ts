/**
 * Private helpers shared by the Key Protect and IAM clients: one HTTP exchange with a time
 * limit, turned into a clear {@link VaultError} when no answer comes. Text from the answer goes
 * into messages only through {@linkcode safeExcerpt} (bounded, the token or API key and
 * anything secret-shaped scrubbed).
 *
 * @module
 */
import { safeExcerpt } from "../errors.ts";
import { VaultError } from "./vault_error.ts";
import type { FetchFunction } from "../fetch.ts";

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
 * Sends one request and reads the whole answer, within `timeoutMs`. A timeout or a network
 * failure becomes a {@link VaultError} without a status whose message starts with `action`.
 */
export async function exchange(
  fetchFn: FetchFunction,
  url: string,
  init: RequestInit,
  options: { action: string; timeoutMs: number; secrets: readonly string[] },
): Promise<Answer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const origin = new URL(url).origin;
  try {
    const response = await fetchFn(url, { ...init, signal: controller.signal });
    const text = await response.text();
    return {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
      text,
    };
  } catch (error) {
    if (controller.signal.aborted) {
      throw new VaultError(
        `${options.action}: no answer from ${origin} within ${formatSeconds(options.timeoutMs)}`,
      );
    }
    const detail = safeExcerpt(error instanceof Error ? error.message : String(error), {
      secrets: options.secrets,
      maxChars: 500,
    });
    throw new VaultError(`${options.action}: cannot reach ${origin}: ${detail}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

function formatSeconds(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/** True for a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
