/**
 * `toolkit pipeline --jenkins` in-process, on Kubernetes (a Jenkins job, through the Jenkins REST
 * stand-in of `tests/fakes/jenkins_api.ts`) and on OpenShift (a BuildConfig), with the in-memory
 * API server of `tests/fakes/kube_api.ts` and a hosted git stand-in as the git host: their flags,
 * their bad input and the result of each step. The end-to-end tests are in `tests/cli_pipeline/`.
 */
import assert from "node:assert/strict";
import {
  DEPLOYMENTS,
  NAMESPACES,
  ROLE_BINDINGS,
  SECRETS,
  SECURITY_CONTEXT_CONSTRAINTS,
} from "../../lib/kube/mod.ts";
import { BUILD_CONFIGS, TEMPLATES } from "../../lib/openshift/mod.ts";
import { parseJobXml } from "../../lib/jenkins/mod.ts";
import { fakeCli } from "../../tests/fakes/cli.ts";
import { startHostedGit } from "../../tests/fakes/hosted_git.ts";
import { startFakeJenkins } from "../../tests/fakes/jenkins_api.ts";
import { JENKINS_TEMPLATE } from "../../tests/fixtures/jenkins_template.ts";

const TOKEN = "gogs-token-0123456789";
const JENKINS_USER = "admin";
const JENKINS_TOKEN = "11aa22bb33cc44dd55ee66ff77889900";

function standIn() {
  return startHostedGit(
    "gogs",
    { path: "shop/shop-api", defaultBranch: "main", files: { Jenkinsfile: "node {}\n" } },
    { username: "alice", token: TOKEN },
  );
}

function pipelineArgs(origin: string, namespace = "dev"): string[] {
  return [
    "pipeline",
    `${origin}/shop/shop-api#main`,
    "--jenkins",
    "-n",
    namespace,
    "-u",
    "alice",
    "-P",
    TOKEN,
    "--git-host-type",
    "gogs",
  ];
}

function jenkinsAccess(url: string, token = JENKINS_TOKEN) {
  return {
    metadata: { name: "jenkins-access", namespace: "tools" },
    stringData: { url, username: JENKINS_USER, api_token: token },
  };
}

