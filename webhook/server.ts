/**
 * The HTTPS listener, with the certificate and key reloaded from their files when they change,
 * without a restart. `Deno.serve` cannot change the certificate of a running listener, so a new
 * listener is started with the new files and the old one is shut down gracefully (it finishes
 * the requests it has). With `reusePort` (Linux; needs `--unstable-net` for TLS) both listen on
 * the port for a moment and no connection is refused; without it the old listener stops first
 * and the port is closed for a few milliseconds.
 *
 * New files that do not make a valid certificate and key are refused and logged; the old ones
 * stay in use.
 *
 * @module
 */

/** What the server reports. */
export type ServerEvent =
  | { readonly type: "listening"; readonly address: string; readonly reusePort: boolean }
  | { readonly type: "reloaded"; readonly address: string }
  | { readonly type: "reload-failed"; readonly detail: string };

/** How to serve. */
export interface TlsServerOptions {
  readonly hostname: string;
  readonly port: number;
  readonly certFile: string;
  readonly keyFile: string;
  /** How often the files are checked, in ms. */
  readonly reloadIntervalMs: number;
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

/**
 * Whether TLS listeners may share a port: Linux, and Deno's unstable network APIs enabled
 * (`--unstable-net`; `Deno.listenDatagram` exists only then). Without the flag, asking for
 * `reusePort` ends the process instead of throwing, so it has to be known beforehand.
 */
export function canReusePort(): boolean {
  return Deno.build.os === "linux" &&
    typeof (Deno as unknown as Record<string, unknown>).listenDatagram === "function";
}

/** Starts the server. Throws when the first certificate and key cannot be used. */
export async function startTlsServer(
  options: TlsServerOptions,
  handler: (request: Request) => Response | Promise<Response>,
): Promise<TlsServer> {
  /** The files in use. */
  let active = await readPair(options);
  /** The files last read (may be a broken pair that was refused). */
  let seen = active;
  const reusePort = canReusePort();
  let port = options.port;

  function listen(p: Pair): Deno.HttpServer<Deno.NetAddr> {
    return Deno.serve({
      hostname: options.hostname,
      port,
      cert: p.cert,
      key: p.key,
      ...(reusePort ? { reusePort: true } : {}),
      onListen: () => {},
    }, handler);
  }

  let server = listen(active);
  port = server.addr.port;
  options.onEvent?.({ type: "listening", address: `${options.hostname}:${port}`, reusePort });

  let stopped = false;
  let resolveFinished!: () => void;
  const finished = new Promise<void>((resolve) => (resolveFinished = resolve));
  let reloading: Promise<boolean> | undefined;

  async function switchTo(next: Pair): Promise<void> {
    const old = server;
    if (reusePort) {
      server = listen(next); // throws for a bad pair; the old listener keeps serving
      await old.shutdown();
      return;
    }
    await old.shutdown();
    try {
      server = listen(next);
    } catch (error) {
      server = listen(active);
      throw error;
    }
  }

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
      await switchTo(next);
    } catch (error) {
      options.onEvent?.({
        type: "reload-failed",
        detail: `Cannot use the new certificate and key: ${
          error instanceof Error ? error.message : String(error)
        }`,
      });
      return false;
    }
    active = next;
    options.onEvent?.({ type: "reloaded", address: `${options.hostname}:${port}` });
    return true;
  }

  const serialised = () => (reloading ??= reload().finally(() => (reloading = undefined)));
  const timer = setInterval(() => void serialised(), options.reloadIntervalMs);

  async function shutdown(): Promise<void> {
    if (stopped) return await finished;
    stopped = true;
    clearInterval(timer);
    await reloading;
    await server.shutdown();
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
