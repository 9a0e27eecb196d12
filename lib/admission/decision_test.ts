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

Deno.test("decisionOf() says whether the policy or a failure denied (a fail-closed denial)", () => {
  const a = site(0, "r.example/team/app:1");
  const b = site(1, "r.example/team/other:1");
  const planned: PlannedSite[] = [
    { site: a, match: fakeMatch(), ref: parseReference(a.image), slot: 0 },
    { site: b, match: fakeMatch(), ref: parseReference(b.image), slot: 1 },
  ];
  const failed = { allowed: false as const, cause: "error" as const, reason: "registry down" };
  const refused = { allowed: false as const, cause: "policy" as const, reason: "not signed" };
  const ok = { allowed: true as const, digest: DIGEST };
  const decide = (verdicts: Parameters<typeof decisionOf>[2], mode: "enforce" | "warn") =>
    decisionOf(workload([a, b]), planned, verdicts, mode);
  assert.equal(decide([ok, failed], "enforce").cause, "error");
  assert.equal(decide([ok, failed], "enforce").sites[1]?.cause, "error");
  assert.equal(decide([refused, failed], "enforce").cause, "policy", "the policy denies anyway");
  assert.equal(decide([ok, refused], "enforce").cause, "policy");
  assert.equal(decide([ok, undefined], "enforce").cause, "error", "not checked: a failure");
  assert.equal(decide([ok, failed], "warn").cause, "error", "warn mode admits a failure");
  assert.equal(decide([ok, ok], "enforce").cause, undefined, "nothing denied");
  const problem = decisionOf(
    workload([a]),
    [
      { site: a, immediate: { outcome: "deny", reason: "policies unusable", cause: "error" } },
    ],
    [undefined],
    "enforce",
  );
  assert.equal(problem.cause, "error");
  const noPolicy = decisionOf(
    workload([a]),
    [
      { site: a, immediate: { outcome: "deny", reason: "no policy" } },
    ],
    [undefined],
    "enforce",
  );
  assert.equal(noPolicy.cause, "policy");
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
