/**
 * How the CLI reaches servers (Kubernetes, registries, git hosts, Jenkins, vaults, IAM, the
 * pipeline repository): one timeout for every request, kubectl's `--request-timeout` (its
 * syntax: `30s`, `2m`, `1h`, a number alone in seconds, `0` for no limit; default
 * {@linkcode DEFAULT_REQUEST_TIMEOUT}), `-v` telling each request before it is sent, and the
 * advice after an error whose cause is a server that did not answer in time.
 *
 * kubectl has no request timeout by default (only a 10 s TLS handshake and dial timeout), so a
 * server that accepts the connection and never answers holds it forever. A command a user runs
 * should give up on a silent server, and a request that succeeds takes far less than 30 s: the
 * default gives up after 30 s, and names the server and this flag. Watches (`pipeline`'s and
 * `enable`'s waits) only need their start within it, and `--wait-timeout` bounds the waits.
 *
 * @module
 */
import type { CliIO } from "./io.ts";
import type { CommandContext } from "./command.ts";
import { paint } from "./io.ts";
import { type FlagSpec, parseDuration } from "./options.ts";
import {
  type FetchFunction,
  NO_TIMEOUT_MS,
  observedFetch,
  PlainHttpAnswerError,
  type RequestObserver,
  RequestTimeoutError,
  timedFetch,
} from "../lib/fetch.ts";

/** The default of `--request-timeout`. */
export const DEFAULT_REQUEST_TIMEOUT = "30s";
/** The same in ms (read from it: the limit is written once). */
export const DEFAULT_REQUEST_TIMEOUT_MS: number = parseDuration(DEFAULT_REQUEST_TIMEOUT)!;

/** `--request-timeout`, on every command that reaches a server. */
export const REQUEST_TIMEOUT_FLAG = {
  type: "duration",
  default: DEFAULT_REQUEST_TIMEOUT,
  describe:
    "How long to wait for each request to a server before giving up, as kubectl's (30s, 2m, 1h; a number alone is seconds; 0: no limit)",
} as const satisfies FlagSpec;

/** The options of a command that say how it reaches servers. */
export interface NetworkOptions {
  /** `--request-timeout` in ms (0: no limit); absent on commands without the flag. */
  readonly requestTimeout?: number;
  /** `-v`: tell each request. */
  readonly verbose?: boolean;
}

/**
 * The timeout of `options` in ms, for every client and fetch of a command: the one place where
 * `--request-timeout=0` ("no limit") becomes {@linkcode NO_TIMEOUT_MS}, the longest a timer
 * waits, so that no client needs its own reading of 0. `timedFetch` and the Kubernetes client
 * set no timer for it; a client with a timer of its own waits that long, the same to a command.
 */
export function clientTimeoutMs(options: NetworkOptions): number {
  const ms = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
  return ms > 0 ? ms : NO_TIMEOUT_MS;
}

/** With `-v`, what writes each request on stderr (`→ GET https://…`); else undefined. */
export function requestObserver(io: CliIO, options: NetworkOptions): RequestObserver | undefined {
  if (!options.verbose) return undefined;
  return (method, url) => io.stderr.write(`${paint(io, "2", `→ ${method} ${url}`)}\n`);
}

/**
 * The context's fetch telling each request with `-v`, for a client that times its requests
 * itself (give it {@linkcode clientTimeoutMs}).
 */
export function observedContextFetch(
  ctx: Pick<CommandContext, "io" | "fetch">,
  options: NetworkOptions,
): FetchFunction {
  return observedFetch(ctx.fetch, requestObserver(ctx.io, options));
}

/**
 * The fetch for a command's requests made without a client that times them: the context's,
 * each told with `-v`, each given up after `--request-timeout` of silence.
 */
export function networkFetch(
  ctx: Pick<CommandContext, "io" | "fetch">,
  options: NetworkOptions,
): FetchFunction {
  return observedFetch(
    timedFetch(ctx.fetch, clientTimeoutMs(options)),
    requestObserver(ctx.io, options),
  );
}

/** The causes of an error, outermost first. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error, depth = 0; e !== undefined && depth < 8; depth++) {
    chain.push(e);
    e = e instanceof Error ? e.cause : undefined;
  }
  return chain;
}

/** The advice to print after `error`, when it has one. */
export function networkAdvice(error: unknown): string | undefined {
  const chain = causes(error);
  const timeout = chain.find((e) => e instanceof RequestTimeoutError);
  if (timeout !== undefined) {
    return `${timeout.server} did not answer in time: --request-timeout sets how long to wait ` +
      "for each request (e.g. --request-timeout=2m; 0: no limit).";
  }
  const plain = chain.find((e) => e instanceof PlainHttpAnswerError);
  if (plain instanceof PlainHttpAnswerError) {
    const host = plain.server.replace(/^https:\/\//, "");
    return `${host} speaks plain HTTP: --tls-verify=false reaches it over HTTP, as with skopeo.`;
  }
  return undefined;
}
