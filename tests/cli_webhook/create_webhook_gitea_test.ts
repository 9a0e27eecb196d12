/**
 * `toolkit create-webhook` against the real Gitea: the hook points at the Jenkins Gitea plugin's
 * endpoint (igc sent no URL), carries a secret, and a second run adds no hook; `--webhookUrl`
 * sends events to any listener; bad input fails clearly.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, GITEA_ADMIN, startGitea } from "../env/mod.ts";
import { toolkit } from "../cli_dev/helpers.ts";

interface Hook {
  id: number;
  config: { url: string; content_type: string };
  events: string[];
}

Deno.test({
  name: "create-webhook registers one Jenkins hook on Gitea, with a URL and a secret",
  ignore: e2eSkipReason(["gitea", "git"]) !== undefined,
  fn: async (t) => {
    await using gitea = await startGitea();
    const repo = await gitea.createRepo("jenkins-app", [{ path: "Jenkinsfile", content: "" }]);
    const env = {
      JENKINS_URL: "https://jenkins.example.com",
      USER_NAME: GITEA_ADMIN.username,
      API_TOKEN: gitea.token,
      GIT_URL: repo.cloneUrl,
    };
    const hooks = async () => await gitea.api("GET", `/repos/${repo.fullName}/hooks`) as Hook[];

    await t.step(
      "the environment variables are igc's flags; the hook goes to the plugin",
      async () => {
        const r = await toolkit(["create-webhook", "-o", "json"], env);
        assert.equal(r.status, 0, r.err);
        const out = JSON.parse(r.out);
        assert.equal(out.action, "created");
        assert.equal(out.gitHost, "gitea");
        assert.match(out.secret, /^[0-9a-f]{48}$/);
        const list = await hooks();
        assert.equal(list.length, 1);
        assert.equal(out.id, list[0]!.id);
        assert.equal(list[0]!.config.url, "https://jenkins.example.com/gitea-webhook/post");
        assert.deepEqual(list[0]!.events, ["push"]);
        assert.match(r.err, /give it to Jenkins/);
      },
    );

    await t.step("a second run keeps the hook and says so", async () => {
      const r = await toolkit(["create-webhook"], env);
      assert.equal(r.status, 0, r.err);
      assert.equal(r.out, `Webhook unchanged: ${(await hooks())[0]!.id}\n`);
      assert.equal((await hooks()).length, 1);
    });

    await t.step("--secret sets a new secret on the same hook", async () => {
      const r = await toolkit(["create-webhook", "--secret", "s3cret-value"], env);
      assert.equal(r.status, 0, r.err);
      assert.match(r.out, /^Webhook updated: \d+\n$/);
      assert.doesNotMatch(r.err, /s3cret-value/);
      assert.equal((await hooks()).length, 1);
    });

    await t.step("--webhookUrl sends events to any listener", async () => {
      const r = await toolkit(
        ["create-webhook", "--webhookUrl", "https://listener.example.com/hook"],
        env,
      );
      assert.equal(r.status, 0, r.err);
      assert.match(r.out, /^Webhook created: \d+\n$/);
      assert.deepEqual((await hooks()).map((h) => h.config.url).sort(), [
        "https://jenkins.example.com/gitea-webhook/post",
        "https://listener.example.com/hook",
      ]);
    });

    await t.step("bad input fails clearly", async () => {
      const cases: [Record<string, string>, string[], number, RegExp][] = [
        [{ ...env, GIT_URL: "" }, [], 2, /pass --gitUrl/],
        [{ ...env, JENKINS_URL: "" }, [], 2, /--jenkinsUrl .* or --webhookUrl/],
        [env, ["--jenkinsUrl", "jenkins"], 2, /Invalid --jenkinsUrl/],
        [env, ["--jobName", "a/b/c"], 2, /Invalid --jobName/],
        [{ ...env, API_TOKEN: "wrong-token" }, [], 1, /401|refused/],
        [env, ["--gitUrl", "http://127.0.0.1:1/o/r"], 1, /reach/i],
      ];
      for (const [e, args, status, message] of cases) {
        const r = await toolkit(["create-webhook", ...args], e);
        assert.equal(r.status, status, `${args.join(" ")}: ${r.err}`);
        assert.match(r.err, message);
        assert.doesNotMatch(r.err, new RegExp(gitea.token));
      }
    });
  },
});
