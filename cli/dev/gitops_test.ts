/**
 * `toolkit gitops` in-process, against the in-memory API server of `tests/fakes/kube_api.ts` and
 * real git repositories: the ConfigMap gitops-repo from a URL or from the local clone. What it
 * shares with `git-secret` (the credentials, the token sources, bad input) is tested with it in
 * `git_secret_test.ts`.
 */
import assert from "node:assert/strict";
import { CONFIG_MAPS, NAMESPACES } from "../../lib/kube/mod.ts";
import { type FakeCli, fakeCli } from "../../tests/fakes/cli.ts";
import { gitRepo } from "../../tests/env/git_repo.ts";

function configData(cli: FakeCli, ns: string, name: string): Record<string, string> {
  return (cli.kube.get(CONFIG_MAPS, ns, name)?.data ?? {}) as Record<string, string>;
}

async function setUp(...namespaces: string[]): Promise<{ cli: FakeCli; repo: string }> {
  const cli = await fakeCli();
  for (const name of namespaces) cli.kube.seed(NAMESPACES, { metadata: { name } });
  const repo = await gitRepo(`${cli.dir}/repo`, "https://github.com/MyOrg/My.Repo.git");
  return { cli, repo };
}

Deno.test("gitops registers gitops-repo from a URL (asking for its branch) or from the repository", async () => {
  const { cli, repo } = await setUp("dev4");
  await using _ = cli;
  let r = await cli.run(
    ["gitops", "git@github.com:org/gitops-config.git#dev", "-n", "dev4", "-u", "g", "-p", "t"],
  );
  assert.equal(r.status, 0, r.err);
  let cm = configData(cli, "dev4", "gitops-repo");
  assert.equal(cm.url, "https://github.com/org/gitops-config");
  assert.equal(cm.branch, "dev");
  r = await cli.run(["gitops", "-n", "dev4", "-d", repo]);
  assert.equal(r.status, 0, r.err);
  assert.match(r.err, /ConfigMap "dev4\/gitops-repo" updated/);
  assert.equal(configData(cli, "dev4", "gitops-repo").repo, "My.Repo");
  r = await cli.run(["gitops", "-n", "dev4", "-d", repo]);
  assert.match(r.err, /nothing changed/);
  r = await cli.run(["gitops", "https://github.com/org/other", "-n", "dev4"], {
    answers: ["release"],
  });
  assert.equal(r.status, 0, r.err);
  assert.deepEqual(r.asked, ["Provide the git branch that should be used:"]);
  cm = configData(cli, "dev4", "gitops-repo");
  assert.equal(cm.branch, "release");
  r = await cli.run(["gitops", "https://github.com/org/other", "-n", "dev4"]);
  assert.equal(r.status, 2);
  assert.match(r.err, /The branch is not known: give the URL as URL#branch/);
});
