/**
 * `toolkit image-security disable` in-process, against the in-memory API server: it switches
 * enforcement off (the webhook's objects deleted, policies, key Secrets and CRDs kept), and is a
 * no-op where nothing is installed.
 */
import assert from "node:assert/strict";
import { fakeCli } from "../../tests/fakes/cli.ts";

const ENABLE = [
  "image-security",
  "enable",
  "--webhook-url",
  "https://127.0.0.1:9/admit",
  "--no-verify-url",
];

Deno.test("disable deletes the webhook's objects and keeps the CRDs; with nothing installed it says so and succeeds", async () => {
  await using cli = await fakeCli();
  const nothing = await cli.run(["image-security", "disable"]);
  assert.equal(nothing.status, 0, nothing.err);
  assert.match(
    nothing.err,
    /Image signature enforcement is disabled; policies, key Secrets and CRDs are kept/,
  );

  assert.equal((await cli.run(ENABLE)).status, 0);
  const disabled = await cli.run(["image-security", "disable", "-o", "json"]);
  assert.equal(disabled.status, 0, disabled.err);
  const data = JSON.parse(disabled.out);
  assert.equal(data.namespace, "toolkit-system");
  const outcome = (kind: string) =>
    data.results.find((r: { kind: string }) => r.kind === kind)?.outcome;
  assert.equal(outcome("MutatingWebhookConfiguration"), "deleted");
  assert.equal(outcome("Deployment"), "deleted");
  const status = await cli.run(["image-security", "status"]);
  assert.match(status.out, /^Enforcement: not enabled \(namespace toolkit-system\)$/m);
  assert.match(
    status.out,
    /present {2}CustomResourceDefinition "clusterimagepolicies\.toolkit\.dev"/,
  );
});
