/**
 * `toolkit pipeline --jenkins` on OpenShift end to end: the real kube-apiserver with OpenShift's
 * Route and SecurityContextConstraints CRDs (from github.com/openshift/api), stand-ins for the
 * build and template APIs (tests/fakes/openshift_builds.ts: OpenShift serves them itself, no CRDs
 * are published), and the real Gitea. Jenkins is installed from the `jenkins-ephemeral` template,
 * granted the privileged SCC, the BuildConfig applied from memory with a webhook trigger of the
 * host's type and a secret, a first build started, and one hook registered; a second run changes
 * nothing.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, GITEA_ADMIN, startCluster, startGitea } from "../env/mod.ts";
import { apply, getJson, kubectl, PRIVILEGED_SCC, tempDir, toolkit } from "../cli_dev/helpers.ts";
import { BUILD_CRDS, startBuildApiProxy } from "../fakes/openshift_builds.ts";
import { JENKINS_TEMPLATE } from "../fixtures/jenkins_template.ts";

Deno.test({
  name:
    "pipeline --jenkins on OpenShift: Jenkins from its template, a BuildConfig, a build, one hook",
  ignore: e2eSkipReason(["kube-apiserver", "etcd", "kubectl", "openssl", "git", "gitea"]) !==
    undefined,
  fn: async (t) => {
    await using cluster = await startCluster({ crds: ["openshift"] });
    await apply(cluster, ...BUILD_CRDS);
    await kubectl(cluster, [
      "wait",
      "--for=condition=Established",
      "crd",
      "--all",
      "--timeout=60s",
    ]);
    await using proxy = await startBuildApiProxy(cluster);
    await using gitea = await startGitea();
    await using dir = await tempDir("toolkit-jenkins-os-");
    const env = { KUBECONFIG: proxy.kubeconfigPath, HOME: dir.path };
    const repo = await gitea.createRepo("orders", [{ path: "Jenkinsfile", content: "node {}\n" }]);
    for (const ns of ["tools", "dev", "openshift"]) {
      await kubectl(cluster, ["create", "namespace", ns]);
    }
    await apply(cluster, JENKINS_TEMPLATE, PRIVILEGED_SCC);
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

    await t.step(
      "the first run installs Jenkins, the BuildConfig, a build and the hook",
      async () => {
        const r = await toolkit([...args, "-o", "json"], env);
        assert.equal(r.status, 0, r.err);
        const report = JSON.parse(r.out);
        assert.equal(report.build, "orders-1");
        assert.equal(report.webhook.action, "created");
        assert.match(r.err, /Installing Jenkins in dev from template jenkins-ephemeral/);
        for (
          const [kind, name] of [["deployment", "jenkins"], ["route", "jenkins"], [
            "serviceaccount",
            "jenkins",
          ]]
        ) {
          assert.ok(await getJson(cluster, [kind!, name!, "-n", "dev"]), `${kind} ${name}`);
        }
        const scc = await getJson(cluster, ["securitycontextconstraints", "privileged"]);
        assert.deepEqual(scc?.users, ["system:admin", "system:serviceaccount:dev:jenkins"]);

        const bc = await getJson(cluster, [
          "buildconfigs.build.openshift.io",
          "orders",
          "-n",
          "dev",
        ]);
        const spec = bc?.spec as {
          triggers: unknown;
          source: { git: unknown };
          strategy: { jenkinsPipelineStrategy: { jenkinsfilePath: string; env: unknown } };
        };
        assert.deepEqual(spec.triggers, [
          { type: "Generic", generic: { secretReference: { name: "orders-webhook" } } },
        ]);
        assert.deepEqual(spec.source.git, {
          uri: repo.cloneUrl.replace(/\.git$/, ""),
          ref: "main",
        });
        assert.equal(spec.strategy.jenkinsPipelineStrategy.jenkinsfilePath, "Jenkinsfile");
        assert.deepEqual(spec.strategy.jenkinsPipelineStrategy.env, [
          { name: "CLOUD_NAME", value: "openshift" },
          { name: "NAMESPACE", value: "dev" },
          { name: "BRANCH", value: "main" },
        ]);
        const secret = await getJson(cluster, ["secret", "orders-webhook", "-n", "dev"]);
        const value = atob((secret?.data as Record<string, string>).WebHookSecretKey!);
        assert.match(value, /^[0-9a-f]{48}$/);
        assert.notEqual(value, "secret101");

        const hooks = await gitea.api("GET", `/repos/${repo.fullName}/hooks`) as {
          config: { url: string };
        }[];
        assert.equal(hooks.length, 1);
        assert.equal(
          hooks[0]!.config.url,
          `${proxy.server}/apis/build.openshift.io/v1/namespaces/dev/buildconfigs/orders/webhooks/${value}/generic`,
        );
        // Nothing was written into the working directory.
        assert.deepEqual(
          [...Deno.readDirSync(dir.path)].filter((e) => e.name.endsWith(".yaml")),
          [],
        );
        for (const ns of ["dev", "tools"]) {
          assert.ok(await getJson(cluster, ["secret", "git-credentials", "-n", ns]), ns);
        }
      },
    );

    await t.step("a second run changes nothing and adds no hook", async () => {
      const r = await toolkit([...args, "--no-start", "-o", "json"], env);
      assert.equal(r.status, 0, r.err);
      const report = JSON.parse(r.out);
      for (const result of report.results) {
        assert.equal(result.outcome, "unchanged", JSON.stringify(result));
      }
      assert.equal(report.webhook.action, "unchanged");
      assert.doesNotMatch(r.err, /Installing Jenkins/);
      const hooks = await gitea.api("GET", `/repos/${repo.fullName}/hooks`) as unknown[];
      assert.equal(hooks.length, 1);
      assert.equal(proxy.instantiated.length, 1);
    });

    await t.step("a BuildConfig changed by hand is replaced only with --replace", async () => {
      await kubectl(cluster, [
        "patch",
        "buildconfigs.build.openshift.io",
        "orders",
        "-n",
        "dev",
        "--type=merge",
        "-p",
        '{"spec":{"source":{"git":{"ref":"other"}}}}',
      ]);
      let r = await toolkit([...args, "--no-start"], env);
      assert.equal(r.status, 2, r.err);
      assert.match(r.err, /exists with another spec: pass --replace/);
      r = await toolkit([...args, "--no-start", "--replace"], env);
      assert.equal(r.status, 0, r.err);
      const bc = await getJson(cluster, ["buildconfigs.build.openshift.io", "orders", "-n", "dev"]);
      assert.equal((bc?.spec as { source: { git: { ref: string } } }).source.git.ref, "main");
    });

    await t.step("no Jenkins and no template to install one from: a clear error", async () => {
      await kubectl(cluster, ["create", "namespace", "qa"]);
      await kubectl(cluster, [
        "delete",
        "templates.template.openshift.io",
        "jenkins-ephemeral",
        "-n",
        "openshift",
      ]);
      const r = await toolkit([...args.slice(0, 4), "qa", ...args.slice(5)], env);
      assert.equal(r.status, 1, r.err);
      assert.match(r.err, /no template openshift\/jenkins-ephemeral to install one from/);
    });
  },
});
