import assert from "node:assert/strict";
import { isPullSecret, planPullSecrets, targetPullSecretName } from "./copy_pull_secrets.ts";

const secret = (name: string, type = "Opaque") => ({ metadata: { name }, type });

Deno.test("isPullSecret() accepts registry types and icr-io names only", () => {
  assert.equal(isPullSecret(secret("regcred", "kubernetes.io/dockerconfigjson")), true);
  assert.equal(isPullSecret(secret("old", "kubernetes.io/dockercfg")), true);
  assert.equal(isPullSecret(secret("default-us-icr-io")), true);
  assert.equal(
    isPullSecret(secret("default-token-abc", "kubernetes.io/service-account-token")),
    false,
  );
  assert.equal(isPullSecret(secret("app-secret")), false);
});

Deno.test("targetPullSecretName() drops a leading default-", () => {
  assert.equal(targetPullSecretName("default-us-icr-io"), "us-icr-io");
  assert.equal(targetPullSecretName("all-icr-io"), "all-icr-io");
  assert.equal(targetPullSecretName("default-"), "default-");
});

Deno.test("planPullSecrets() prefers a secret already named like the target", () => {
  const plans = planPullSecrets([
    secret("default-us-icr-io", "kubernetes.io/dockerconfigjson"),
    secret("us-icr-io", "kubernetes.io/dockerconfigjson"),
    secret("plain"),
  ]);
  assert.deepEqual(plans.map((p) => [p.source.metadata.name, p.name]), [[
    "us-icr-io",
    "us-icr-io",
  ]]);
});
