/**
 * A registry with the `X-Registry-Supports-Signatures` extension, for tests. The extension is
 * implemented by the OpenShift integrated registry (and, by all appearances, IBM Cloud Container
 * Registry), neither of which can run here, so this front stands in for it: it follows the
 * OpenShift registry's signature handler (`openshift/image-registry`,
 * `pkg/dockerregistry/server/signaturedispatcher.go`) and containers/image's
 * `docs/signature-protocols.md`, and proxies everything under `/v2/` to a real distribution
 * registry:
 *
 * - `GET /v2/` answers as the real registry does, plus `X-Registry-Supports-Signatures: 1`.
 * - `GET /extensions/v2/<name>/signatures/<digest>`: 200 with
 *   `{"signatures":[{"schemaVersion":2,"name","type","content"}]}` (content base64), or 404 with
 *   no body when the manifest does not exist, or the real registry's 401 when the caller may not
 *   pull it (the check is a HEAD of the manifest with the caller's `Authorization`).
 * - `PUT` of the same path with one signature object: 201 with no body; 400
 *   `SIGNATURE_INVALID` for a body that is not JSON or has a `schemaVersion` other than 2; 409
 *   `SIGNATURE_EXISTS` for a name already stored; 404 when the manifest does not exist.
 *
 * @module
 */

import { serve, type TestServer } from "./loopback_server.ts";

/** A stored signature object, as the extension serves it. */
export interface StoredSignature {
  schemaVersion: number;
  name: string;
  type: string;
  content: string;
}

/** The running front. */
export interface ExtensionRegistry extends AsyncDisposable {
  /** `127.0.0.1:PORT` of the front. */
  readonly host: string;
  /** The stored signatures by `<repository>@<digest>`. */
  readonly signatures: Map<string, StoredSignature[]>;
  /** The front's request log. */
  readonly server: TestServer;
  /** Stops the front (not the backing registry). */
  stop(): Promise<void>;
}

const SIGNATURES_PATH = /^\/extensions\/v2\/(.+)\/signatures\/([a-z0-9]+:[a-f0-9]+)$/;

function errorResponse(status: number, code: string, message: string): Response {
  return Response.json({ errors: [{ code, message, detail: null }] }, { status });
}

/**
 * Starts the front for the real registry at `backendUrl` (`http://127.0.0.1:PORT`), over HTTPS
 * with `tls` (a certificate for 127.0.0.1 and its key, PEM) as a registry in a cluster would be.
 */
export function startExtensionRegistry(
  backendUrl: string,
  tls?: { readonly cert: string; readonly key: string },
): ExtensionRegistry {
  const signatures = new Map<string, StoredSignature[]>();

  async function proxy(request: Request, path: string): Promise<Response> {
    const headers = new Headers(request.headers);
    headers.delete("host");
    const response = await fetch(`${backendUrl}${path}`, {
      method: request.method,
      headers,
      body: request.body,
      redirect: "manual",
    });
    const out = new Headers(response.headers);
    if (path === "/v2/") out.set("x-registry-supports-signatures", "1");
    // An upload's Location names the backend: the front's own path, as one registry answers.
    const location = out.get("location");
    if (location?.startsWith(backendUrl)) out.set("location", location.slice(backendUrl.length));
    return new Response(response.body, { status: response.status, headers: out });
  }

  async function handleSignatures(
    request: Request,
    name: string,
    digest: string,
  ): Promise<Response> {
    const headers = new Headers({
      accept:
        "application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.v2+json, application/vnd.docker.distribution.manifest.list.v2+json",
    });
    const authorization = request.headers.get("authorization");
    if (authorization) headers.set("authorization", authorization);
    const check = await fetch(`${backendUrl}/v2/${name}/manifests/${digest}`, {
      method: "HEAD",
      headers,
    });
    await check.body?.cancel();
    if (check.status === 401) {
      const response = errorResponse(401, "UNAUTHORIZED", "authentication required");
      const challenge = check.headers.get("www-authenticate");
      if (challenge) response.headers.set("www-authenticate", challenge);
      return response;
    }
    if (check.status === 404) return new Response(null, { status: 404 });
    if (check.status !== 200) return errorResponse(500, "UNKNOWN", "backend failure");
    const key = `${name}@${digest}`;
    if (request.method === "GET") {
      return Response.json({ signatures: signatures.get(key) ?? [] }, {
        headers: { "content-type": "application/json; charset=utf-8" },
      });
    }
    if (request.method !== "PUT") {
      return errorResponse(405, "UNSUPPORTED", "The operation is unsupported.");
    }
    let body: Partial<StoredSignature>;
    try {
      body = await request.json();
    } catch (error) {
      return errorResponse(400, "SIGNATURE_INVALID", `invalid image signature: ${error}`);
    }
    if (body.schemaVersion !== 2) {
      return errorResponse(400, "SIGNATURE_INVALID", "only schemaVersion=2 is currently supported");
    }
    const all = [...signatures.values()].flat();
    if (all.some((s) => s.name === body.name)) {
      return errorResponse(409, "SIGNATURE_EXISTS", "image signature already exists");
    }
    const list = signatures.get(key) ?? [];
    list.push({
      schemaVersion: 2,
      name: String(body.name ?? ""),
      type: body.type || "AtomicImageV1",
      content: String(body.content ?? ""),
    });
    signatures.set(key, list);
    return new Response(null, { status: 201 });
  }

  const server = serve((request) => {
    const url = new URL(request.url);
    const match = SIGNATURES_PATH.exec(url.pathname);
    if (match) return handleSignatures(request, match[1]!, match[2]!);
    if (url.pathname.startsWith("/v2/")) return proxy(request, `${url.pathname}${url.search}`);
    return errorResponse(404, "NOT_FOUND", "not found");
  }, tls);
  return {
    host: server.host,
    signatures,
    server,
    stop: () => server.stop(),
    [Symbol.asyncDispose]: () => server.stop(),
  };
}