Deno.test("pipeline --jenkins on Kubernetes: folder (awaited), job, first build and one hook", async () => {
  await using cli = await fakeCli();
  await using host = standIn();
  await using jenkins = startFakeJenkins({
    username: JENKINS_USER,
    apiToken: JENKINS_TOKEN,
    folderDelay: 3,
  });
  for (const name of ["tools", "dev"]) cli.kube.seed(NAMESPACES, { metadata: { name } });
  cli.kube.seed(SECRETS, jenkinsAccess(jenkins.url));
  const args = pipelineArgs(host.origin);

  const r = await cli.run([...args, "-o", "json"]);
  assert.equal(r.status, 0, r.err);
  const report = JSON.parse(r.out);
  assert.equal(report.folder, "created");
  assert.equal(report.job, "created");
  assert.equal(report.pipeline, "dev/shop-api");
  assert.equal(report.webhook.action, "created");
  assert.match(report.build, /\/queue\/item\/1\/$/);
  assert.match(r.err, new RegExp(`Jenkins job: ${jenkins.url}/job/dev/job/shop-api`));
  // The folder was awaited on the clock before the job was made in it.
  assert.ok(cli.clock.slept.length > 0);
  for (const p of jenkins.requests.filter((q) => q.method === "POST")) assert.ok(p.crumb, p.path);
  const job = parseJobXml(jenkins.folders.get("dev")!.get("shop-api")!)["flow-definition"];
  assert.ok(job);
  assert.deepEqual(jenkins.builds, [{
    job: "dev/shop-api",
    params: { NAMESPACE: "dev", BRANCH: "main" },
  }]);
  assert.equal(host.hooks.length, 1);
  const secret = atob(
    (cli.kube.get(SECRETS, "dev", "shop-api-jenkins-webhook")?.data as Record<string, string>)
      .secret!,
  );
  assert.equal(
    host.hooks[0]!.url,
    `${jenkins.url}/generic-webhook-trigger/invoke?token=${secret}`,
  );
  assert.equal(report.webhook.url, `${jenkins.url}/generic-webhook-trigger/invoke?token=<secret>`);
  assert.doesNotMatch(r.out, new RegExp(secret));
  // The credentials are in both namespaces: Jenkins reads its own.
  for (const ns of ["dev", "tools"]) assert.ok(cli.kube.get(SECRETS, ns, "git-credentials"), ns);

  // A second run changes nothing and adds no hook.
  const again = await cli.run([...args, "--no-start", "-o", "json"]);
  assert.equal(again.status, 0, again.err);
  const second = JSON.parse(again.out);
  assert.equal(second.folder, "unchanged");
  assert.equal(second.job, "unchanged");
  assert.equal(second.webhook.action, "unchanged");
  for (const x of second.results) assert.equal(x.outcome, "unchanged", JSON.stringify(x));
  assert.equal(host.hooks.length, 1);
  assert.equal(jenkins.builds.length, 1);

  // A job with another configuration: replaced only with --replace, or a yes on a terminal.
  const handMade = "<flow-definition><description>hand-made</description></flow-definition>";
  jenkins.folders.get("dev")!.set("shop-api", handMade);
  let changed = await cli.run([...args, "--no-start"]);
  assert.equal(changed.status, 2, changed.err);
  assert.match(changed.err, /exists with another configuration: pass --replace/);
  changed = await cli.run([...args, "--no-start"], { answers: [false] });
  assert.equal(changed.status, 2, changed.err);
  assert.deepEqual(changed.asked, [
    "The build pipeline (shop-api) already exists. Do you want to replace it?",
  ]);
  changed = await cli.run([...args, "--no-start", "--replace", "--skipWebhook"]);
  assert.equal(changed.status, 0, changed.err);
  assert.match(changed.err, /Jenkins job dev\/shop-api replaced/);
  assert.ok(jenkins.requests.some((q) => q.path === "/job/dev/job/shop-api/doDelete"));

  // --dry-run prints the job's config.xml and changes nothing.
  const writes = cli.kube.writes().length;
  const dry = await cli.run([...args, "--dry-run"]);
  assert.equal(dry.status, 0, dry.err);
  assert.match(dry.out, /^<\?xml|<flow-definition/);
  assert.equal(cli.kube.writes().length, writes);
});

