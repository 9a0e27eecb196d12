/**
 * `toolkit pull-secret` in-process, against the in-memory API server of
 * `tests/fakes/kube_api.ts`: its flags, its bad input and the result of each object. The
 * end-to-end test against a real API server is `tests/cli_dev/pull_secret_test.ts`.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { type KubeObject, NAMESPACES, SECRETS, SERVICE_ACCOUNTS } from "../../lib/kube/mod.ts";
import { decodeBase64Text } from "../../lib/base64.ts";
import { type FakeCli, fakeCli } from "../../tests/fakes/cli.ts";
import { cfg, pullSecrets } from "../../tests/fixtures/pull_secrets.ts";

function seedPullSecrets(cli: FakeCli, ns: string): void {
  cli.kube.seedObjects(...pullSecrets(ns));
}

function pullNames(sa: KubeObject | undefined): string[] {
  return ((sa?.imagePullSecrets ?? []) as { name: string }[]).map((s) => s.name).sort();
}

async function withNamespaces(...names: string[]): Promise<FakeCli> {
  const cli = await fakeCli();
  seedPullSecrets(cli, "default");
  for (const name of names) cli.kube.seed(NAMESPACES, { metadata: { name } });
  return cli;
}

Deno.test("pull-secret copies pull secrets by type and icr-io name, renamed, and adds them to the SA", async () => {
  await using cli = await withNamespaces("dev");
  const r = await cli.run(["pull-secret", "dev"]);
  assert.equal(r.status, 0, r.err);
  assert.equal(r.out, "");
  assert.match(r.err, /Setting up pull secrets in dev/);
  for (const name of ["all-icr-io", "us-icr-io", "de-icr-io", "regcred"]) {
    assert.deepEqual(cli.kube.get(SECRETS, "dev", name)?.metadata.labels, { team: "a" }, name);
  }
  assert.equal(cli.kube.get(SECRETS, "dev", "regcred")?.type, "kubernetes.io/dockercfg");
  assert.equal(cli.kube.get(SECRETS, "dev", "opaque-thing"), undefined);
  assert.equal(cli.kube.get(SECRETS, "dev", "default-us-icr-io"), undefined);
  assert.deepEqual(pullNames(cli.kube.get(SERVICE_ACCOUNTS, "dev", "default")), [
    "all-icr-io",
    "de-icr-io",
    "regcred",
    "us-icr-io",
  ]);
  assert.match(r.err, /Pull secrets in dev: 5 created\n/);

  const again = await cli.run(["pull-secret", "dev", "-o", "json"]);
  assert.equal(again.status, 0, again.err);
  assert.match(again.err, /Pull secrets in dev: nothing changed \(1 unchanged, 4 skipped\)/);
  const report = JSON.parse(again.out);
  assert.equal(report.namespace, "dev");
  assert.deepEqual(
    report.results.map((x: Record<string, string>) => `${x.kind} ${x.name} ${x.outcome}`).sort(),
    [
      "Secret all-icr-io skipped",
      "Secret de-icr-io skipped",
      "Secret regcred skipped",
      "Secret us-icr-io skipped",
      "ServiceAccount default unchanged",
    ],
  );
  assert.deepEqual(report.failures, []);
});

Deno.test("pull-secret leaves a pull secret that exists in the target alone", async () => {
  await using cli = await withNamespaces("dev2");
  cli.kube.seed(SECRETS, {
    metadata: { name: "us-icr-io", namespace: "dev2" },
    type: "kubernetes.io/dockerconfigjson",
    data: { ".dockerconfigjson": cfg("mine.example.com") },
  });
  const r = await cli.run(["pull-secret", "dev2", "--verbose"]);
  assert.equal(r.status, 0, r.err);
  assert.match(r.err, /Secret "dev2\/us-icr-io" skipped/);
  const data = cli.kube.get(SECRETS, "dev2", "us-icr-io")?.data as Record<string, string>;
  assert.match(decodeBase64Text(data[".dockerconfigjson"]!), /mine\.example\.com/);
  assert.ok(pullNames(cli.kube.get(SERVICE_ACCOUNTS, "dev2", "default")).includes("us-icr-io"));
});

Deno.test("pull-secret without a namespace argument works in the context's namespace", async () => {
  await using cli = await fakeCli({ contexts: [{ name: "fake", namespace: "dev3" }] });
  seedPullSecrets(cli, "default");
  cli.kube.seed(NAMESPACES, { metadata: { name: "dev3" } });
  const r = await cli.run(["pull-secret"]);
  assert.equal(r.status, 0, r.err);
  assert.equal(pullNames(cli.kube.get(SERVICE_ACCOUNTS, "dev3", "default")).length, 4);
});

Deno.test("pull-secret -t, -z, --dev and --verbose", async () => {
  await using cli = await withNamespaces("dev4");
  seedPullSecrets(cli, "registries");
  const args = ["pull-secret", "dev4", "-t", "registries", "-z", "builder", "--dev"];
  const r = await cli.run([...args, "--verbose"]);
  assert.equal(r.status, 0, r.err);
  assert.match(r.err, /Reading the pull secrets of namespace registries/);
  assert.match(r.err, /Adding the pull secrets to service account builder/);
  assert.match(r.err, /ServiceAccount "dev4\/builder" created/);
  assert.match(r.err, /Namespace "dev4" updated/);
  assert.equal(pullNames(cli.kube.get(SERVICE_ACCOUNTS, "dev4", "builder")).length, 4);
  assert.equal(
    cli.kube.get(NAMESPACES, undefined, "dev4")?.metadata.labels?.[
      "cloudnativetoolkit.dev/development"
    ],
    "true",
  );
  const again = await cli.run(args);
  assert.match(again.err, /nothing changed/);
});

Deno.test("pull-secret: a copy the API server refuses is reported, the others are done, exit 1", async () => {
  await using cli = await withNamespaces("dev5");
  cli.kube.refuse({ method: "PATCH", type: SECRETS, namespace: "dev5", name: "regcred" });
  const r = await cli.run(["pull-secret", "dev5", "-o", "yaml"]);
  assert.equal(r.status, 1);
  const report = parse(r.out);
  assert.deepEqual(report.failures.map((f: { object: string }) => f.object), [
    'Secret "dev5/regcred"',
  ]);
  assert.match(r.err, /Secret "dev5\/regcred" failed: .*denied the request/);
  assert.match(r.err, /1 object\(s\) could not be written/);
  assert.ok(cli.kube.get(SECRETS, "dev5", "us-icr-io"));
  // Only what was copied is given to the service account.
  assert.deepEqual(pullNames(cli.kube.get(SERVICE_ACCOUNTS, "dev5", "default")), [
    "all-icr-io",
    "de-icr-io",
    "us-icr-io",
  ]);
});

Deno.test("pull-secret: bad input fails with a clear message and writes nothing", async () => {
  await using cli = await withNamespaces("dev");
  let r = await cli.run(["pull-secret", "nope"]);
  assert.equal(r.status, 1);
  assert.match(r.err, /Cannot find namespace "nope": it does not exist/);
  r = await cli.run(["pull-secret", "dev", "-t", "missing"]);
  assert.equal(r.status, 1);
  assert.match(r.err, /Cannot find template namespace "missing"/);
  r = await cli.run(["pull-secret", "Bad_Name"]);
  assert.equal(r.status, 2);
  assert.match(r.err, /Invalid namespace "Bad_Name"/);
  r = await cli.run(["pull-secret"]);
  assert.equal(r.status, 2);
  assert.match(r.err, /Please give the namespace as the first argument/);
  r = await cli.run(["pull-secret", "dev"], { env: { KUBECONFIG: `${cli.dir}/missing` } });
  assert.equal(r.status, 1);
  assert.match(r.err, /No usable kubeconfig context/);
  assert.deepEqual(cli.kube.writes(), []);
});
