/**
 * A TCP server that accepts every connection and never writes a byte: the server behind a
 * firewall that swallows answers, a hung API server, a load balancer whose backend is gone. Not a
 * stand-in for a service; the misbehaviour a client must give up on (`--request-timeout`).
 *
 * @module
 */

/** A listening {@linkcode silentServer}. */
export interface SilentServer extends AsyncDisposable {
  /** `127.0.0.1:PORT`. */
  readonly host: string;
  /** How many connections it has accepted. */
  readonly accepted: () => number;
}

/** Listens on a free loopback port; what connects is held open, unanswered, until disposed. */
export function silentServer(): SilentServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const connections: Deno.Conn[] = [];
  const accepting = (async () => {
    try {
      for await (const conn of listener) connections.push(conn);
    } catch {
      // closed
    }
  })();
  const { port } = listener.addr as Deno.NetAddr;
  return {
    host: `127.0.0.1:${port}`,
    accepted: () => connections.length,
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const conn of connections) {
        try {
          conn.close();
        } catch {
          // already closed by the client
        }
      }
      await accepting;
    },
  };
}

/** A kubeconfig (JSON) whose only context's API server is `server` (`https://127.0.0.1:PORT`). */
export function kubeconfigFor(server: string, namespace?: string): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "silent", cluster: { server, "insecure-skip-tls-verify": false } }],
    users: [{ name: "user", user: { token: "t0ken" } }],
    contexts: [{
      name: "silent",
      context: { cluster: "silent", user: "user", ...(namespace ? { namespace } : {}) },
    }],
    "current-context": "silent",
  });
}
