/**
 * The HTTPS listener: TLS from `node:tls` with `TCP_NODELAY` on every accepted connection, and
 * HTTP/1.1 (the only protocol offered through ALPN) read by `http1.ts`. Why not `Deno.serve`:
 * see `http1.ts`; the measurements are in docs/benchmarks.md, "What every Pod create pays".
 *
 * The certificate and key are reloaded from their files when they change, without a restart and
 * without closing anything: new connections get the new pair, open ones keep theirs. New files
 * that do not make a valid certificate and key are refused and logged; the old ones stay in use.
 *
 * With a client CA (`clientCaFile`, the webhook's `--client-ca`), every client must present a
 * certificate that chains to it: one without, or with a certificate of another CA, fails the TLS
 * handshake, before a single byte of a request is read (the connection never reaches
 * `http1.ts`). The CA file is reloaded like the pair, and a new one that holds no usable CA
 * certificate is refused and logged, the old one staying in use.
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
  | {
    readonly type: "listening";
    readonly address: string;
    readonly clientCa: boolean;
    /** When the serving certificate in use expires (ISO 8601). */
    readonly certificateNotAfter: string;
  }
  | {
    readonly type: "reloaded";
    readonly address: string;
    /** What changed: the serving certificate and key, the client CA, or both. */
    readonly files: "certificate" | "client CA" | "certificate and client CA";
    /** When the serving certificate in use (after the reload) expires (ISO 8601). */
    readonly certificateNotAfter: string;
  }
  | { readonly type: "reload-failed"; readonly detail: string }
  /** The listener could not accept a connection (out of file descriptors, say); it keeps on. */
  | { readonly type: "accept-failed"; readonly detail: string };

