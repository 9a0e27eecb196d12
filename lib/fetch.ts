/**
 * The one type of an injectable `fetch`: the global one, a client's with custom CA certificates,
 * or a test's. The registry, git host and vault clients take it.
 *
 * @module
 */

/** A `fetch` as Deno has it, with the `client` option for custom CA certificates. */
export type FetchFunction = (
  input: string | URL | Request,
  init?: RequestInit & { client?: Deno.HttpClient },
) => Promise<Response>;
