/**
 * The transport built on `@kubernetes/client-node` 2.0.1: its `KubeConfig` authenticates each
 * request (exec credential plugins, OIDC and other auth providers, `insecure-skip-tls-verify`,
 * `tls-server-name`, proxies) and its fetch library sends it. The package is imported only
 * when this transport is made, because loading it takes most of a second.
 *
 * @module
 */
import type { ResolvedContext } from "./kubeconfig.ts";
import { type KubeTransport, unreachable } from "./transport.ts";
import { NoClusterContextError } from "./errors.ts";

/** Makes the `@kubernetes/client-node` transport for a context. */
export async function clientNodeTransport(context: ResolvedContext): Promise<KubeTransport> {
  const k8s = await import("@kubernetes/client-node");
  const config = new k8s.KubeConfig();
  try {
    config.loadFromString(context.standalone);
  } catch (error) {
    throw new NoClusterContextError(`cannot load context "${context.name}"`, { cause: error });
  }
  const http = new k8s.IsomorphicFetchHttpLibrary();
  const send: KubeTransport["send"] = async (request) => {
    const method = request.method as (typeof k8s.HttpMethod)[keyof typeof k8s.HttpMethod];
    const rc = new k8s.RequestContext(request.url, method);
    for (const [name, value] of Object.entries(request.headers)) rc.setHeaderParam(name, value);
    if (request.body !== undefined) rc.setBody(request.body);
    try {
      await config.applySecurityAuthentication(rc);
    } catch (error) {
      throw new NoClusterContextError(
        `cannot authenticate as user "${context.user.name}" of context "${context.name}"`,
        { cause: error },
      );
    }
    let response;
    try {
      response = await http.send(rc).toPromise();
    } catch (error) {
      throw unreachable(context, error);
    }
    return { status: response.httpStatusCode, text: await response.body.text() };
  };
  return {
    kind: "client-node",
    // Its fetch library reads the whole body before answering: a watch is seen when it ends.
    streams: false,
    send,
    async open(request) {
      const { status, text } = await send(request);
      return new Response(status === 204 || status === 304 ? null : text, { status });
    },
    close() {},
  };
}
