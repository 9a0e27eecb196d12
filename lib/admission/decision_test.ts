import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { decisionOf, type PlannedSite } from "./decision.ts";
import type { ImageSite, WorkloadImages } from "./workload.ts";
import { fakeMatch } from "../../tests/fakes/requirement_kinds.ts";

const DIGEST = `sha256:${"d".repeat(64)}`;

function site(index: number, image: string): ImageSite {
  return {
    type: "container",
    name: `c${index}`,
    list: "containers",
    index,
    image,
    pointer: `/spec/containers/${index}/image`,
    field: `spec.containers[${index}]`,
    pinnable: true,
  } as ImageSite;
}

function workload(sites: ImageSite[]): WorkloadImages {
  return {
    kind: "Pod",
    podSpecPointer: "/spec",
    sites,
    imagePullSecrets: [],
    serviceAccountName: "default",
  } as unknown as WorkloadImages;
}

Deno.test("decisionOf() admits verified sites and pins them to their digest", () => {
  const a = site(0, "r.example/team/app:1");
  const match = fakeMatch();
  const planned: PlannedSite[] = [{ site: a, match, ref: parseReference(a.image), slot: 0 }];
  const decision = decisionOf(
    workload([a]),
    planned,
    [{ allowed: true, digest: DIGEST }],
    "enforce",
  );
  assert.equal(decision.allowed, true);
  assert.equal(decision.outcome, "allow");
  assert.deepEqual(decision.patch, [
    { op: "replace", path: a.pointer, value: `r.example/team/app@${DIGEST}` },
  ]);
  assert.equal(decision.sites[0]?.policy, 'ClusterImagePolicy "p" (pattern "registry.example/*")');
});

Deno.test("decisionOf() denies a site without a verdict, and warn mode admits it with a warning", () => {
  const a = site(0, "r.example/team/app:1");
  const b = site(1, "r.example/team/other:1");
  const planned: PlannedSite[] = [
    { site: a, match: fakeMatch(), ref: parseReference(a.image), slot: 0 },
    { site: b, immediate: { outcome: "deny", reason: "no policy" } },
  ];
  const verdicts = [{ allowed: true as const, digest: DIGEST }, undefined];
  const denied = decisionOf(workload([a, b]), planned, verdicts, "enforce");
  assert.equal(denied.allowed, false);
  assert.deepEqual(denied.patch, [], "a denied review is not patched");
  assert.deepEqual(denied.reasons, [
    'policy denied the request: no policy (container "c1" at spec.containers[1], image "r.example/team/other:1")',
  ]);
  const warned = decisionOf(workload([a, b]), planned, verdicts, "warn");
  assert.equal(warned.allowed, true);
  assert.equal(warned.outcome, "warn");
  assert.equal(warned.warnings.length, 1);
  // A site with no verdict says so.
  const unchecked = decisionOf(workload([a]), [{ site: a, match: fakeMatch(), slot: 0 }], [
    undefined,
  ], "enforce");
  assert.match(unchecked.reasons[0]!, /the image was not checked/);
  // Nothing to check is admitted for that reason alone.
  assert.equal(decisionOf(workload([]), [], [], "enforce").allowed, true);
});

Deno.test("decisionOf() tells an admitted verdict's notes as warnings, still pinned to the index", () => {
  const a = site(0, "r.example/team/app:1");
  const planned: PlannedSite[] = [{
    site: a,
    match: fakeMatch(),
    ref: parseReference(a.image),
    slot: 0,
  }];
  const note =
    `the image index ${DIGEST} was admitted by the signatures of its platforms linux/amd64 (multiArch: everyPlatform), not by its own; it is still pinned by its digest`;
  const decision = decisionOf(
    workload([a]),
    planned,
    [{ allowed: true, digest: DIGEST, notes: [note] }],
    "enforce",
  );
  assert.equal(decision.allowed, true);
  assert.equal(decision.outcome, "allow", "a note is no warn-mode admission");
  assert.deepEqual(decision.warnings, [
    `${note} (container "c0" at spec.containers[0], image "r.example/team/app:1")`,
  ]);
  assert.deepEqual(decision.patch, [
    { op: "replace", path: a.pointer, value: `r.example/team/app@${DIGEST}` },
  ]);
  assert.deepEqual(decision.sites[0]?.notes, [note]);
});
