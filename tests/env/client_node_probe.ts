/**
 * Creates a Namespace and a Tekton Pipeline through `@kubernetes/client-node` and prints the
 * Pipeline read back, as JSON. Run as its own process by the smoke test
 * (`deno run -A tests/env/client_node_probe.ts KUBECONFIG NAMESPACE`), so that the client's
 * pooled connections end with the process, before the API server stops: Deno 2.9's Node
 * compatibility layer has crashed (SIGSEGV/SIGABRT) when the server closed them under a live
 * test process.
 *
 * @module
 */
import * as k8s from "@kubernetes/client-node";

const [kubeconfig, namespace] = Deno.args;
if (!kubeconfig || !namespace) {
  // deno-lint-ignore no-console
  console.error("usage: client_node_probe.ts KUBECONFIG NAMESPACE");
  Deno.exit(2);
}
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
const core = kc.makeApiClient(k8s.CoreV1Api);
await core.createNamespace({ body: { metadata: { name: namespace } } });
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const pipeline = { group: "tekton.dev", version: "v1", namespace, plural: "pipelines" };
await custom.createNamespacedCustomObject({
  ...pipeline,
  body: {
    apiVersion: "tekton.dev/v1",
    kind: "Pipeline",
    metadata: { name: "build" },
    spec: {
      tasks: [{
        name: "hello",
        taskSpec: { steps: [{ name: "echo", image: "busybox", script: "echo hi" }] },
      }],
    },
  },
});
const read = await custom.getNamespacedCustomObject({ ...pipeline, name: "build" });
await Deno.stdout.write(new TextEncoder().encode(`${JSON.stringify(read)}\n`));
Deno.exit(0);
