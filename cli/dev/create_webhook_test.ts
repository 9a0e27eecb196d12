/**
 * `toolkit create-webhook` in-process, against the hosted git stand-ins of
 * `tests/fakes/hosted_git.ts` (over HTTP, as the real hosts are reached): its flags and
 * environment variables, its bad input and what it prints for the hook it made, kept or updated.
 * Every hosted flavour is covered by `tests/githost/githost_e2e_test.ts`, the real Gitea by
 * `tests/cli_webhook/create_webhook_gitea_test.ts`.
 */
import assert from "node:assert/strict";
import { fakeCli } from "../../tests/fakes/cli.ts";
import { type HostedKind, startHostedGit } from "../../tests/fakes/hosted_git.ts";

const TOKEN = "ghp_test_token_0123456789";
const JENKINS = "https://jenkins.example.com";

function standIn(kind: HostedKind, path = "octo/app") {
  return startHostedGit(
    kind,
    { path, defaultBranch: "main", files: { "package.json": "{}\n" } },
    { username: "alice", token: TOKEN },
  );
}

Deno.test("create-webhook makes one hook to Jenkins' plugin, keeps it, and sets a given secret", async () => {
  await using cli = await fakeCli();
  await using host = standIn("ghe");
  const args = ["create-webhook", "--gitUrl", `${host.origin}/octo/app`, "--gitToken", TOKEN];
  const r = await cli.run([...args, "--jenkinsUrl", JENKINS]);
  assert.equal(r.status, 0, r.err);
  assert.equal(r.out, `Webhook created: ${host.hooks[0]!.id}\n`);
  assert.equal(host.hooks.length, 1);
  assert.equal(host.hooks[0]!.url, `${JENKINS}/github-webhook/`);
  const secret = host.hooks[0]!.secret!;
  assert.match(secret, /^[0-9a-f]{48}$/);
  assert.match(r.err, new RegExp(`The webhook's secret .*: ${secret}`));

  const again = await cli.run([...args], { env: { JENKINS_URL: JENKINS } });
  assert.equal(again.status, 0, again.err);
  assert.match(again.out, /^Webhook unchanged: /);
  assert.match(again.err, /kept with its secret \(pass --secret to set a new one\)/);
  assert.equal(host.hooks.length, 1);
  assert.equal(host.hooks[0]!.secret, secret);

  const set = await cli.run([...args, "--jenkinsUrl", JENKINS, "--secret", "s3t", "-o", "json"]);
  assert.equal(set.status, 0, set.err);
  const out = JSON.parse(set.out);
  assert.equal(out.action, "updated");
  assert.equal(out.gitHost, "ghe");
  assert.equal(out.url, `${JENKINS}/github-webhook/`);
  assert.equal(out.secret, undefined, "a secret given on the command line is not printed back");
  assert.equal(host.hooks[0]!.secret, "s3t");
});

Deno.test("create-webhook reads igc's environment variables and sends to --webhookUrl", async () => {
  await using cli = await fakeCli();
  await using host = standIn("gitlab", "platform/backend/app");
  const env = { GIT_URL: `${host.origin}/platform/backend/app`, API_TOKEN: TOKEN };
  const r = await cli.run(
    ["create-webhook", "--git-host-type", "gitlab", "--webhookUrl", "https://el.example.com/"],
    { env },
  );
  assert.equal(r.status, 0, r.err);
  assert.equal(host.hooks[0]!.url, "https://el.example.com/");
  const job = await cli.run(
    ["create-webhook", "--jobName", "dev/app", "-o", "yaml"],
    { env: { ...env, JENKINS_URL: JENKINS } },
  );
  assert.equal(job.status, 0, job.err);
  assert.match(job.out, /action: created/);
  assert.deepEqual(host.hooks.map((h) => h.url), [
    "https://el.example.com/",
    `${JENKINS}/project/dev/app`,
  ]);
});

Deno.test("create-webhook: bad input fails with a clear message (exit 2) and makes no hook", async () => {
  await using cli = await fakeCli();
  await using github = standIn("ghe");
  await using gitlab = standIn("gitlab");
  await using gogs = standIn("gogs");
  const base = ["create-webhook", "--gitToken", TOKEN, "--jenkinsUrl", JENKINS];
  const cases: [string[], RegExp][] = [
    [["create-webhook"], /Missing the repository: pass --gitUrl \(or GIT_URL\)/],
    [["create-webhook", "--gitUrl", `${github.origin}/octo/app`], /Missing the git token/],
    [
      ["create-webhook", "--gitUrl", `${github.origin}/octo/app`, "--gitToken", TOKEN],
      /pass --jenkinsUrl \(or JENKINS_URL\) or --webhookUrl/,
    ],
    [[...base, "--gitUrl", "not a url"], /./],
    [[...base, "--gitUrl", `${github.origin}/octo/app`, "--webhookUrl", "ftp://x"], /--webhookUrl/],
    [
      [...base, "--gitUrl", `${github.origin}/octo/app`, "--jobName", "a/b/c"],
      /--jobName "a\/b\/c"/,
    ],
    [
      [...base, "--gitUrl", `${github.origin}/octo/app`, "--git-ca-file", "missing.pem"],
      /Cannot read --git-ca-file/,
    ],
    [[...base, "--gitUrl", `${github.origin}/octo/app`, "--git-host-type", "svn"], /svn/],
    [
      [...base, "--gitUrl", `${gitlab.origin}/octo/app`, "--git-host-type", "gitlab"],
      /GitLab's hook calls the Jenkins job itself: pass --jobName/,
    ],
    [
      [...base, "--gitUrl", `${gogs.origin}/octo/app`, "--git-host-type", "gogs"],
      /needs the user name with the token: pass --gitUsername/,
    ],
  ];
  for (const [args, message] of cases) {
    const r = await cli.run(args);
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.err}`);
    assert.match(r.err, message, args.join(" "));
  }
  for (const host of [github, gitlab, gogs]) assert.deepEqual(host.hooks, []);
});

Deno.test("create-webhook: a host that refuses the token fails (exit 1) without quoting it", async () => {
  await using cli = await fakeCli();
  await using host = standIn("ghe");
  const r = await cli.run([
    "create-webhook",
    "--gitUrl",
    `${host.origin}/octo/app`,
    "--gitToken",
    "wrong-token-123",
    "--jenkinsUrl",
    JENKINS,
  ]);
  assert.equal(r.status, 1, r.err);
  assert.doesNotMatch(r.err + r.out, /wrong-token-123/);
  assert.deepEqual(host.hooks, []);
});
