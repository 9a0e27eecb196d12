/**
 * Switching enforcement on only once the webhook can answer. The webhook configuration fails
 * closed (`failurePolicy: Fail`): created before any replica is ready, it would refuse every
 * workload in the cluster until one is. `enable` therefore applies everything else first and
 * waits until the Deployment has an available replica of its current template.
 *
 * @module
 */
import type { KubeClient, KubeObject } from "../kube/mod.ts";
import { installedType } from "./apply.ts";
import { InstallError } from "./install_error.ts";
import { WEBHOOK_NAME } from "./options.ts";
import { pollUntil, type WaitOptions } from "../poll.ts";

/** The replicas of the webhook's Deployment, as its status reports them. */
export interface WebhookReplicas {
  /** Replicas wanted. */
  readonly desired: number;
  /** Replicas available (ready for `minReadySeconds`). */
  readonly available: number;
  /** Whether the status describes the current template (the controller has seen it). */
  readonly current: boolean;
}

interface DeploymentShape extends KubeObject {
  spec?: { replicas?: number };
  status?: { observedGeneration?: number; availableReplicas?: number };
}

/** Reads the Deployment's replicas, or undefined when there is no Deployment. */
export async function webhookReplicas(
  client: Pick<KubeClient, "read">,
  namespace: string,
): Promise<WebhookReplicas | undefined> {
  const deployment = await client.read(installedType("Deployment"), namespace, WEBHOOK_NAME) as
    | DeploymentShape
    | undefined;
  if (!deployment) return undefined;
  const generation = Number(deployment.metadata.generation ?? 0);
  return {
    desired: deployment.spec?.replicas ?? 1,
    available: deployment.status?.availableReplicas ?? 0,
    current: (deployment.status?.observedGeneration ?? 0) >= generation,
  };
}

/** Options of {@link waitForWebhook}. */
export interface WebhookWaitOptions extends WaitOptions {
  /** Told each time the count of available replicas changes. */
  readonly onProgress?: (replicas: WebhookReplicas) => void;
}

/**
 * Waits until the webhook's Deployment has an available replica of its current template.
 *
 * @throws {InstallError} after the timeout, saying where to look.
 */
export async function waitForWebhook(
  client: Pick<KubeClient, "read">,
  namespace: string,
  options: WebhookWaitOptions = {},
): Promise<WebhookReplicas> {
  let state = "";
  return await pollUntil(
    async () => {
      const replicas = await webhookReplicas(client, namespace);
      if (replicas === undefined) {
        throw new InstallError(
          `Cannot wait for the webhook: there is no Deployment "${namespace}/${WEBHOOK_NAME}"`,
        );
      }
      if (replicas.current && replicas.available >= 1) return replicas;
      const seen = `${replicas.available}/${replicas.desired}`;
      if (seen !== state) options.onProgress?.(replicas);
      state = seen;
      return undefined;
    },
    (timeoutMs) =>
      new InstallError(
        `The webhook is not ready after ${
          Math.round(timeoutMs / 1000)
        } s (${state} replicas available), so enforcement was not switched on: see kubectl -n ${namespace} describe deployment ${WEBHOOK_NAME} and kubectl -n ${namespace} get pods`,
      ),
    options,
    { timeoutMs: 180_000, pollMs: 1000 },
  );
}
