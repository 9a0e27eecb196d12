/**
 * `toolkit sync` in-process, against the in-memory API server of `tests/fakes/kube_api.ts`: its
 * flags, its bad input and the result of each object. The end-to-end test against a real API
 * server is `tests/cli_dev/sync_test.ts`.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import {
  CONFIG_MAPS,
  type KubeObject,
  NAMESPACES,
  ROLE_BINDINGS,
  SECRETS,
  SECURITY_CONTEXT_CONSTRAINTS,
  SERVICE_ACCOUNTS,
} from "../../lib/kube/mod.ts";
import { decodeBase64Text } from "../../lib/base64.ts";
import { type FakeCli, fakeCli } from "../../tests/fakes/cli.ts";

const dockerConfig = btoa(JSON.stringify({ auths: { "us.icr.io": { auth: btoa("u:p") } } }));

function seedTemplate(cli: FakeCli, ns = "tools"): void {
  cli.kube.seed(NAMESPACES, { metadata: { name: ns } });
  cli.kube.seed(CONFIG_MAPS, {
    metadata: {
      name: "sonarqube-config",
      namespace: ns,
      labels: { group: "catalyst-tools", "argocd.argoproj.io/instance": "tools" },
    },
    data: { SONARQUBE_URL: "https://sonarqube.example.com" },
  }, { metadata: { name: "unlabelled", namespace: ns }, data: { a: "1" } });
  cli.kube.seed(
    SECRETS,
    {
      metadata: { name: "sonarqube-access", namespace: ns, labels: { group: "catalyst-tools" } },
      stringData: { SONARQUBE_USER: "admin" },
    },
    {
      metadata: { name: "all-icr-io", namespace: ns },
      type: "kubernetes.io/dockerconfigjson",
      data: { ".dockerconfigjson": dockerConfig },
    },
    { metadata: { name: "plain", namespace: ns }, stringData: { x: "1" } },
  );
}

function pullSecretNames(sa: KubeObject | undefined): string[] {
  return ((sa?.imagePullSecrets ?? []) as { name: string }[]).map((s) => s.name).sort();
}

Deno.test("sync creates the namespace, copies the labelled objects and pull secrets, and sets the context", async () => {
  await using cli = await fakeCli();
  seedTemplate(cli);
  const r = await cli.run(["sync", "dev"]);
  assert.equal(r.status, 0, r.err);
  assert.equal(r.out, "");
  assert.match(r.err, /Setting up namespace dev/);
  assert.match(r.err, /Namespace "dev" created/);
  assert.ok(cli.kube.get(NAMESPACES, undefined, "dev"));
  const cm = cli.kube.get(CONFIG_MAPS, "dev", "sonarqube-config");
  assert.deepEqual(cm?.data, { SONARQUBE_URL: "https://sonarqube.example.com" });
  assert.deepEqual(cm?.metadata.labels, { group: "catalyst-tools" });
  const secret = cli.kube.get(SECRETS, "dev", "sonarqube-access");
  assert.equal(decodeBase64Text((secret?.data as Record<string, string>).SONARQUBE_USER!), "admin");
  assert.equal(cli.kube.get(CONFIG_MAPS, "dev", "unlabelled"), undefined);
  assert.equal(cli.kube.get(SECRETS, "dev", "plain"), undefined);
  assert.ok(cli.kube.get(SECRETS, "dev", "all-icr-io"));
  assert.deepEqual(pullSecretNames(cli.kube.get(SERVICE_ACCOUNTS, "dev", "default")), [
    "all-icr-io",
  ]);
  assert.equal(parse(await Deno.readTextFile(cli.kubeconfig)).contexts[0].context.namespace, "dev");
  assert.match(r.err, /Setting current namespace to dev/);
});

Deno.test("sync a second time changes nothing and -o json reports each object's result", async () => {
  await using cli = await fakeCli();
  seedTemplate(cli);
  assert.equal((await cli.run(["sync", "dev"])).status, 0);
  const writes = cli.kube.writes().length;
  const r = await cli.run(["sync", "dev", "-o", "json"]);
  assert.equal(r.status, 0, r.err);
  assert.match(r.err, /Namespace dev: nothing changed/);
  assert.match(r.err, /The current namespace is already dev/);
  const report = JSON.parse(r.out);
  assert.equal(report.namespace, "dev");
  assert.deepEqual(report.failures, []);
  for (const x of report.results) {
    assert.ok(["unchanged", "skipped"].includes(x.outcome), JSON.stringify(x));
  }
  assert.ok(
    report.results.some((x: Record<string, string>) =>
      x.kind === "ConfigMap" && x.name === "sonarqube-config" && x.namespace === "dev"
    ),
  );
  // Nothing but idempotent applies was sent: no create, no replace.
  assert.ok(cli.kube.writes().slice(writes).every((w) => w.startsWith("PATCH")));
});

Deno.test("sync -t, -z, --argocd -x and --verbose; --tekton is skipped on Kubernetes", async () => {
  await using cli = await fakeCli();
  seedTemplate(cli, "template-2");
  const r = await cli.run([
    "project",
    "dev-2",
    "-t",
    "template-2",
    "-z",
    "builder",
    "--argocd",
    "-x",
    "gitops",
    "--tekton",
    "--verbose",
  ]);
  assert.equal(r.status, 0, r.err);
  assert.match(r.err, /Checking for existing namespace: dev-2/);
  assert.match(r.err, /Copying 1 ConfigMap\(s\) and 1 Secret\(s\) from template-2/);
  assert.match(r.err, /--tekton: this cluster has no SecurityContextConstraints/);
  assert.deepEqual(pullSecretNames(cli.kube.get(SERVICE_ACCOUNTS, "dev-2", "builder")), [
    "all-icr-io",
  ]);
  const rb = cli.kube.get(ROLE_BINDINGS, "dev-2", "argocd-admin");
  assert.deepEqual(rb?.subjects, [{
    apiGroup: "rbac.authorization.k8s.io",
    kind: "Group",
    name: "system:serviceaccounts:gitops",
  }]);
  assert.equal(cli.kube.get(ROLE_BINDINGS, "dev-2", "image-puller"), undefined);
});

Deno.test("sync --kubeconfig, --context and --throttle reach the client factory", async () => {
  await using cli = await fakeCli({ contexts: [{ name: "fake" }, { name: "other" }] });
  seedTemplate(cli);
  const r = await cli.run(
    ["sync", "dev", "--kubeconfig", cli.kubeconfig, "--context", "other", "--throttle"],
    { env: { KUBECONFIG: `${cli.dir}/missing` } },
  );
  assert.equal(r.status, 0, r.err);
  const connected = cli.kube.connects.at(-1);
  assert.equal(connected?.kubeconfig, cli.kubeconfig);
  assert.equal(connected?.context, "other");
  assert.equal(connected?.throttle, true);
  const contexts = parse(await Deno.readTextFile(cli.kubeconfig)).contexts;
  assert.equal(contexts[0].context.namespace, undefined);
  assert.equal(contexts[1].context.namespace, "dev");
  // CLOUDSHELL=true turns --throttle on; --no-throttle wins.
  await cli.run(["sync", "dev"], { env: { CLOUDSHELL: "true" } });
  assert.equal(cli.kube.connects.at(-1)?.throttle, true);
  await cli.run(["sync", "dev", "--no-throttle"], { env: { CLOUDSHELL: "true" } });
  assert.equal(cli.kube.connects.at(-1)?.throttle, false);
});

Deno.test("sync: a copy the API server refuses does not stop the others; exit 1 names it", async () => {
  await using cli = await fakeCli();
  seedTemplate(cli);
  cli.kube.refuse({
    method: "PATCH",
    type: CONFIG_MAPS,
    namespace: "dev",
    name: "sonarqube-config",
  });
  const r = await cli.run(["sync", "dev", "-o", "yaml"]);
  assert.equal(r.status, 1, r.err);
  const report = parse(r.out);
  assert.deepEqual(report.failures.map((f: { object: string }) => f.object), [
    'ConfigMap "dev/sonarqube-config"',
  ]);
  assert.match(report.failures[0].error, /denied the request/);
  assert.match(r.err, /ConfigMap "dev\/sonarqube-config" failed: .*denied the request/);
  assert.match(
    r.err,
    /1 object\(s\) could not be written \(\d+ written\): ConfigMap "dev\/sonarqube-config"/,
  );
  // The rest was done.
  assert.ok(cli.kube.get(SECRETS, "dev", "sonarqube-access"));
  assert.deepEqual(pullSecretNames(cli.kube.get(SERVICE_ACCOUNTS, "dev", "default")), [
    "all-icr-io",
  ]);
});

Deno.test("sync: bad input fails with a clear message and changes nothing", async () => {
  await using cli = await fakeCli();
  seedTemplate(cli);
  let r = await cli.run(["sync"]);
  assert.equal(r.status, 2);
  assert.match(r.err, /Please give the namespace as the first argument/);
  r = await cli.run(["sync", "Bad_Name"]);
  assert.equal(r.status, 2);
  assert.match(r.err, /Invalid namespace "Bad_Name"/);
  r = await cli.run(["sync", "dev", "-x", "Bad_Name"]);
  assert.equal(r.status, 2);
  assert.match(r.err, /Invalid Argo CD namespace "Bad_Name"/);
  r = await cli.run(["sync", "dev", "--output", "xml"]);
  assert.equal(r.status, 2);
  r = await cli.run(["sync", "dev-3", "-t", "no-such-template"]);
  assert.equal(r.status, 1);
  assert.match(r.err, /Cannot find template namespace "no-such-template"/);
  r = await cli.run(["sync", "dev-3", "--context", "nope"]);
  assert.equal(r.status, 1);
  assert.match(r.err, /context "nope" is not in/);
  r = await cli.run(["sync", "dev-3"], { env: { KUBECONFIG: `${cli.dir}/missing` } });
  assert.equal(r.status, 1);
  assert.match(r.err, /No usable kubeconfig context/);
  assert.equal(cli.kube.get(NAMESPACES, undefined, "dev-3"), undefined);
  assert.deepEqual(cli.kube.writes(), []);
});

Deno.test("sync of a namespace being deleted fails before writing anything", async () => {
  await using cli = await fakeCli();
  seedTemplate(cli);
  cli.kube.seed(NAMESPACES, { metadata: { name: "old" }, status: { phase: "Terminating" } });
  const r = await cli.run(["sync", "old"]);
  assert.equal(r.status, 1);
  assert.match(r.err, /Cannot sync namespace "old": it is being deleted/);
  assert.deepEqual(cli.kube.writes(), []);
});

Deno.test("sync on OpenShift requests a project, grants image-puller and the privileged SCC", async () => {
  await using cli = await fakeCli({ openshift: true });
  seedTemplate(cli);
  cli.kube.seed(SECURITY_CONTEXT_CONSTRAINTS, {
    metadata: { name: "privileged" },
    users: ["system:admin"],
  });
  const r = await cli.run(["sync", "proj", "--tekton"]);
  assert.equal(r.status, 0, r.err);
  assert.match(r.err, /Setting up project proj/);
  assert.match(r.err, /Setting current project to proj/);
  assert.ok(cli.kube.writes().includes("POST /apis/project.openshift.io/v1/projectrequests"));
  const rb = cli.kube.get(ROLE_BINDINGS, "proj", "image-puller");
  assert.equal((rb?.roleRef as { name: string }).name, "system:image-puller");
  assert.deepEqual(cli.kube.get(SECURITY_CONTEXT_CONSTRAINTS, undefined, "privileged")?.users, [
    "system:admin",
    "system:serviceaccount:proj:pipeline",
  ]);
  const again = await cli.run(["sync", "proj", "--tekton"]);
  assert.equal(again.status, 0, again.err);
  assert.match(again.err, /Project proj: nothing changed/);
  const noPuller = await cli.run(["sync", "proj-2", "--no-puller"]);
  assert.equal(noPuller.status, 0, noPuller.err);
  assert.equal(cli.kube.get(ROLE_BINDINGS, "proj-2", "image-puller"), undefined);
});

Deno.test("sync on OpenShift: a project whose namespace never appears times out on the clock", async () => {
  await using cli = await fakeCli({ openshift: true });
  seedTemplate(cli);
  // The ProjectRequest is accepted, but no namespace is made.
  cli.kube.on((r) =>
    r.method === "POST" && r.type?.plural === "projectrequests"
      ? Response.json({ metadata: { name: "slow" } }, { status: 201 })
      : undefined
  );
  const r = await cli.run(["sync", "slow"]);
  assert.equal(r.status, 1);
  assert.match(r.err, /its namespace did not appear within 30 s/);
  assert.ok(cli.clock.slept.length > 100 && cli.clock.slept.every((ms) => ms === 200));
});
