/**
 * A minimal static file server for tests, standing in for the plain web server (nginx, S3
 * static hosting, …) that serves an HTTP lookaside store. It serves the files under `root`
 * read-only: 200 with the bytes and a Content-Length for a regular file, 404 when the path does
 * not exist, 403 for a directory, 405 for any method other than GET or HEAD. It listens on a
 * free 127.0.0.1 port. Test helper only: not exported from `mod.ts`.
 *
 * @module
 */

/** A running static server. */
export interface StaticServer extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Request paths in arrival order. */
  readonly requests: string[];
  /** Stops the server. */
  stop(): Promise<void>;
}

/** Options of {@linkcode serveDirectory}. */
export interface StaticServerOptions {
  /** Content-Type of every file (default `application/octet-stream`). */
  contentType?: string;
}

/** Serves the files under `root`. */
export function serveDirectory(root: string, options: StaticServerOptions = {}): StaticServer {
  const requests: string[] = [];
  const contentType = options.contentType ?? "application/octet-stream";
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      requests.push(url.pathname);
      if (request.method !== "GET" && request.method !== "HEAD") {
        return new Response("method not allowed\n", { status: 405 });
      }
      const segments = decodeURIComponent(url.pathname).split("/").filter((s) => s !== "");
      if (segments.some((s) => s === "." || s === "..")) {
        return new Response("bad path\n", { status: 400 });
      }
      const path = [root, ...segments].join("/");
      let info: Deno.FileInfo;
      try {
        info = await Deno.stat(path);
      } catch {
        return new Response("404 page not found\n", { status: 404 });
      }
      if (!info.isFile) return new Response("forbidden\n", { status: 403 });
      const body = await Deno.readFile(path);
      return new Response(request.method === "HEAD" ? null : body, {
        headers: { "content-type": contentType, "content-length": String(body.length) },
      });
    },
  );
  const stop = async () => {
    await server.shutdown();
  };
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
