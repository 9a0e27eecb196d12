import assert from "node:assert/strict";
import { PolicyConfigError } from "./errors.ts";
import { sigstoreSignedKind } from "./kind_sigstore_signed.ts";
import { fakePlanContext, fakeServices } from "../../tests/fakes/requirement_kinds.ts";

const isPolicyError = (message: string) => (e: unknown) =>
  e instanceof PolicyConfigError && e.message === message;

Deno.test("sigstoreSignedKind.plan() checks its fields", async () => {
  const { services } = fakeServices();
  const context = fakePlanContext(services);
  await assert.rejects(
    sigstoreSignedKind.plan({ type: "sigstoreSigned" }, context),
    isPolicyError(
      'Cannot use ClusterImagePolicy "p": a sigstoreSigned requirement of "registry.example/*" has neither keySecret nor keyless',
    ),
  );
  await assert.rejects(
    sigstoreSignedKind.plan({ type: "sigstoreSigned", keySecret: "k", tlog: "required" }, context),
    isPolicyError(
      'Cannot use ClusterImagePolicy "p": a sigstoreSigned requirement of "registry.example/*" with tlog: required has no trustRootRef',
    ),
  );
});

Deno.test("sigstoreSignedKind.plan() reads keys and trust roots, and names them in its key", async () => {
  const { services, asked } = fakeServices();
  const context = fakePlanContext(services);
  const keyed = await sigstoreSignedKind.plan(
    { type: "sigstoreSigned", keySecret: "k", keySecretNamespace: "team" },
    context,
  );
  assert.equal(keyed.trust.tlog, "optional");
  assert.equal(sigstoreSignedKind.planKey(keyed), "key:pem-of:team/k/optional/-/default");
  const keyless = await sigstoreSignedKind.plan({
    type: "sigstoreSigned",
    keyless: {
      trustRootRef: { kind: "ConfigMap", name: "root" },
      identities: [{ issuer: "https://issuer.example", subject: "ci@example.com" }],
    },
  }, context);
  assert.equal(keyless.trust.tlog, "required");
  assert.match(
    sigstoreSignedKind.planKey(keyless),
    /^keyless:root-of:root\/sha256:[0-9a-f]{64}\/required\/default$/,
  );
  assert.deepEqual(asked, ["sigstoreKeys team/k", "trustRoot toolkit-system/root"]);
});
