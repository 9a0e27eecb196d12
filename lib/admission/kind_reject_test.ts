import assert from "node:assert/strict";
import { rejectKind } from "./kind_reject.ts";
import { fakePlanContext, fakeServices } from "../../tests/fakes/requirement_kinds.ts";

Deno.test("rejectKind denies every image without the registry, and never plans", async () => {
  assert.equal(rejectKind.needs, "deny");
  assert.equal(
    rejectKind.denial("docker://r.example/a:1"),
    "Running image docker://r.example/a:1 is rejected by policy.",
  );
  const { services, asked } = fakeServices();
  await assert.rejects(rejectKind.plan({ type: "reject" }, fakePlanContext(services)));
  assert.deepEqual(asked, []);
});
