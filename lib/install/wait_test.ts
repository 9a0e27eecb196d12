import assert from "node:assert/strict";
import type { KubeClient } from "../kube/client.ts";
import type { KubeObject } from "../kube/resources.ts";
import { isTerminating, waitUntilDeleted } from "./wait.ts";

/** A client whose namespace disappears after `reads` reads. */
function fading(reads: number, deletionTimestamp?: string): Pick<KubeClient, "read"> {
  let left = reads;
  const namespace: KubeObject = {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "toolkit-system", ...(deletionTimestamp ? { deletionTimestamp } : {}) },
  };
  return {
    // deno-lint-ignore require-await
    read: (async () => (left-- > 0 ? namespace : undefined)) as KubeClient["read"],
  };
}

function clock() {
  let t = 0;
  return { now: () => t, sleep: (ms: number) => Promise.resolve(void (t += ms)) };
}

Deno.test("waitUntilDeleted returns once the object is gone", async () => {
  const c = clock();
  await waitUntilDeleted(fading(3), "Namespace", undefined, "toolkit-system", c);
  assert.equal(c.now(), 1500);
});

Deno.test("waitUntilDeleted names the finalizer problem after the timeout", async () => {
  const c = clock();
  await assert.rejects(
    waitUntilDeleted(fading(1000), "Namespace", undefined, "toolkit-system", {
      ...c,
      timeoutMs: 5_000,
    }),
    /Namespace "toolkit-system" is still being deleted after 5 s: a finalizer holds it \(kubectl get namespaces toolkit-system -o yaml shows which\)/,
  );
});

Deno.test("isTerminating reads the deletionTimestamp", async () => {
  assert.equal(await isTerminating(fading(1), "Namespace", undefined, "a"), false);
  assert.equal(
    await isTerminating(fading(1, "2026-11-22T10:00:00Z"), "Namespace", undefined, "a"),
    true,
  );
  assert.equal(await isTerminating(fading(0), "Namespace", undefined, "a"), false);
});
