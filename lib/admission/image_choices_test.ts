import assert from "node:assert/strict";
import type { ImageReference } from "../image/mod.ts";
import type { NoPolicyMatch, PolicyMatch, PolicySet } from "../policy/mod.ts";
import { TurnScheduler } from "../turns.ts";
import { ImageChoices } from "./image_choices.ts";
import { fakeMatch } from "../../tests/fakes/requirement_kinds.ts";

Deno.test("ImageChoices parses an image once and never keeps an invalid one", () => {
  const choices = new ImageChoices();
  const first = choices.parse("r.example/team/app:1");
  assert.ok("ref" in first);
  const again = choices.parse("r.example/team/app:1");
  assert.ok("ref" in again && again.ref === first.ref);
  assert.ok("error" in choices.parse("r.example/a:not a tag"));
  assert.equal(choices.stats()[0]?.entries, 1);
});

Deno.test("ImageChoices chooses a policy once per namespace and image, and anew for a new policy set", async () => {
  const choices = new ImageChoices();
  const asked: string[] = [];
  const set = (): PolicySet =>
    ({
      selectInSlices: (namespace: string, _ref: ImageReference, image: string) => {
        asked.push(`${namespace} ${image}`);
        return Promise.resolve(fakeMatch());
      },
    }) as unknown as PolicySet;
  const policies = set();
  const ref = (choices.parse("r.example/a:1") as { ref: ImageReference }).ref;
  const turns = new TurnScheduler();
  const chosen = choices.select(policies, "dev", ref, "r.example/a:1", turns);
  assert.ok(chosen instanceof Promise);
  const match: PolicyMatch | NoPolicyMatch = await chosen;
  assert.equal(choices.select(policies, "dev", ref, "r.example/a:1", turns), match);
  await choices.select(policies, "prod", ref, "r.example/a:1", turns);
  await choices.select(set(), "dev", ref, "r.example/a:1", turns);
  assert.deepEqual(asked, ["dev r.example/a:1", "prod r.example/a:1", "dev r.example/a:1"]);
  assert.equal(choices.stats()[1]?.name, "policy-selection");
});
