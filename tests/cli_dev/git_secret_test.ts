/** `toolkit git-secret` and `toolkit gitops` end to end: real git repositories, real API server. */
import assert from "node:assert/strict";
import { e2eSkipReason, startCluster } from "../env/mod.ts";
import {
  copyKubeconfig,
  decodeData,
  getJson,
  git,
  gitRepo,
  kubectl,
  tempDir,
  toolkit,
} from "./helpers.ts";

Deno.test({
  name: "git-secret and gitops end to end",
  ignore: e2eSkipReason(["kube-apiserver", "etcd", "kubectl"]) !== undefined,
  fn: async (t) => {
    await using cluster = await startCluster();
    await using dir = await tempDir();
    const kubeconfig = await copyKubeconfig(cluster, dir.path);
    const env = { KUBECONFIG: kubeconfig, HOME: dir.path };
    for (const ns of ["dev", "dev2", "dev3", "dev4"]) {
      await kubectl(cluster, ["create", "namespace", ns]);
    }
    const repo = await gitRepo(`${dir.path}/repo`, "https://github.com/MyOrg/My.Repo.git");

    await t.step(
      "git-secret stores the credentials Secret and the repository ConfigMap",
      async () => {
        const r = await toolkit([
          "git-secret",
          "-n",
          "dev",
          "-u",
          "alice",
          "-p",
          "tok1",
          "-d",
          repo,
        ], env);
        assert.equal(r.status, 0, r.err);
        assert.match(r.err, /Project git repo: https:\/\/github.com\/MyOrg\/My.Repo/);
        assert.match(r.err, /Branch: main/);
        const secret = await getJson(cluster, ["secret", "git-credentials", "-n", "dev"]);
        assert.equal(secret?.type, "kubernetes.io/basic-auth");
        assert.deepEqual(decodeData(secret?.data), { username: "alice", password: "tok1" });
        assert.deepEqual(secret?.metadata.labels, {
          "jenkins.io/credentials-type": "usernamePassword",
          app: "My.Repo",
          group: "pipeline",
          type: "git",
        });
        assert.equal(
          secret?.metadata.annotations?.["build.openshift.io/source-secret-match-uri-1"],
          "https://github.com/*",
        );
        assert.equal(secret?.metadata.annotations?.["tekton.dev/git-0"], "https://github.com");
        const cm = await getJson(cluster, ["configmap", "myorg-my-repo", "-n", "dev"]);
        assert.deepEqual(cm?.data, {
          url: "https://github.com/MyOrg/My.Repo",
          host: "github.com",
          org: "MyOrg",
          owner: "MyOrg",
          repo: "My.Repo",
          branch: "main",
          protocol: "https",
        });
        assert.deepEqual(cm?.metadata.labels, { app: "My.Repo", group: "pipeline", type: "git" });
      },
    );

    await t.step("a second run changes nothing and says so", async () => {
      const r = await toolkit(
        ["git-secret", "-n", "dev", "-u", "alice", "-p", "tok1", "-d", repo],
        env,
      );
      assert.equal(r.status, 0, r.err);
      assert.match(r.err, /Git credentials have already been stored for user: alice/);
      assert.match(r.err, /Git repository in dev: nothing changed \(2 unchanged\)/);
      const again = await toolkit(["git-secret", "-n", "dev", "-d", repo], env);
      assert.equal(again.status, 0, again.err);
      assert.match(again.err, /nothing changed/);
    });

    await t.step(
      "credentials on the command line are never silently replaced by stored ones",
      async () => {
        const r = await toolkit(
          ["git-secret", "-n", "dev", "-u", "bob", "-p", "tok2", "-d", repo],
          env,
        );
        assert.equal(r.status, 2, "a usage error: --replace on the command line replaces them");
        assert.match(
          r.err,
          /Secret "dev\/git-credentials" already holds credentials for user "alice"; pass --replace/,
        );
        const kept = await getJson(cluster, ["secret", "git-credentials", "-n", "dev"]);
        assert.deepEqual(decodeData(kept?.data), { username: "alice", password: "tok1" });
        const replaced = await toolkit(
          ["git-secret", "-n", "dev", "-u", "bob", "-p", "tok2", "-d", repo, "--replace"],
          env,
        );
        assert.equal(replaced.status, 0, replaced.err);
        assert.match(replaced.err, /Secret "dev\/git-credentials" updated/);
        const secret = await getJson(cluster, ["secret", "git-credentials", "-n", "dev"]);
        assert.deepEqual(decodeData(secret?.data), { username: "bob", password: "tok2" });
      },
    );

    await t.step("name, --values, an http remote with a port and a feature branch", async () => {
      const other = await gitRepo(
        `${dir.path}/other`,
        "http://git.local:3000/team/app.git",
        "feature/x",
      );
      await Deno.writeTextFile(`${dir.path}/values.yaml`, "# extra\nfoo: bar\nport: 8080\n");
      const r = await toolkit(
        [
          "git-secret",
          "My_Name",
          "-n",
          "dev2",
          "-u",
          "u",
          "-p",
          "p",
          "-d",
          other,
          "--values",
          `${dir.path}/values.yaml`,
        ],
        env,
      );
      assert.equal(r.status, 0, r.err);
      const cm = await getJson(cluster, ["configmap", "my-name", "-n", "dev2"]);
      assert.equal(cm?.data?.url, "http://git.local:3000/team/app");
      assert.equal(cm?.data?.branch, "feature/x");
      const secret = await getJson(cluster, ["secret", "git-credentials", "-n", "dev2"]);
      assert.deepEqual(decodeData(secret?.data), {
        foo: "bar",
        port: "8080",
        username: "u",
        password: "p",
      });
      assert.equal(
        secret?.metadata.annotations?.["build.openshift.io/source-secret-match-uri-1"],
        "http://git.local:3000/*",
      );
      assert.equal(secret?.metadata.annotations?.["tekton.dev/git-0"], "http://git.local:3000");

      const unnamed = await toolkit(["git-secret", "-n", "dev2", "-d", other], env);
      assert.equal(unnamed.status, 0, unnamed.err);
      assert.ok(await getJson(cluster, ["configmap", "team-app-feature-x", "-n", "dev2"]));
    });

    await t.step(
      "credentials in the remote URL are used and kept out of the ConfigMap",
      async () => {
        const withCreds = await gitRepo(
          `${dir.path}/creds`,
          "https://carol:s3cret@gitea.local/org/svc.git",
        );
        const r = await toolkit(["git-secret", "-n", "dev3", "-d", withCreds], env);
        assert.equal(r.status, 0, r.err);
        const secret = await getJson(cluster, ["secret", "git-credentials", "-n", "dev3"]);
        assert.deepEqual(decodeData(secret?.data), { username: "carol", password: "s3cret" });
        const cm = await getJson(cluster, ["configmap", "org-svc", "-n", "dev3"]);
        assert.equal(cm?.data?.url, "https://gitea.local/org/svc");
        assert.doesNotMatch(r.err, /s3cret/);
      },
    );

    await t.step("gitops registers gitops-repo from a URL or from the repository", async () => {
      let r = await toolkit(
        ["gitops", "git@github.com:org/gitops-config.git#dev", "-n", "dev4", "-u", "g", "-p", "t"],
        env,
      );
      assert.equal(r.status, 0, r.err);
      let cm = await getJson(cluster, ["configmap", "gitops-repo", "-n", "dev4"]);
      assert.equal(cm?.data?.url, "https://github.com/org/gitops-config");
      assert.equal(cm?.data?.branch, "dev");
      r = await toolkit(["gitops", "-n", "dev4", "-d", repo], env);
      assert.equal(r.status, 0, r.err);
      assert.match(r.err, /ConfigMap "dev4\/gitops-repo" updated/);
      cm = await getJson(cluster, ["configmap", "gitops-repo", "-n", "dev4"]);
      assert.equal(cm?.data?.repo, "My.Repo");
      r = await toolkit(["gitops", "-n", "dev4", "-d", repo], env);
      assert.match(r.err, /nothing changed/);
    });

    await t.step("a .properties values file is read too", async () => {
      await Deno.writeTextFile(`${dir.path}/extra.properties`, "# c\na.b=1\nc: two words\n");
      const r = await toolkit(
        ["git-secret", "-n", "dev4", "-d", repo, "--values", "extra.properties", "--replace"],
        env,
        { cwd: dir.path },
      );
      assert.equal(r.status, 0, r.err);
      const secret = await getJson(cluster, ["secret", "git-credentials", "-n", "dev4"]);
      assert.deepEqual(decodeData(secret?.data), {
        "a.b": "1",
        c: "two words",
        username: "g",
        password: "t",
      });
    });

    await t.step("bad input fails with a clear message", async () => {
      await kubectl(cluster, ["create", "namespace", "dev5"]);
      let r = await toolkit(["git-secret", "-n", "dev5", "-d", repo], env);
      assert.equal(r.status, 2);
      assert.match(
        r.err,
        /The git username is missing: pass -u\/--gitUsername \(there is no terminal/,
      );
      r = await toolkit(["git-secret", "-n", "dev5", "-u", "x", "-d", repo], env);
      assert.equal(r.status, 2);
      assert.match(
        r.err,
        /The git password or token is missing: pass --git-token-file FILE, set TOOLKIT_GIT_TOKEN or give -p - \(stdin\)/,
      );
      assert.equal(await getJson(cluster, ["configmap", "myorg-my-repo", "-n", "dev5"]), undefined);

      await Deno.mkdir(`${dir.path}/plain`);
      r = await toolkit([
        "git-secret",
        "-n",
        "dev5",
        "-u",
        "x",
        "-p",
        "y",
        "-d",
        `${dir.path}/plain`,
      ], env);
      assert.equal(r.status, 1);
      assert.match(r.err, /Cannot read the git repository in ".*plain": not a git repository/);

      const noRemote = await gitRepo(`${dir.path}/no-remote`, undefined);
      r = await toolkit(["git-secret", "-n", "dev5", "-u", "x", "-p", "y", "-d", noRemote], env);
      assert.equal(r.status, 1);
      assert.match(r.err, /Cannot read git remote "origin" .*there is no such remote/);

      await Deno.writeTextFile(`${dir.path}/bad.yaml`, "a: [1, 2\n");
      r = await toolkit([
        "git-secret",
        "-n",
        "dev5",
        "-u",
        "x",
        "-p",
        "y",
        "-d",
        repo,
        "--values",
        `${dir.path}/bad.yaml`,
      ], env);
      assert.equal(r.status, 1);
      assert.match(r.err, /Cannot read values file ".*bad.yaml": it is not valid YAML or JSON/);
      await Deno.writeTextFile(`${dir.path}/nested.yaml`, "a:\n  b: 1\n");
      r = await toolkit([
        "git-secret",
        "-n",
        "dev5",
        "-u",
        "x",
        "-p",
        "y",
        "-d",
        repo,
        "--values",
        `${dir.path}/nested.yaml`,
      ], env);
      assert.equal(r.status, 1);
      assert.match(r.err, /the value of "a" is not a string, number or boolean/);
      r = await toolkit([
        "git-secret",
        "-n",
        "dev5",
        "-u",
        "x",
        "-p",
        "y",
        "-d",
        repo,
        "--values",
        `${dir.path}/none.yaml`,
      ], env);
      assert.equal(r.status, 1);
      assert.match(r.err, /Cannot read values file ".*none.yaml": no such file/);

      r = await toolkit(["git-secret", "-n", "nope", "-u", "x", "-p", "y", "-d", repo], env);
      assert.equal(r.status, 1);
      assert.match(r.err, /Cannot find namespace "nope"/);
      r = await toolkit(["git-secret", "-n", "dev5", "-u", "x", "-p", "y", "-d", repo], {
        HOME: dir.path,
      });
      assert.equal(r.status, 1);
      assert.match(r.err, /No usable kubeconfig context/);

      const detached = await gitRepo(`${dir.path}/detached`, "https://github.com/o/r.git");
      await Deno.writeTextFile(`${detached}/f`, "x");
      await git(detached, "add", "f");
      await git(detached, "commit", "-q", "-m", "c");
      await git(detached, "checkout", "-q", "--detach");
      r = await toolkit(["git-secret", "-n", "dev5", "-u", "x", "-p", "y", "-d", detached], env);
      assert.equal(r.status, 2);
      assert.match(r.err, /HEAD is detached/);

      r = await toolkit(
        ["gitops", "ftp://example.com/a/b", "-n", "dev5", "-u", "x", "-p", "y"],
        env,
      );
      assert.equal(r.status, 2);
      assert.match(
        r.err,
        /Cannot parse git URL "ftp:\/\/example.com\/a\/b": the scheme "ftp" is not supported/,
      );
      r = await toolkit(
        ["gitops", "https://github.com/o/r", "-n", "dev5", "-u", "x", "-p", "y"],
        env,
      );
      assert.equal(r.status, 2);
      assert.match(r.err, /The branch is not known: give the URL as URL#branch/);
      r = await toolkit([
        "git-secret",
        "Bad..Name!",
        "-n",
        "dev5",
        "-u",
        "x",
        "-p",
        "y",
        "-d",
        repo,
      ], env);
      assert.equal(r.status, 0, "dots and other characters are turned into '-' as igc did");
    });
  },
});
