/**
 * Waiting for the EventListener to serve: Tekton Triggers' controller runs it as Deployment
 * `el-tekton`; it serves once a replica is available. Looked at every second (igc: every 10 s),
 * up to a timeout that says what to check.
 *
 * @module
 */
import { DEPLOYMENTS, type KubeClient } from "../kube/mod.ts";
import { ToolkitError } from "../errors.ts";
import { pollUntil, type WaitOptions } from "../poll.ts";
import { LISTENER_SERVICE } from "./exposure.ts";

/** The EventListener did not become available in time. */
export class ListenerNotReadyError extends ToolkitError {
  /** Creates the error. */
  constructor(namespace: string, seconds: number, seen: string) {
    super(
      `The event listener is not available after ${seconds} s (${seen}): check that Tekton Triggers' controller runs and see kubectl -n ${namespace} describe deployment ${LISTENER_SERVICE}`,
    );
    this.name = "ListenerNotReadyError";
  }
}

/** Waits until Deployment `el-tekton` of `namespace` has an available replica. */
export async function waitForListener(
  client: Pick<KubeClient, "read">,
  namespace: string,
  options: WaitOptions = {},
): Promise<void> {
  let seen = "no Deployment yet";
  await pollUntil(
    async () => {
      const d = await client.read(DEPLOYMENTS, namespace, LISTENER_SERVICE) as
        | { status?: { availableReplicas?: number; replicas?: number } }
        | undefined;
      if (!d) return undefined;
      const available = d.status?.availableReplicas ?? 0;
      seen = `${available}/${d.status?.replicas ?? 0} replicas available`;
      return available > 0 ? true : undefined;
    },
    (timeoutMs) => new ListenerNotReadyError(namespace, Math.round(timeoutMs / 1000), seen),
    options,
    { timeoutMs: 120_000, pollMs: 1000 },
  );
}
