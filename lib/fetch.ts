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
    super(`no answer from ${server} within ${formatTimeout(timeoutMs)}`, options);
    this.name = "RequestTimeoutError";
    this.server = server;
    this.timeoutMs = timeoutMs;
  }
}
