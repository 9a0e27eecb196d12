import assert from "node:assert/strict";
import {
  applyObject,
  countOutcomes,
  describeCounts,
  foldStringData,
  mapLimit,
  updateObject,
} from "./apply.ts";
import { fakeKubeClient } from "../../tests/fakes/kube_transport.ts";
import type { KubeObject } from "./resources.ts";
import { CONFIG_MAPS } from "./resources.ts";

const live: KubeObject = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name: "x",
    namespace: "dev",
    uid: "1",
    resourceVersion: "7",
    labels: { group: "catalyst-tools", extra: "kept" },
  },
  data: { a: "1" },
};

/** An API server holding one ConfigMap, answering reads, applies (SSA) and replaces. */
function oneObjectServer(initial: KubeObject | undefined) {
  let stored = initial;
  let version = 7;
  const requests: string[] = [];
  const client = fakeKubeClient((request) => {
    const type = request.headers["Content-Type"] ?? "";
    requests.push(`${request.method} ${type}`.trim());
    if (request.method === "GET") {
      return stored ? Response.json(stored) : Response.json({ code: 404 }, { status: 404 });
    }
    const body = JSON.parse(request.body!) as KubeObject;
    assert.ok(!("resourceVersion" in body.metadata) || request.method === "PUT");
    const created = stored === undefined;
    const next: KubeObject = {
      ...body,
      metadata: { ...(stored?.metadata ?? {}), ...body.metadata },
    };
    const same = stored && JSON.stringify(stored.data) === JSON.stringify(next.data) &&
      JSON.stringify(stored.metadata.labels) === JSON.stringify(next.metadata.labels);
    if (!same) {
      next.metadata.resourceVersion = String(++version);
      next.metadata.managedFields = [{ manager: "toolkit", operation: "Apply" }];
      stored = next;
    }
    return Response.json(stored, { status: created ? 201 : 200 });
  });
  return { client, requests };
}

const desired: KubeObject = {
  metadata: { name: "x", namespace: "dev", labels: { group: "catalyst-tools" } },
  data: { a: "1" },
};

Deno.test("applyObject() creates by server-side apply as toolkit, then reports unchanged", async () => {
  const { client, requests } = oneObjectServer(undefined);
  assert.equal((await applyObject(client, CONFIG_MAPS, desired)).outcome, "created");
  assert.deepEqual(requests, ["GET", "PATCH application/apply-patch+yaml"]);
  assert.equal((await applyObject(client, CONFIG_MAPS, desired)).outcome, "unchanged");
  const changed = { ...desired, data: { a: "2" } };
  const updated = await applyObject(client, CONFIG_MAPS, changed);
  assert.equal(updated.outcome, "updated");
  assert.deepEqual(updated.object.data, { a: "2" });
  assert.equal(
    (await applyObject(client, CONFIG_MAPS, desired, { ifExists: "skip" })).outcome,
    "skipped",
  );
});

Deno.test("applyObject() reports an object another toolkit run created meanwhile as unchanged", async () => {
  const { client } = oneObjectServer({
    ...desired,
    metadata: {
      ...desired.metadata,
      resourceVersion: "3",
      managedFields: [{ manager: "toolkit", operation: "Apply" }],
    },
  });
  const result = await applyObject(client, CONFIG_MAPS, desired, { existing: null });
  assert.equal(result.outcome, "unchanged");
});

Deno.test("updateObject() replaces only when the change asks for it", async () => {
  const { client, requests } = oneObjectServer({ ...desired, metadata: { ...desired.metadata } });
  const same = await updateObject(client, CONFIG_MAPS, "dev", "x", () => undefined);
  assert.equal(same?.outcome, "unchanged");
  const changed = await updateObject(
    client,
    CONFIG_MAPS,
    "dev",
    "x",
    (live) => ({ ...live!, data: { a: "1", b: "2" } }),
  );
  assert.equal(changed?.outcome, "updated");
  assert.deepEqual(requests, ["GET", "GET", "PUT application/json"]);
});

Deno.test("foldStringData() stores UTF-8 stringData as base64 data", () => {
  const folded = foldStringData({
    metadata: { name: "s" },
    data: { keep: "eA==" },
    stringData: { password: "pä55" },
  });
  assert.equal(folded.stringData, undefined);
  assert.deepEqual(folded.data, { keep: "eA==", password: "cMOkNTU=" });
});

Deno.test("describeCounts() says nothing changed when nothing was written", () => {
  const r = (outcome: "created" | "unchanged" | "skipped") => ({
    outcome,
    type: CONFIG_MAPS,
    name: "x",
    object: live,
  });
  assert.equal(
    describeCounts(countOutcomes([r("unchanged"), r("skipped")])),
    "nothing changed (1 unchanged, 1 skipped)",
  );
  assert.equal(
    describeCounts(countOutcomes([r("created"), r("unchanged")])),
    "1 created, 1 unchanged",
  );
  assert.equal(describeCounts(countOutcomes([])), "nothing changed");
});

Deno.test("mapLimit() keeps the order and runs at most `limit` at once", async () => {
  let running = 0;
  let peak = 0;
  const out = await mapLimit([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
    running++;
    peak = Math.max(peak, running);
    await new Promise((r) => setTimeout(r, 1));
    running--;
    return n * 2;
  });
  assert.deepEqual(out, [2, 4, 6, 8, 10, 12, 14]);
  assert.ok(peak <= 3);
});
