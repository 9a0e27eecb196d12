/**
 * The HTTPS listener: TLS from `node:tls` with `TCP_NODELAY` on every accepted connection, and
 * HTTP/1.1 (the only protocol offered through ALPN) read by `http1.ts`. Why not `Deno.serve`:
 * see `http1.ts`; the measurements are in docs/benchmarks.md, "What every Pod create pays".
 *
 * The certificate and key are reloaded from their files when they change, without a restart and
 * without closing anything: new connections get the new pair, open ones keep theirs. New files
 * that do not make a valid certificate and key are refused and logged; the old ones stay in use.
 *
 * Shutting down stops accepting, closes idle connections, answers the requests in progress
 * (with `Connection: close`), and resolves once every connection has closed. One interval timer
 * bounds every connection's time (`http1.ts`, {@linkcode Http1Limits}).
 *
 * @module
 */
import { createSecureContext, createServer, type Server, type TLSSocket } from "node:tls";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { Http1Connection, type Http1Limits, type Routes } from "./http1.ts";

/** What the server reports. */
export type ServerEvent =
  | { readonly type: "listening"; readonly address: string }
  | { readonly type: "reloaded"; readonly address: string }
  | { readonly type: "reload-failed"; readonly detail: string }
  /** The listener could not accept a connection (out of file descriptors, say); it keeps on. */
  | { readonly type: "accept-failed"; readonly detail: string };

/** How to serve. */
export interface TlsServerOptions {
  readonly hostname: string;
  readonly port: number;
  readonly certFile: string;
  readonly keyFile: string;
  /** How often the files are checked, in ms. */
  readonly reloadIntervalMs: number;
  /** The bounds of each connection. */
  readonly limits: Http1Limits;
  /** Receives what happens. */
  readonly onEvent?: (event: ServerEvent) => void;
}

/** A running server. */
export interface TlsServer extends AsyncDisposable {
  /** The bound port. */
  readonly port: number;
  /** Checks the files now and switches the certificate when they changed. */
  reload(): Promise<boolean>;
  /** Stops watching and shuts the listener down gracefully. */
  shutdown(): Promise<void>;
  /** Resolves when the server has shut down. */
  readonly finished: Promise<void>;
}

interface Pair {
  readonly cert: string;
  readonly key: string;
}

async function readPair(options: TlsServerOptions): Promise<Pair> {
  const [cert, key] = await Promise.all([
    Deno.readTextFile(options.certFile),
    Deno.readTextFile(options.keyFile),
  ]);
  return { cert, key };
}

/** Throws unless `pair` is a certificate and the private key of its public key. */
function checkPair(pair: Pair): void {
  let key;
  try {
    key = createPrivateKey(pair.key);
  } catch (error) {
    throw new Error(`the key is not a PEM private key (${describe(error)})`, { cause: error });
  }
  let certificate;
  try {
    certificate = new X509Certificate(pair.cert);
  } catch (error) {
    throw new Error(`the certificate is not a PEM certificate (${describe(error)})`, {
      cause: error,
    });
  }
  if (!certificate.checkPrivateKey(key)) {
    throw new Error("the private key does not belong to the certificate");
  }
  createSecureContext({ cert: pair.cert, key: pair.key });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** How often connections' deadlines are checked, in ms. */
const SWEEP_INTERVAL_MS = 1000;

/** Starts the server. Throws when the first certificate and key cannot be used. */
export async function startTlsServer(
  options: TlsServerOptions,
  routes: Routes,
): Promise<TlsServer> {
  /** The files last read (may be a broken pair that was refused). */
  let seen = await readPair(options);
  checkPair(seen);
  const connections = new Set<Http1Connection>();
  let stopped = false;

  const server: Server = createServer(
    {
      cert: seen.cert,
      key: seen.key,
      ALPNProtocols: ["http/1.1"],
      // Set on the accepted socket, before the handshake: no answer waits for a delayed ACK.
      noDelay: true,
      // The connection decides when to close after the client ends its side.
      allowHalfOpen: true,
    } as Parameters<typeof createServer>[0],
    (socket: TLSSocket) => {
      const connection = new Http1Connection(socket, routes, options.limits);
      connections.add(connection);
      socket.on("close", () => connections.delete(connection));
      if (stopped) connection.drain();
    },
  );
  // A failed handshake concerns one client only.
  server.on("tlsClientError", () => {});

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  options.onEvent?.({ type: "listening", address: `${options.hostname}:${port}` });
  server.on("error", (error: unknown) => {
    options.onEvent?.({ type: "accept-failed", detail: describe(error) });
  });

  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const connection of connections) connection.expire(now);
  }, SWEEP_INTERVAL_MS);

  let resolveFinished!: () => void;
  const finished = new Promise<void>((resolve) => (resolveFinished = resolve));
  let reloading: Promise<boolean> | undefined;

  async function reload(): Promise<boolean> {
    if (stopped) return false;
    let next: Pair;
    try {
      next = await readPair(options);
    } catch (error) {
      options.onEvent?.({
        type: "reload-failed",
        detail: `Cannot read the TLS files: ${String(error)}`,
      });
      return false;
    }
    if (next.cert === seen.cert && next.key === seen.key) return false;
    seen = next;
    try {
      checkPair(next);
      server.setSecureContext({ cert: next.cert, key: next.key });
    } catch (error) {
      options.onEvent?.({
        type: "reload-failed",
        detail: `Cannot use the new certificate and key: ${describe(error)}`,
      });
      return false;
    }
    options.onEvent?.({ type: "reloaded", address: `${options.hostname}:${port}` });
    return true;
  }

  const serialised = () => (reloading ??= reload().finally(() => (reloading = undefined)));
  const watcher = setInterval(() => void serialised(), options.reloadIntervalMs);

  async function shutdown(): Promise<void> {
    if (stopped) return await finished;
    stopped = true;
    clearInterval(watcher);
    await reloading;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const connection of connections) connection.drain();
    await closed;
    clearInterval(sweeper);
    resolveFinished();
  }

  return {
    port,
    reload: serialised,
    shutdown,
    finished,
    [Symbol.asyncDispose]: shutdown,
  };
}
