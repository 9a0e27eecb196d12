import assert from "node:assert/strict";
import type { KubeClient } from "../kube/client.ts";
import type { KubeObject } from "../kube/resources.ts";
import { waitForWebhook, type WebhookReplicas } from "./readiness.ts";

/** A client whose Deployment reads as each status in turn (the last one repeats). */
function deployment(
  statuses: { available: number; observed: number }[],
  generation = 2,
): Pick<KubeClient, "read"> {
  let i = 0;
  return {
    // deno-lint-ignore require-await
    read: (async () => {
      const status = statuses[Math.min(i++, statuses.length - 1)]!;
      return {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "toolkit-webhook", namespace: "toolkit-system", generation },
        spec: { replicas: 3 },
        status: { availableReplicas: status.available, observedGeneration: status.observed },
      } as KubeObject;
    }) as KubeClient["read"],
  };
}

function clock() {
  let t = 0;
  return { now: () => t, sleep: (ms: number) => Promise.resolve(void (t += ms)) };
}

Deno.test("waitForWebhook returns when a replica of the current template is available", async () => {
  const seen: WebhookReplicas[] = [];
  const ready = await waitForWebhook(
    deployment([
      { available: 0, observed: 2 },
      { available: 1, observed: 1 }, // an old replica: the controller has not seen the new template
      { available: 1, observed: 2 },
    ]),
    "toolkit-system",
    { ...clock(), onProgress: (r) => seen.push(r) },
  );
  assert.deepEqual(ready, { desired: 3, available: 1, current: true });
  assert.deepEqual(seen.map((r) => r.available), [0, 1]);
});

Deno.test("waitForWebhook says where to look after the timeout", async () => {
  await assert.rejects(
    waitForWebhook(deployment([{ available: 0, observed: 2 }]), "toolkit-system", {
      ...clock(),
      timeoutMs: 10_000,
    }),
    /The webhook is not ready after 10 s \(0\/3 replicas available\), so enforcement was not switched on: see kubectl -n toolkit-system describe deployment toolkit-webhook/,
  );
});

Deno.test("waitForWebhook refuses to wait for a Deployment that is not there", async () => {
  const none: Pick<KubeClient, "read"> = {
    // deno-lint-ignore require-await
    read: (async () => undefined) as KubeClient["read"],
  };
  await assert.rejects(
    waitForWebhook(none, "toolkit-system", clock()),
    /there is no Deployment "toolkit-system\/toolkit-webhook"/,
  );
});