/** How to serve. */
export interface TlsServerOptions {
  readonly hostname: string;
  readonly port: number;
  readonly certFile: string;
  readonly keyFile: string;
  /**
   * PEM CA certificate(s) a client's certificate must chain to (undefined: no client
   * certificate is asked for). Reloaded with the pair.
   */
  readonly clientCaFile?: string | undefined;
  /** How often the files are checked, in ms. */
  readonly reloadIntervalMs: number;
  /** The bounds of each connection. */
  readonly limits: Http1Limits;
  /**
   * The most connections open at once, handshakes included; beyond, a new one is closed at once.
   * @default {@linkcode MAX_CONNECTIONS}
   */
  readonly maxConnections?: number;
  /**
   * How long a client may take to finish its TLS handshake, in ms.
   * @default {@linkcode HANDSHAKE_TIMEOUT_MS}
   */
  readonly handshakeTimeoutMs?: number;
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

/** A pair that was checked, and when its certificate expires. */
interface CheckedPair extends Pair {
  readonly notAfter: Date;
}

/** The files as read: the serving pair and, when asked for, the client CA's text. */
interface Files extends Pair {
  readonly clientCa: string | undefined;
}

async function readFiles(options: TlsServerOptions): Promise<Files> {
  const [cert, key, clientCa] = await Promise.all([
    Deno.readTextFile(options.certFile),
    Deno.readTextFile(options.keyFile),
    options.clientCaFile === undefined ? undefined : Deno.readTextFile(options.clientCaFile),
  ]);
  return { cert, key, clientCa };
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/**
 * The CA certificates of a client-CA file, one PEM block each. Throws unless it holds at least
 * one certificate and each is a CA's (a client certificate could never chain to anything else).
 */
export function clientCaCertificates(text: string): string[] {
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new Error("the client CA file holds no PEM certificate");
  for (const [index, block] of blocks.entries()) {
    let certificate;
    try {
      certificate = new X509Certificate(block);
    } catch (error) {
      throw new Error(
        `certificate ${index + 1} of the client CA file cannot be read (${describe(error)})`,
        { cause: error },
      );
    }
    if (!certificate.ca) {
      throw new Error(
        `certificate ${index + 1} of the client CA file (${
          certificate.subject.replaceAll("\n", ", ")
        }) is not a CA certificate`,
      );
    }
  }
  return blocks;
}

/**
 * The pair with its certificate's expiry; throws unless `pair` is a certificate and the private
 * key of its public key.
 */
function checkPair(pair: Pair): CheckedPair {
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
  return { cert: pair.cert, key: pair.key, notAfter: new Date(certificate.validTo) };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The most connections open at once, by default. The API server keeps one a call in flight and
 * up to 25 idle ones per webhook; each connection costs the process its TLS state and buffers, so
 * whoever reaches the port cannot open them without bound.
 */
export const MAX_CONNECTIONS = 512;

/** How long a client may take to finish its TLS handshake, in ms. */
export const HANDSHAKE_TIMEOUT_MS = 10_000;

/** How often connections' deadlines are checked, in ms. */
const SWEEP_INTERVAL_MS = 1000;

/** Starts the server. Throws when the first certificate and key cannot be used. */
export async function startTlsServer(
  options: TlsServerOptions,
  routes: Routes,
): Promise<TlsServer> {
  /** The files last read (may hold a broken pair or CA that was refused). */
  let seen = await readFiles(options);
  /** The pair and client CA in use. */
  let pair: CheckedPair = checkPair(seen);
  let clientCa = seen.clientCa === undefined ? undefined : clientCaCertificates(seen.clientCa);
  const connections = new Set<Http1Connection>();
  let stopped = false;

  const server: Server = createServer(
    {
      cert: pair.cert,
      key: pair.key,
      // With a client CA: a client certificate is asked for, and a client without one that
      // chains to the CA fails the handshake (the connection callback below never runs).
      ...(clientCa ? { ca: clientCa, requestCert: true, rejectUnauthorized: true } : {}),
      ALPNProtocols: ["http/1.1"],
      // Set on the accepted socket, before the handshake: no answer waits for a delayed ACK.
      noDelay: true,
      // A client that ends its side ends the connection. (Half-open connections are not kept:
      // with allowHalfOpen, a socket a client closed before its TLS handshake was never released,
      // so connects and closes alone, a port scan, would use up the connections and the file
      // descriptors. The API server, kubelet probes and Prometheus never half-close.)
      allowHalfOpen: false,
      // A client that opens a connection and never finishes its handshake is let go.
      handshakeTimeout: options.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS,
    } as Parameters<typeof createServer>[0],
    (socket: TLSSocket) => {
      const connection = new Http1Connection(socket, routes, options.limits);
      connections.add(connection);
      socket.on("close", () => connections.delete(connection));
      if (stopped) connection.drain();
    },
  );
  // A failed handshake concerns one client only: its socket is released. (This includes one not
  // finished in time, which Deno reports here without closing the socket.)
  server.on("tlsClientError", (_error: unknown, socket: TLSSocket) => socket.destroy());
  // Connections beyond the bound (handshakes included) are closed as they are accepted.
  server.maxConnections = options.maxConnections ?? MAX_CONNECTIONS;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  options.onEvent?.({
    type: "listening",
    address: `${options.hostname}:${port}`,
    clientCa: clientCa !== undefined,
    certificateNotAfter: pair.notAfter.toISOString(),
  });
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
    let next: Files;
    try {
      next = await readFiles(options);
    } catch (error) {
      options.onEvent?.({
        type: "reload-failed",
        detail: `Cannot read the TLS files: ${String(error)}`,
      });
      return false;
    }
    const pairChanged = next.cert !== seen.cert || next.key !== seen.key;
    const caChanged = next.clientCa !== seen.clientCa;
    if (!pairChanged && !caChanged) return false;
    seen = next;
    // Each of the pair and the CA is taken when it is good; a bad one leaves its old one in use.
    let nextPair = pair;
    let nextCa = clientCa;
    if (pairChanged) {
      try {
        nextPair = checkPair(next);
      } catch (error) {
        options.onEvent?.({
          type: "reload-failed",
          detail: `Cannot use the new certificate and key: ${describe(error)}`,
        });
      }
    }
    if (caChanged && next.clientCa !== undefined) {
      try {
        nextCa = clientCaCertificates(next.clientCa);
      } catch (error) {
        options.onEvent?.({
          type: "reload-failed",
          detail: `Cannot use the new client CA: ${describe(error)}`,
        });
      }
    }
    const tookPair = nextPair !== pair;
    const tookCa = nextCa !== clientCa;
    if (!tookPair && !tookCa) return false;
    try {
      server.setSecureContext({
        cert: nextPair.cert,
        key: nextPair.key,
        ...(nextCa ? { ca: nextCa } : {}),
      });
    } catch (error) {
      options.onEvent?.({
        type: "reload-failed",
        detail: `Cannot use the new TLS files: ${describe(error)}`,
      });
      return false;
    }
    pair = nextPair;
    clientCa = nextCa;
    options.onEvent?.({
      type: "reloaded",
      address: `${options.hostname}:${port}`,
      files: tookPair && tookCa
        ? "certificate and client CA"
        : tookPair
        ? "certificate"
        : "client CA",
      certificateNotAfter: pair.notAfter.toISOString(),
    });
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
