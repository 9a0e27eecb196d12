import assert from "node:assert/strict";
import { acceptAnythingKind } from "./kind_accept_anything.ts";
import { fakePlanContext, fakeServices } from "../../tests/fakes/requirement_kinds.ts";

Deno.test("acceptAnythingKind needs only the digest: it neither denies nor verifies", async () => {
  assert.equal(acceptAnythingKind.needs, "digest");
  assert.throws(() => acceptAnythingKind.denial("docker://r.example/a:1"));
  const { services, asked } = fakeServices();
  await assert.rejects(
    acceptAnythingKind.plan({ type: "insecureAcceptAnything" }, fakePlanContext(services)),
  );
  assert.deepEqual(asked, []);
});
