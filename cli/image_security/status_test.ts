/**
 * `image-security status` says when nothing is installed in the namespace asked (exit 1), and
 * which namespace's webhook enforcement comes from; its `-o json` names objects by kind and name.
 * In-process, against the in-memory API server.
 */
import assert from "node:assert/strict";
import { fakeCli } from "../../tests/fakes/cli.ts";
import { parse as parseYaml } from "yaml";
import { NAMESPACES } from "../../lib/kube/mod.ts";

Deno.test("status says what is installed in the namespace asked, and when nothing is", async () => {
  await using cli = await fakeCli();
  const before = await cli.run(["image-security", "status"]);
  assert.equal(before.status, 1, before.err);
  assert.match(before.out, /^Enforcement: not installed \(namespace toolkit-system\)$/m);
  assert.match(
    before.err,
    /Image signature enforcement is not installed in namespace "toolkit-system"; toolkit image-security enable -n toolkit-system installs it/,
  );

  const enabled = await cli.run([
    "image-security",
    "enable",
    "--webhook-url",
    "https://127.0.0.1:9/admit",
    "--no-verify-url",
  ]);
  assert.equal(enabled.status, 0, enabled.err);
  const status = await cli.run(["image-security", "status", "-o", "json"]);
  assert.equal(status.status, 0, status.err);
  const data = JSON.parse(status.out);
  assert.equal(data.installed, true);
  assert.equal(data.enabled, true);
  assert.deepEqual(
    data.objects.find((o: { kind: string }) => o.kind === "Deployment"),
    {
      kind: "Deployment",
      apiVersion: "apps/v1",
      namespace: "toolkit-system",
      name: "toolkit-webhook",
      present: true,
    },
  );

  const other = await cli.run(["image-security", "status", "-n", "missing-ns"]);
  assert.equal(other.status, 1, other.err);
  assert.match(
    other.out,
    /^Enforcement: not installed \(namespace missing-ns\); enabled from namespace toolkit-system$/m,
  );
  assert.match(other.err, /it is installed in "toolkit-system": -n toolkit-system/);
  assert.doesNotMatch(other.out, /Enforcement: enabled/);
});

Deno.test("enable and disable -o json give the one shape of results", async () => {
  await using cli = await fakeCli();
  const flags = ["--webhook-url", "https://127.0.0.1:9/admit", "--no-verify-url"];
  const enabled = await cli.run(["image-security", "enable", ...flags, "-o", "json"]);
  assert.equal(enabled.status, 0, enabled.err);
  const report = JSON.parse(enabled.out);
  assert.equal(report.namespace, "toolkit-system");
  assert.deepEqual(report.failures, []);
  assert.deepEqual(
    report.results.find((r: { kind: string }) => r.kind === "MutatingWebhookConfiguration"),
    {
      kind: "MutatingWebhookConfiguration",
      apiVersion: "admissionregistration.k8s.io/v1",
      name: "toolkit-image-security",
      outcome: "created",
    },
  );
  const disabled = await cli.run(["image-security", "disable", "-o", "json"]);
  assert.equal(disabled.status, 0, disabled.err);
  const removed = JSON.parse(disabled.out);
  assert.deepEqual(Object.keys(removed).sort(), ["failures", "namespace", "results"]);
  assert.ok(
    removed.results.some((r: { kind: string; outcome: string }) =>
      r.kind === "MutatingWebhookConfiguration" && r.outcome === "deleted"
    ),
  );
  for (const r of [...report.results, ...removed.results]) {
    assert.deepEqual(
      Object.keys(r).filter((k) => !["namespace"].includes(k)).sort(),
      ["apiVersion", "kind", "name", "outcome"],
    );
  }
});

Deno.test("status says whether the webhook requires the API server's client certificate", async () => {
  await using cli = await fakeCli();
  const flags = ["--webhook-url", "https://127.0.0.1:9/admit", "--no-verify-url"];
  const plain = await cli.run(["image-security", "enable", ...flags]);
  assert.equal(plain.status, 0, plain.err);
  const off = await cli.run(["image-security", "status"]);
  assert.equal(off.status, 0, off.err);
  assert.match(off.out, /^Client authentication: off \(.*enable --client-auth/m);
  assert.equal(
    JSON.parse((await cli.run(["image-security", "status", "-o", "json"])).out)
      .clientAuth,
    false,
  );

  const authenticated = await cli.run(["image-security", "enable", ...flags, "--client-auth"]);
  assert.equal(authenticated.status, 0, authenticated.err);
  const on = await cli.run(["image-security", "status"]);
  assert.equal(on.status, 0, on.err);
  assert.match(
    on.out,
    /^Client authentication: on \(--client-ca: .*Secret "toolkit-system\/toolkit-webhook-client-ca"/m,
  );
  const data = JSON.parse((await cli.run(["image-security", "status", "-o", "json"])).out);
  assert.equal(data.clientAuth, true);
});

Deno.test("status shows the namespaces the toolkit.dev/enforcement label sets the mode of", async () => {
  await using cli = await fakeCli();
  const none = await cli.run(["image-security", "status"]);
  assert.match(
    none.out,
    /^Namespace modes \(toolkit\.dev\/enforcement; elsewhere the webhook's --mode\):\n {2}none$/m,
  );
  for (
    const [name, value] of [["team-b", "warn"], ["team-a", "enforce"], ["odd", "Enforce"]] as const
  ) {
    cli.kube.seed(NAMESPACES, {
      metadata: { name, labels: { "toolkit.dev/enforcement": value } },
    });
  }
  cli.kube.seed(NAMESPACES, { metadata: { name: "plain", labels: { app: "x" } } });

  const text = await cli.run(["image-security", "status"]);
  assert.match(
    text.out,
    /^Namespace modes \(toolkit\.dev\/enforcement; elsewhere the webhook's --mode\):\n {2}odd: "Enforce" \(ignored: neither enforce nor warn\)\n {2}team-a: enforce\n {2}team-b: warn\n/m,
  );
  assert.doesNotMatch(text.out, /plain/);

  for (const format of ["json", "yaml"]) {
    const run = await cli.run(["image-security", "status", "-o", format]);
    const data = format === "json"
      ? JSON.parse(run.out)
      : parseYaml(run.out) as Record<string, unknown>;
    assert.deepEqual(data.namespaceModes, [
      { namespace: "odd", label: "Enforce" },
      { namespace: "team-a", label: "enforce", mode: "enforce" },
      { namespace: "team-b", label: "warn", mode: "warn" },
    ]);
  }
});