Deno.test("pipeline --jenkins: Jenkins not configured or refusing the token fails clearly", async () => {
  await using cli = await fakeCli();
  await using host = standIn();
  await using jenkins = startFakeJenkins({ username: JENKINS_USER, apiToken: JENKINS_TOKEN });
  for (const name of ["tools", "dev"]) cli.kube.seed(NAMESPACES, { metadata: { name } });
  const args = pipelineArgs(host.origin);
  let r = await cli.run(args);
  assert.equal(r.status, 1);
  assert.match(r.err, /Secret "tools\/jenkins-access" does not exist/);
  cli.kube.seed(SECRETS, {
    metadata: { name: "jenkins-access", namespace: "tools" },
    stringData: { url: jenkins.url },
  });
  r = await cli.run(args);
  assert.equal(r.status, 1);
  assert.match(r.err, /jenkins-access" has no username, api_token/);
  cli.kube.seed(SECRETS, jenkinsAccess(jenkins.url, "wrong-token"));
  r = await cli.run(args);
  assert.equal(r.status, 1);
  assert.match(r.err, /Jenkins at http:\/\/127\.0\.0\.1:\d+ refused .* \(HTTP 401\)/);
  r = await cli.run(pipelineArgs(host.origin, "nope"));
  assert.equal(r.status, 1);
  assert.match(r.err, /namespace "nope"/);
  assert.deepEqual(jenkins.builds, []);
  assert.deepEqual(host.hooks, []);
});

Deno.test("pipeline --jenkins on OpenShift: Jenkins from its template, a BuildConfig, a build, one hook", async () => {
  await using cli = await fakeCli({ openshift: true, types: [BUILD_CONFIGS, TEMPLATES] });
  await using host = standIn();
  for (const name of ["tools", "dev", "openshift", "qa"]) {
    cli.kube.seed(NAMESPACES, { metadata: { name } });
  }
  cli.kube.seed(TEMPLATES, JENKINS_TEMPLATE);
  cli.kube.seed(SECURITY_CONTEXT_CONSTRAINTS, {
    metadata: { name: "privileged" },
    users: ["system:admin"],
  });
  let builds = 0;
  cli.kube.on((q) =>
    q.method === "POST" && q.subresource === "instantiate"
      ? Response.json({ metadata: { name: `${q.name}-${++builds}` } }, { status: 201 })
      : undefined
  );
  const args = pipelineArgs(host.origin);

  const r = await cli.run([...args, "-o", "json"]);
  assert.equal(r.status, 0, r.err);
  const report = JSON.parse(r.out);
  assert.equal(report.build, "shop-api-1");
  assert.equal(report.webhook.action, "created");
  assert.match(r.err, /Installing Jenkins in dev from template jenkins-ephemeral/);
  assert.ok(cli.kube.get(DEPLOYMENTS, "dev", "jenkins"));
  assert.ok(cli.kube.get(ROLE_BINDINGS, "dev", "toolkit-jenkins-edit"));
  assert.deepEqual(cli.kube.get(SECURITY_CONTEXT_CONSTRAINTS, undefined, "privileged")?.users, [
    "system:admin",
    "system:serviceaccount:dev:jenkins",
  ]);
  const spec = cli.kube.get(BUILD_CONFIGS, "dev", "shop-api")?.spec as {
    source: { git: unknown };
  };
  assert.deepEqual(spec.source.git, { uri: `${host.origin}/shop/shop-api`, ref: "main" });
  const secret = atob(
    (cli.kube.get(SECRETS, "dev", "shop-api-webhook")?.data as Record<string, string>)
      .WebHookSecretKey!,
  );
  assert.equal(
    host.hooks[0]!.url,
    `${cli.kube.server}/apis/build.openshift.io/v1/namespaces/dev/buildconfigs/shop-api/webhooks/${secret}/generic`,
  );
  assert.match(report.webhook.url, /\/webhooks\/<secret>\/generic$/);

  const again = await cli.run([...args, "--no-start", "-o", "json"]);
  assert.equal(again.status, 0, again.err);
  for (const x of JSON.parse(again.out).results) {
    assert.equal(x.outcome, "unchanged", JSON.stringify(x));
  }
  assert.doesNotMatch(again.err, /Installing Jenkins/);
  assert.equal(host.hooks.length, 1);
  assert.equal(builds, 1);

  // A BuildConfig changed by hand is replaced only with --replace.
  const live = cli.kube.get(BUILD_CONFIGS, "dev", "shop-api")!;
  cli.kube.seed(BUILD_CONFIGS, {
    ...live,
    spec: { ...live.spec as object, source: { git: { uri: "x", ref: "other" } } },
  });
  let changed = await cli.run([...args, "--no-start"]);
  assert.equal(changed.status, 2, changed.err);
  assert.match(changed.err, /exists with another spec: pass --replace/);
  changed = await cli.run([...args, "--no-start", "--replace"]);
  assert.equal(changed.status, 0, changed.err);
  const ref = (cli.kube.get(BUILD_CONFIGS, "dev", "shop-api")?.spec as {
    source: { git: { ref: string } };
  }).source.git.ref;
  assert.equal(ref, "main");

  // No Jenkins and no template to install one from.
  cli.kube.refuse({ method: "GET", type: TEMPLATES, status: 404, message: "not found" });
  const none = await cli.run(pipelineArgs(host.origin, "qa"));
  assert.equal(none.status, 1, none.err);
  assert.match(none.err, /no template openshift\/jenkins-ephemeral to install one from/);
});
