import assert from "node:assert/strict";
import {
  contains,
  countOutcomes,
  describeCounts,
  foldStringData,
  jsonEqual,
  mapLimit,
  matches,
  mergeForUpdate,
} from "./apply.ts";
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

Deno.test("matches() accepts extra live labels and rejects changed data", () => {
  const desired: KubeObject = {
    metadata: { name: "x", namespace: "dev", labels: { group: "catalyst-tools" } },
    data: { a: "1" },
  };
  assert.equal(matches(live, desired), true);
  assert.equal(matches(live, { ...desired, data: { a: "1", b: "2" } }), false);
  assert.equal(matches(live, { ...desired, data: {} }), false);
  assert.equal(
    matches(live, { ...desired, metadata: { ...desired.metadata, labels: { group: "x" } } }),
    false,
  );
});

Deno.test("matches() ignores fields the server defaults inside desired ones", () => {
  const rb: KubeObject = {
    metadata: { name: "rb" },
    subjects: [{ kind: "Group", name: "g", apiGroup: "rbac.authorization.k8s.io" }],
  };
  const desired: KubeObject = {
    metadata: { name: "rb" },
    subjects: [{ kind: "Group", name: "g" }],
  };
  assert.equal(matches(rb, desired), true);
  assert.equal(matches(rb, { ...desired, subjects: [] }), false);
});

Deno.test("mergeForUpdate() keeps other labels and the resourceVersion", () => {
  const merged = mergeForUpdate(live, {
    metadata: { name: "x", namespace: "dev", labels: { group: "new" } },
    data: { b: "2" },
  });
  assert.deepEqual(merged.metadata.labels, { group: "new", extra: "kept" });
  assert.equal(merged.metadata.resourceVersion, "7");
  assert.deepEqual(merged.data, { b: "2" });
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

Deno.test("contains() and jsonEqual() compare JSON values", () => {
  assert.equal(contains({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { c: 2 }] }), true);
  assert.equal(contains({ b: [1] }, { b: [1, 2] }), false);
  assert.equal(jsonEqual({ a: [1, 2] }, { a: [1, 2] }), true);
  assert.equal(jsonEqual({ a: 1 }, { a: 1, b: 2 }), false);
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
