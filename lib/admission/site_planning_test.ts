import assert from "node:assert/strict";
import { TurnScheduler } from "../turns.ts";
import { DeadlineScheduler } from "./deadline.ts";
import { FairSlots } from "./fair_slots.ts";
import { filePolicySource, parsePolicyManifests } from "./file_source.ts";
import { ImageChoices } from "./image_choices.ts";
import type { AdmissionRequest } from "./review.ts";
import { decideSites, type SitePlanning } from "./site_planning.ts";
import type { ImageVerdict, ImageVerifier, VerifyTask } from "./verifier.ts";
import { workloadImages } from "./workload.ts";

const DIGEST = `sha256:${"ab".repeat(32)}`;

const POLICIES = `
apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
    - name: "registry.example.com/*"
      policy:
        simple: { requirements: [{ type: signedBy, keySecret: signer }] }
`;

/** Admits every image; `known` answers for the images in `warm`. */
function fakeVerifier(warm: ReadonlySet<string>) {
  const verified: string[] = [];
  const answer = (_task: VerifyTask): ImageVerdict => ({ allowed: true, digest: DIGEST });
  const verifier: ImageVerifier = {
    verify: (task) => {
      verified.push(`${task.reference.path}:${task.reference.tag}`);
      return Promise.resolve(answer(task));
    },
    known: (task) => warm.has(task.reference.path) ? answer(task) : undefined,
  };
  return { verifier, verified };
}

function planning(verifier: ImageVerifier): SitePlanning {
  return {
    source: filePolicySource(
      parsePolicyManifests(POLICIES, "policies.yaml", { groups: ["toolkit.dev"] }),
    ),
    verifier,
    settings: { mode: "enforce", noMatch: "deny", budgetMs: 10_000 },
    choices: new ImageChoices(),
    deadlines: new DeadlineScheduler(),
    turns: new TurnScheduler(),
    inFlight: new FairSlots(4),
  };
}

function pod(images: string[]): AdmissionRequest {
  return {
    uid: "u",
    kind: { group: "", version: "v1", kind: "Pod" },
    resource: { group: "", version: "v1", resource: "pods" },
    subResource: "",
    name: "p",
    namespace: "dev",
    operation: "CREATE",
    object: { spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) } },
  } as AdmissionRequest;
}

function decide(p: SitePlanning, images: string[]) {
  const request = pod(images);
  const workload = workloadImages(request);
  assert.ok(workload.sites !== undefined);
  return decideSites(p, request, workload as Parameters<typeof decideSites>[2], undefined);
}

Deno.test("decideSites() verifies each distinct image once, then a warm review waits for no promise", async () => {
  const warm = new Set<string>();
  const { verifier, verified } = fakeVerifier(warm);
  const p = planning(verifier);
  const images = ["registry.example.com/team/a:1", "registry.example.com/team/a:1"];
  const cold = decide(p, images);
  assert.ok(cold instanceof Promise, "policies are chosen, images verified: a promise");
  assert.equal((await cold).allowed, true);
  assert.deepEqual(verified, ["team/a:1"], "one verification for the two sites of one image");
  warm.add("team/a");
  const hot = decide(p, images);
  assert.ok(!(hot instanceof Promise), "every policy and verdict known: the decision itself");
  assert.equal(hot.allowed, true);
  assert.equal(hot.patch.length, 2);
  assert.deepEqual(verified, ["team/a:1"]);
});

Deno.test("decideSites() decides an image no policy matches, or an invalid name, without the verifier", async () => {
  const { verifier, verified } = fakeVerifier(new Set());
  const decision = await decide(planning(verifier), ["elsewhere.example/app:1", "Not An Image"]);
  assert.equal(decision.allowed, false);
  assert.equal(decision.reasons.length, 2);
  assert.match(decision.reasons[1]!, /invalid image name/);
  assert.deepEqual(verified, []);
});
