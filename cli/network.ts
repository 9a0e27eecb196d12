/**
 * What the CLI says about the network: the advice after an error whose cause is a server that
 * did not answer in time (which flag sets the wait).
 *
 * @module
 */
import { RequestTimeoutError } from "../lib/fetch.ts";

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
  const timeout = causes(error).find((e) => e instanceof RequestTimeoutError);
  if (timeout === undefined) return undefined;
  return "The server accepted no request or sent no answer in time: --request-timeout sets how " +
    "long to wait for each request (e.g. --request-timeout=2m; 0: no limit).";
}
