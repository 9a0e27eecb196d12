/**
 * A signature store and a registry run by an attacker, on one loopback port: what a policy's
 * `storeURL` or an image a Pod names can point the webhook at. Shared by the hostile-store
 * end-to-end test and `tests/bench/hostile_load.ts`.
 *
 * Stores, under `/store/<kind>` (lookaside layout, `…/signature-N`):
 * - `huge`: 128 signatures of 4 MiB each (with their length declared);
 * - `many`: 128 signatures of 200 KiB each, none valid;
 * - `endless`: a body that never ends and declares no length;
 * - `drip`: one byte every 50 ms, forever;
 * - `loop`: a redirect to itself.
 *
 * The registry, under `/v2/`, asks for a Bearer token from `/token`; for repositories under
 * `token/` the token service answers a token that never ends, for the others a small token, and
 * then every manifest answers without a digest header and with a body that never ends.
 *
 * @module
 */
import { serve } from "../fakes/loopback_server.ts";
import { signerSecretDocument } from "./_hostile.ts";

/** The kinds of hostile signature stores. */
export const HOSTILE_STORES = ["huge", "many", "endless", "drip", "loop"] as const;

/** One of {@linkcode HOSTILE_STORES}. */
export type HostileStore = typeof HOSTILE_STORES[number];

/** The running server. */
export interface HostileServer extends AsyncDisposable {
  /** `127.0.0.1:<port>`. */
  readonly host: string;
  /** Bytes it has sent so far. */
  readonly sentBytes: number;
  /** The base URL of one kind of store. */
  storeURL(kind: HostileStore): string;
}

const MiB = 1024 * 1024;

/** Starts the hostile store and registry on a free loopback port. */
export function startHostileServer(): Promise<HostileServer> {
  let sent = 0;
  const block = new Uint8Array(64 * 1024).fill(0x41);
  const count = (n: number) => (sent += n);

  function endless(): ReadableStream<Uint8Array> {
    return new ReadableStream({
      pull(controller) {
        count(block.length);
        controller.enqueue(block);
      },
    });
  }

  function drip(): ReadableStream<Uint8Array> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    return new ReadableStream({
      pull(controller) {
        return new Promise((resolve) => {
          timer = setTimeout(() => {
            count(1);
            controller.enqueue(new Uint8Array([0x41]));
            resolve();
          }, 50);
        });
      },
      cancel() {
        clearTimeout(timer);
      },
    });
  }

  function sized(bytes: number): Response {
    let left = bytes;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (left <= 0) return controller.close();
        const chunk = block.subarray(0, Math.min(block.length, left));
        left -= chunk.length;
        count(chunk.length);
        controller.enqueue(chunk);
      },
    });
    return new Response(body, { headers: { "content-length": String(bytes) } });
  }

  function store(kind: string, index: number, url: URL): Response {
    if (index > 128) return new Response("not found", { status: 404 });
    switch (kind) {
      case "huge":
        return sized(4 * MiB);
      case "many":
        return sized(200 * 1024);
      case "endless":
        return new Response(endless());
      case "drip":
        return new Response(drip());
      case "loop":
        return Response.redirect(url.href, 302);
      default:
        return new Response("not found", { status: 404 });
    }
  }

  const server = serve((request) => {
    const url = new URL(request.url);
    const storeMatch = /^\/store\/([a-z]+)\/.*\/signature-([0-9]+)$/.exec(url.pathname);
    if (storeMatch) return store(storeMatch[1]!, Number(storeMatch[2]), url);
    if (url.pathname === "/token") {
      if ((url.searchParams.get("scope") ?? "").includes(":token/")) return new Response(endless());
      return Response.json({ token: "t" });
    }
    if (url.pathname.startsWith("/v2/") && request.headers.get("authorization") !== "Bearer t") {
      return new Response('{"errors":[{"code":"UNAUTHORIZED"}]}', {
        status: 401,
        headers: {
          "content-type": "application/json",
          "www-authenticate": `Bearer realm="http://${url.host}/token",service="hostile"`,
        },
      });
    }
    if (url.pathname.startsWith("/v2/")) {
      if (request.method === "HEAD") {
        return new Response(null, {
          headers: { "content-type": "application/vnd.oci.image.manifest.v1+json" },
        });
      }
      return new Response(endless(), {
        headers: { "content-type": "application/vnd.oci.image.manifest.v1+json" },
      });
    }
    return new Response("not found", { status: 404 });
  });
  const host = server.host;
  return Promise.resolve({
    host,
    get sentBytes() {
      return sent;
    },
    storeURL: (kind) => `http://${host}/store/${kind}`,
    [Symbol.asyncDispose]: () => server.stop(),
  });
}

/**
 * A `--policies` file: images of `<host>/<kind>/…` must be signed by `armoredKey`, their
 * signatures read from the hostile store of that kind; images of `<host>/registry/…` from the
 * hostile registry itself.
 */
export function hostilePolicyFile(server: HostileServer, armoredKey: string): string {
  const repositories = HOSTILE_STORES.map((kind) =>
    `    - name: "${server.host}/${kind}/*"
      policy:
        simple:
          storeURL: "${server.storeURL(kind)}"
          requirements: [{ type: signedBy, keySecret: signer }]`
  ).join("\n");
  return `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
${repositories}
    - name: "${server.host}/registry/*"
      policy:
        simple:
          storeURL: "${server.storeURL("huge")}"
          requirements: [{ type: signedBy, keySecret: signer }]
    - name: "${server.host}/token/*"
      policy:
        simple:
          storeURL: "${server.storeURL("huge")}"
          requirements: [{ type: signedBy, keySecret: signer }]
${signerSecretDocument(armoredKey)}`;
}

/** Image `i` of a hostile kind, by a digest of its own (so no two reviews share work). */
export function hostileImage(server: HostileServer, kind: HostileStore, i: number): string {
  const hex = (i.toString(16).padStart(8, "0") + kind.length.toString(16)).padEnd(64, "0");
  return `${server.host}/${kind}/app@sha256:${hex}`;
}
