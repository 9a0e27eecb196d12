import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { PolicyConfigError } from "./errors.ts";
import { noSignatureStore, signedByKind } from "./kind_signed_by.ts";
import type { ImageToVerify } from "./requirement_kind.ts";
import { fakePlanContext, fakeServices } from "../../tests/fakes/requirement_kinds.ts";

Deno.test("signedByKind.plan() checks keySecret and reads its keys where the policy says", async () => {
  const { services, asked } = fakeServices();
  const context = fakePlanContext(services);
  await assert.rejects(
    signedByKind.plan({ type: "signedBy" }, context),
    (e: unknown) =>
      e instanceof PolicyConfigError &&
      e.message ===
        'Cannot use ClusterImagePolicy "p": a signedBy requirement of "registry.example/*" has no keySecret',
  );
  const plan = await signedByKind.plan({ type: "signedBy", keySecret: "k" }, context);
  const other = await signedByKind.plan(
    { type: "signedBy", keySecret: "k", keySecretNamespace: "team" },
    context,
  );
  assert.deepEqual(asked, ["keys toolkit-system/k", "keys team/k"]);
  assert.equal(plan.rule.type, "matchRepoDigestOrExact");
  assert.notEqual(signedByKind.planKey(plan), signedByKind.planKey(other));
  // A rule that cannot be used is the policy's error.
  await assert.rejects(
    signedByKind.plan(
      { type: "signedBy", keySecret: "k", signedIdentity: { type: "nonsense" as never } },
      context,
    ),
    PolicyConfigError,
  );
});

Deno.test("signedByKind.verify() without a signature store denies as an error", async () => {
  const { services } = fakeServices();
  const plan = await signedByKind.plan(
    { type: "signedBy", keySecret: "k" },
    fakePlanContext(services),
  );
  const image: ImageToVerify = {
    reference: parseReference("r.example/team/app:1"),
    digest: `sha256:${"a".repeat(64)}`,
    client: undefined as never,
    store: () => Promise.resolve(undefined),
    signal: new AbortController().signal,
    budget: undefined as never,
  };
  assert.deepEqual(await signedByKind.verify([plan], image, services), {
    allowed: false,
    reason: noSignatureStore("r.example"),
    cause: "error",
  });
});
