/**
 * A {@linkcode KubeClient} over a fake transport, for tests: `answer` gets each request and
 * returns the Response.
 *
 * @module
 */
import { KubeClient } from "../../lib/kube/client.ts";
import type { ResolvedContext } from "../../lib/kube/kubeconfig.ts";
import { sendThrough, type TransportRequest } from "../../lib/kube/transport.ts";

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
    send: sendThrough(open),
    close() {},
  });
}

/** A SecretList of one Secret whose password is `secret`. */
export function secretList(secret: string): string {
  return JSON.stringify({
    kind: "SecretList",
    metadata: { resourceVersion: "7" },
    items: [{ metadata: { name: "store", namespace: "team" }, data: { password: secret } }],
  });
}
