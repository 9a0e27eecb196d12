/**
 * The webhook's routes served as production serves them, minus TLS: each connection of a plain
 * TCP listener on 127.0.0.1 (a free port) is an `Http1Connection` (webhook/http1.ts) over the
 * routes of `createRoutes` (webhook/handler.ts), with the limits the webhook gives it. Tests send
 * `Request`s to it with {@linkcode WebhookLoopback.send}, as the API server sends reviews.
 *
 * ```ts
 * await using webhook = await serveRoutes(createRoutes(deps), { maxBodyBytes: 3 << 20 });
 * const response = await webhook.send(new Request("https://webhook/healthz"));
 * ```
 *
 * @module
 */

import { createServer, type Socket } from "node:net";
import { Http1Connection, type Http1Limits, type Routes } from "../../webhook/http1.ts";

/** Routes on a loopback listener; stopped with `await using`. */
export interface WebhookLoopback extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /**
   * Sends `request` (its method, path and query, headers and body; its host is ignored) to the
   * listener, and returns the answer.
   */
  send(request: Request): Promise<Response>;
}

/** Serves `routes` on a free loopback port, each connection an `Http1Connection`. */
export async function serveRoutes(routes: Routes, limits: Http1Limits): Promise<WebhookLoopback> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    new Http1Connection(socket, routes, limits);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  const origin = `http://127.0.0.1:${port}`;
  const client = Deno.createHttpClient({});
  return {
    origin,
    async send(request: Request): Promise<Response> {
      const url = new URL(request.url);
      const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
      return await fetch(`${origin}${url.pathname}${url.search}`, {
        method: request.method,
        headers: request.headers,
        body,
        client,
      });
    },
    async [Symbol.asyncDispose]() {
      client.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
