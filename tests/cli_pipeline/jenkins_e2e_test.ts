/**
 * `toolkit pipeline --jenkins` on Kubernetes end to end: the real kube-apiserver, the real Gitea
 * as the git host, and the Jenkins REST stand-in (tests/fakes/jenkins_api.ts; Jenkins cannot run
 * here). The job toolkit sends is parsed as XML and checked field by field; the folder is awaited;
 * a second run changes nothing and adds no hook; bad input fails clearly.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, GITEA_ADMIN, startCluster, startGitea } from "../env/mod.ts";
import { apply, copyKubeconfig, getJson, kubectl, tempDir, toolkit } from "../cli_dev/helpers.ts";
import { startFakeJenkins } from "../fakes/jenkins_api.ts";
import { parseJobXml } from "../../lib/jenkins/mod.ts";

const JENKINS_USER = "admin";
const JENKINS_TOKEN = "11aa22bb33cc44dd55ee66ff77889900";

function jenkinsAccess(url: string, token = JENKINS_TOKEN) {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "jenkins-access", namespace: "tools" },
    stringData: { url, username: JENKINS_USER, api_token: token },
  };
}

type Xml = Record<string, unknown>;
const at = (x: unknown, ...path: string[]): unknown =>
  path.reduce((v, k) => (v as Xml | undefined)?.[k], x);

Deno.test({
  name: "pipeline --jenkins on Kubernetes: folder, job, first build and one Gitea hook",
  ignore: e2eSkipReason(["kube-apiserver", "etcd", "kubectl", "openssl", "git", "gitea"]) !==
    undefined,
  fn: async (t) => {
    await using cluster = await startCluster();
    await using gitea = await startGitea();
    await using jenkins = startFakeJenkins({
      username: JENKINS_USER,
      apiToken: JENKINS_TOKEN,
      folderDelay: 3,
    });
    await using dir = await tempDir("toolkit-jenkins-");
    const env = { KUBECONFIG: await copyKubeconfig(cluster, dir.path), HOME: dir.path };
    const repo = await gitea.createRepo("shop-api", [
      {
        path: "Jenkinsfile",
        content: "pipeline { agent any; stages { stage('b') { steps { echo 'hi' } } } }\n",
      },
    ]);
    await kubectl(cluster, ["create", "namespace", "tools"]);
    await kubectl(cluster, ["create", "namespace", "dev"]);
    await apply(cluster, jenkinsAccess(jenkins.url));
    const args = [
      "pipeline",
      `${repo.cloneUrl}#main`,
      "--jenkins",
      "-n",
      "dev",
      "-u",
      GITEA_ADMIN.username,
      "-P",
      gitea.token,
    ];
    const hooks = async () =>
      await gitea.api("GET", `/repos/${repo.fullName}/hooks`) as {
        config: { url: string };
        events: string[];
      }[];

    await t.step(
      "the first run makes the folder (awaited), the job, a build and the hook",
      async () => {
        const r = await toolkit([...args, "-o", "json"], env);
        assert.equal(r.status, 0, r.err);
        const report = JSON.parse(r.out);
        assert.equal(report.folder, "created");
        assert.equal(report.job, "created");
        assert.equal(report.webhook.action, "created");
        assert.match(report.build, /\/queue\/item\/1\/$/);

        // Every POST carried the crumb; the job was created only once the folder was served.
        const posts = jenkins.requests.filter((q) => q.method === "POST");
        assert.ok(posts.length >= 3);
        for (const p of posts) assert.ok(p.crumb, p.path);
        const createJob = jenkins.requests.findIndex((q) => q.path === "/job/dev/createItem");
        const folderServed = jenkins.requests.findIndex((q, i) =>
          i < createJob && q.path === "/job/dev/api/json"
        );
        assert.ok(folderServed >= 0 && folderServed < createJob);

        // The job's config.xml, field by field.
        const xml = jenkins.folders.get("dev")!.get("shop-api")!;
        const job = parseJobXml(xml)["flow-definition"];
        const scm = at(job, "definition", "scm");
        assert.equal(
          at(job, "definition", "@_class"),
          "org.jenkinsci.plugins.workflow.cps.CpsScmFlowDefinition",
        );
        assert.equal(at(scm, "@_class"), "hudson.plugins.git.GitSCM");
        assert.equal(
          at(scm, "userRemoteConfigs", "hudson.plugins.git.UserRemoteConfig", "url"),
          repo.cloneUrl.replace(/\.git$/, ""),
        );
        assert.equal(
          at(scm, "userRemoteConfigs", "hudson.plugins.git.UserRemoteConfig", "credentialsId"),
          "git-credentials",
        );
        assert.equal(at(scm, "branches", "hudson.plugins.git.BranchSpec", "name"), "*/main");
        assert.equal(at(job, "definition", "scriptPath"), "Jenkinsfile");
        const params = at(
          job,
          "properties",
          "hudson.model.ParametersDefinitionProperty",
          "parameterDefinitions",
          "hudson.model.StringParameterDefinition",
        ) as Xml[];
        assert.deepEqual(params.map((p) => [p.name, p.defaultValue]), [["NAMESPACE", "dev"], [
          "BRANCH",
          "main",
        ]]);
        const triggers = at(
          job,
          "properties",
          "org.jenkinsci.plugins.workflow.job.properties.PipelineTriggersJobProperty",
          "triggers",
        ) as Xml;
        assert.deepEqual(Object.keys(triggers), ["hudson.triggers.SCMTrigger"]);
        assert.equal(
          at(job, "properties", "jenkins.model.BuildDiscarderProperty", "strategy", "numToKeep"),
          "5",
        );

        assert.deepEqual(jenkins.builds, [{
          job: "dev/shop-api",
          params: { NAMESPACE: "dev", BRANCH: "main" },
        }]);
        const list = await hooks();
        assert.equal(list.length, 1);
        assert.equal(list[0]!.config.url, `${jenkins.url}/gitea-webhook/post`);
        // The credentials are in both namespaces: Jenkins reads its own.
        for (const ns of ["dev", "tools"]) {
          assert.ok(await getJson(cluster, ["secret", "git-credentials", "-n", ns]), ns);
        }
      },
    );

    await t.step("a second run changes nothing and adds no hook", async () => {
      const r = await toolkit([...args, "--no-start", "-o", "json"], env);
      assert.equal(r.status, 0, r.err);
      const report = JSON.parse(r.out);
      assert.equal(report.folder, "unchanged");
      assert.equal(report.job, "unchanged");
      assert.equal(report.webhook.action, "unchanged");
      for (const result of report.results) assert.equal(result.outcome, "unchanged");
      assert.equal((await hooks()).length, 1);
      assert.equal(jenkins.builds.length, 1);
    });

    await t.step("a job with another configuration is replaced only with --replace", async () => {
      jenkins.folders.get("dev")!.set(
        "shop-api",
        "<flow-definition><description>hand-made</description></flow-definition>",
      );
      let r = await toolkit([...args, "--no-start"], env);
      assert.equal(r.status, 2, r.err);
      assert.match(r.err, /exists with another configuration: pass --replace/);
      r = await toolkit([...args, "--no-start", "--replace"], env);
      assert.equal(r.status, 0, r.err);
      assert.match(r.err, /Jenkins job dev\/shop-api replaced/);
      assert.ok(jenkins.requests.some((q) => q.path === "/job/dev/job/shop-api/doDelete"));
    });

    await t.step("bad input fails clearly", async () => {
      await apply(cluster, jenkinsAccess(jenkins.url, "wrong-token"));
      let r = await toolkit(args, env);
      assert.equal(r.status, 1);
      assert.match(r.err, /Jenkins at http:\/\/127\.0\.0\.1:\d+ refused .* \(HTTP 401\)/);
      await kubectl(cluster, ["delete", "secret", "jenkins-access", "-n", "tools"]);
      r = await toolkit(args, env);
      assert.equal(r.status, 1);
      assert.match(r.err, /Secret "tools\/jenkins-access" does not exist/);
      r = await toolkit([...args.slice(0, 4), "nope", ...args.slice(5)], env);
      assert.equal(r.status, 1);
      assert.match(r.err, /namespace "nope"/);
    });
  },
});
