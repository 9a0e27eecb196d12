/**
 * A loopback HTTP server for tests, for the misbehaviour a real server does not show (5xx, 429,
 * stalls, oversized or tampered answers): it records each request and answers with the test's
 * handler. And a sleep that records the waits and returns at once.
 *
 * @module
 */

/** What a test server saw of a request (a `Request` cannot be read after it is answered). */
export interface RecordedRequest {
  /** The method. */
  readonly method: string;
  /** The path and query. */
  readonly path: string;
  /** The headers. */
  readonly headers: Headers;
}

/** A loopback HTTP server for misbehaviour tests; records the requests it gets. */
export interface TestServer extends AsyncDisposable {
  /** `127.0.0.1:PORT`. */
  readonly host: string;
  /** The requests received so far. */
  readonly requests: RecordedRequest[];
  /**
   * Aborted when the server stops: a handler that holds its answer (until the client goes) ends
   * it then too, or the server would wait for it.
   */
  readonly stopping: AbortSignal;
  /** Stops the server. */
  stop(): Promise<void>;
}

/** Starts `handler` on a free loopback port (HTTPS with `tls`: a certificate and its key, PEM). */
export function serve(
  handler: (request: Request, index: number) => Response | Promise<Response>,
  tls?: { readonly cert: string; readonly key: string },
): TestServer {
  const requests: RecordedRequest[] = [];
  const controller = new AbortController();
  const server = Deno.serve(
    {
      hostname: "127.0.0.1",
      port: 0,
      signal: controller.signal,
      onListen: () => {},
      ...(tls ? { cert: tls.cert, key: tls.key } : {}),
    },
    (request) => {
      const url = new URL(request.url);
      requests.push({
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers: new Headers(request.headers),
      });
      return handler(request, requests.length - 1);
    },
  );
  const stop = async () => {
    controller.abort();
    await server.finished;
  };
  return {
    host: `127.0.0.1:${server.addr.port}`,
    requests,
    stopping: controller.signal,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** A sleep that records the waits and returns at once. */
export function fakeSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    sleep: (ms: number) => {
      waits.push(ms);
      return Promise.resolve();
    },
  };
}

/**
 * A server whose every answer is a body sent one byte (`.`) every `everyMs`, `chunks` times, or
 * until the client goes when `chunks` is undefined: a server that keeps sending, slowly.
 */
export function tricklingServer(everyMs: number, chunks?: number): TestServer {
  return serve(() => {
    let timer: ReturnType<typeof setInterval> | undefined;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(stream) {
        timer = setInterval(() => {
          stream.enqueue(new TextEncoder().encode("."));
          if (chunks !== undefined && ++sent >= chunks) {
            clearInterval(timer);
            stream.close();
          }
        }, everyMs);
      },
      cancel: () => clearInterval(timer),
    });
    return new Response(body, { headers: { "Content-Type": "text/plain" } });
  });
}
