/**
 * A stand-in for the kubelet, which cannot run here (it needs a container runtime): it registers
 * a Node and reports the Pods of a namespace as scheduled to it, running and ready, through the
 * same API calls a scheduler and a kubelet make (`pods/binding`, the `pods/status`
 * subresource). The real kube-controller-manager then counts them, so Deployments become
 * available. Nothing runs in those Pods.
 *
 * @module
 */
import { kubectlOk, type TestCluster } from "./cluster.ts";

/** The Node the stand-in reports. */
export const TEST_NODE = "toolkit-test-node";

/** Registers {@link TEST_NODE} (once) as a ready Node. */
async function ensureNode(cluster: TestCluster): Promise<void> {
  const exists = await cluster.kubectl(["get", "node", TEST_NODE]);
  if (exists.code === 0) return;
  await kubectlOk(
    cluster,
    ["create", "-f", "-"],
    JSON.stringify({ apiVersion: "v1", kind: "Node", metadata: { name: TEST_NODE } }),
  );
  const now = new Date().toISOString();
  await kubectlOk(cluster, [
    "patch",
    "node",
    TEST_NODE,
    "--subresource=status",
    "--type=merge",
    "-p",
    JSON.stringify({
      status: {
        conditions: [{
          type: "Ready",
          status: "True",
          reason: "KubeletReady",
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        }],
      },
    }),
  ]);
}

/**
 * Schedules every Pod of `namespace` that has no node to {@link TEST_NODE} and reports it running
 * and ready. Returns how many Pods it started.
 */
export async function startPendingPods(cluster: TestCluster, namespace: string): Promise<number> {
  await ensureNode(cluster);
  const pods = JSON.parse(await kubectlOk(cluster, ["get", "pods", "-n", namespace, "-o", "json"]))
    .items as {
      metadata: { name: string; deletionTimestamp?: string };
      spec: { nodeName?: string; containers: { name: string; image: string }[] };
    }[];
  let started = 0;
  for (const pod of pods) {
    if (pod.spec.nodeName || pod.metadata.deletionTimestamp) continue;
    const binding = {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: pod.metadata.name, namespace },
      target: { apiVersion: "v1", kind: "Node", name: TEST_NODE },
    };
    await kubectlOk(cluster, [
      "create",
      "--raw",
      `/api/v1/namespaces/${namespace}/pods/${pod.metadata.name}/binding`,
      "-f",
      "-",
    ], JSON.stringify(binding));
    const now = new Date().toISOString();
    const condition = (type: string) => ({ type, status: "True", lastTransitionTime: now });
    await kubectlOk(cluster, [
      "patch",
      "pod",
      pod.metadata.name,
      "-n",
      namespace,
      "--subresource=status",
      "--type=merge",
      "-p",
      JSON.stringify({
        status: {
          phase: "Running",
          startTime: now,
          podIP: "10.0.0.10",
          conditions: ["PodScheduled", "Initialized", "ContainersReady", "Ready"].map(condition),
          containerStatuses: pod.spec.containers.map((c) => ({
            name: c.name,
            image: c.image,
            imageID: "",
            ready: true,
            started: true,
            restartCount: 0,
            state: { running: { startedAt: now } },
          })),
        },
      }),
    ]);
    started++;
  }
  return started;
}
