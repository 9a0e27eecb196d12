/**
 * A TEST HTTP proxy that only tunnels (`CONNECT host:port`), on 127.0.0.1, counting the
 * tunnels it opened and the targets asked for: enough to see that a client went through it.
 *
 * @module
 */

/** The running proxy. */
export interface TestConnectProxy extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** The `host:port` of every tunnel, in order. */
  readonly tunnels: readonly string[];
}

async function readHead(conn: Deno.Conn): Promise<string | undefined> {
  const buffer = new Uint8Array(8192);
  let head = "";
  while (!head.includes("\r\n\r\n")) {
    const n = await conn.read(buffer);
    if (n === null) return undefined;
    // A CONNECT request has no body: the client waits for our answer before it sends TLS.
    head += new TextDecoder().decode(buffer.subarray(0, n));
  }
  return head;
}

async function tunnel(conn: Deno.Conn, tunnels: string[], open: Set<Deno.Conn>): Promise<void> {
  const head = await readHead(conn);
  const match = head && /^CONNECT (127\.0\.0\.1|localhost):(\d+) HTTP\/1\.[01]\r\n/.exec(head);
  if (!match) {
    await conn.write(new TextEncoder().encode("HTTP/1.1 405 Method Not Allowed\r\n\r\n"));
    conn.close();
    return;
  }
  tunnels.push(`${match[1]}:${match[2]}`);
  const target = await Deno.connect({ hostname: "127.0.0.1", port: Number(match[2]) });
  open.add(target);
  await conn.write(new TextEncoder().encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
  await Promise.allSettled([
    conn.readable.pipeTo(target.writable),
    target.readable.pipeTo(conn.writable),
  ]);
}

/** Starts the proxy on a free port. */
export function startTestConnectProxy(): TestConnectProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const tunnels: string[] = [];
  const open = new Set<Deno.Conn>();
  const serving = (async () => {
    for await (const conn of listener) {
      open.add(conn);
      tunnel(conn, tunnels, open).catch(() => {}).finally(() => {
        open.delete(conn);
        try {
          conn.close();
        } catch { /* already closed */ }
      });
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${listener.addr.port}`,
    tunnels,
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const conn of open) {
        try {
          conn.close();
        } catch { /* already closed */ }
      }
      await serving;
    },
  };
}
