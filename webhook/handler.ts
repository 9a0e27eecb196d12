/**
 * The webhook's HTTP handler, kept apart from `Deno.serve` so it can be tested with plain
 * `Request` objects.
 *
 * @module
 */

/** Builds the request handler. */
export function createHandler(): (request: Request) => Promise<Response> {
  return (request: Request) => {
    const url = new URL(request.url);
    if (url.pathname === "/healthz") {
      if (request.method !== "GET" && request.method !== "HEAD") {
        return Promise.resolve(new Response("method not allowed\n", { status: 405 }));
      }
      return Promise.resolve(new Response("ok\n", { headers: { "content-type": "text/plain" } }));
    }
    return Promise.resolve(new Response("not found\n", { status: 404 }));
  };
}
