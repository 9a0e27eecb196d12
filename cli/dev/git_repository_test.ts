import assert from "node:assert/strict";
import { gitSecret, normalizeName, repoConfigName } from "./git_repository.ts";
import { parseGitUrl } from "../../lib/githost/mod.ts";

Deno.test("repoConfigName() is igc's <org>.<repo>[.<branch>] with dots turned into '-'", () => {
  const git = parseGitUrl("https://github.com/MyOrg/My.Repo.git");
  assert.equal(repoConfigName(git, "main"), "myorg-my-repo");
  assert.equal(repoConfigName(git, "master"), "myorg-my-repo");
  assert.equal(repoConfigName(git, "feature/x"), "myorg-my-repo-feature-x");
  assert.equal(normalizeName("Bad..Name!"), "bad-name");
});

Deno.test("gitSecret() annotates with the repository's own scheme and host", () => {
  const secret = gitSecret("dev", parseGitUrl("http://git.local:3000/o/r"), "u", "p", {
    k: "v",
    username: "x",
  });
  assert.equal(secret.type, "kubernetes.io/basic-auth");
  assert.equal(secret.metadata.annotations["tekton.dev/git-0"], "http://git.local:3000");
  assert.equal(
    secret.metadata.annotations["build.openshift.io/source-secret-match-uri-1"],
    "http://git.local:3000/*",
  );
  assert.deepEqual(secret.stringData, { k: "v", username: "u", password: "p" });
});
