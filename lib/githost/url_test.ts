import assert from "node:assert/strict";
import { InvalidGitUrlError, parseGitUrl, redact } from "./url.ts";

Deno.test("parseGitUrl() strips credentials and .git from https URLs", () => {
  assert.deepEqual(parseGitUrl("https://user:t%40k@github.com/MyOrg/My.Repo.git"), {
    url: "https://github.com/MyOrg/My.Repo",
    protocol: "https",
    host: "github.com",
    org: "MyOrg",
    repo: "My.Repo",
    username: "user",
    password: "t@k",
  });
});

Deno.test("parseGitUrl() keeps http and the port, and reads #branch", () => {
  const git = parseGitUrl("http://git.local:3000/team/app#feature/x");
  assert.equal(git.url, "http://git.local:3000/team/app");
  assert.equal(git.host, "git.local:3000");
  assert.equal(git.protocol, "http");
  assert.equal(git.branch, "feature/x");
});

Deno.test("parseGitUrl() turns scp-like and ssh:// remotes into https web URLs", () => {
  assert.equal(
    parseGitUrl("git@github.com:upstream-org/up-repo.git").url,
    "https://github.com/upstream-org/up-repo",
  );
  const ssh = parseGitUrl("ssh://git@gitlab.example.com:2222/group/sub/app.git");
  assert.equal(ssh.url, "https://gitlab.example.com/group/sub/app");
  assert.equal(ssh.org, "group/sub");
  assert.equal(ssh.repo, "app");
  assert.equal(ssh.username, undefined);
});

Deno.test("parseGitUrl() rejects what is not a repository URL", () => {
  for (const bad of ["ftp://h/a/b", "https://github.com/only", "just-words", "https://"]) {
    assert.throws(() => parseGitUrl(bad), InvalidGitUrlError, bad);
  }
});

Deno.test("redact() hides credentials in messages", () => {
  assert.equal(redact("https://u:p@h/o/r"), "https://***@h/o/r");
  assert.equal(redact("git@h:o/r"), "git@h:o/r");
});
