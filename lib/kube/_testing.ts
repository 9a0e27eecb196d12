/**
 * A {@linkcode KubeClient} over a fake transport, for tests: `answer` gets each request and
 * returns the Response.
 *
 * @module
 */
import { KubeClient } from "./client.ts";
import type { ResolvedContext } from "./kubeconfig.ts";
import type { TransportRequest } from "./transport.ts";

/** A client whose requests `answer` answers. */
export function fakeKubeClient(
  answer: (request: TransportRequest) => Response | Promise<Response>,
): KubeClient {
  const context: ResolvedContext = {
    name: "test",
    cluster: { name: "test", server: "https://api.test" },
    user: { name: "" },
    file: "",
    files: [],
    standalone: "",
  };
  const open = async (request: TransportRequest) => await answer(request);
  return new KubeClient(context, {
    kind: "fetch",
    streams: true,
    open,
    async send(request) {
      const response = await open(request);
      return { status: response.status, text: await response.text() };
    },
    close() {},
  });
}
