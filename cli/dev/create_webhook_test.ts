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
  assert.match(again.err, /kept with its secret \(pass --secret-file to set a new one\)/);
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

Deno.test("create-webhook takes the token and the secret from files, the environment or stdin, and warns for each given as a value", async () => {
  await using cli = await fakeCli();
  await using host = standIn("ghe");
  await Deno.writeTextFile(`${cli.dir}/token`, `${TOKEN}\n`);
  await Deno.writeTextFile(`${cli.dir}/secret`, "s3cret-from-file\n");
  const base = ["create-webhook", "--gitUrl", `${host.origin}/octo/app`, "--jenkinsUrl", JENKINS];
  const runs: [string[], { env?: Record<string, string>; stdin?: string }, string][] = [
    [[...base, "--git-token-file", "token", "--secret-file", "secret"], {}, "s3cret-from-file"],
    [[...base], { env: { TOOLKIT_GIT_TOKEN: TOKEN, WEBHOOK_SECRET: "s3cret-env" } }, "s3cret-env"],
    [[...base, "--gitToken", "-", "--secret-file", "secret"], { stdin: TOKEN }, "s3cret-from-file"],
    [
      [...base, "--secret", "-"],
      { env: { API_TOKEN: TOKEN }, stdin: "s3cret-stdin\n" },
      "s3cret-stdin",
    ],
  ];
  for (const [args, options, secret] of runs) {
    const r = await cli.run([...args, "-v"], options);
    assert.equal(r.status, 0, `${args.join(" ")}: ${r.err}`);
    assert.doesNotMatch(r.err, /warning: the/, args.join(" "));
    assert.ok(!(r.out + r.err).includes(TOKEN) && !(r.out + r.err).includes(secret), r.err);
    assert.equal(host.hooks[0]!.secret, secret);
  }
  assert.equal(host.hooks.length, 1);

  const values = await cli.run([...base, "--gitToken", TOKEN, "--secret", "s3t-value"]);
  assert.equal(values.status, 0, values.err);
  assert.equal(values.err.match(/warning: the git token given as --gitToken's value/g)?.length, 1);
  assert.equal(
    values.err.match(
      /warning: the webhook secret given as --secret's value .* pass --secret-file FILE, set WEBHOOK_SECRET, or give --secret -/g,
    )?.length,
    1,
    values.err,
  );
  assert.ok(!values.err.includes(TOKEN) && !values.err.includes("s3t-value"));

  const refused: [string[], Record<string, string>, number, RegExp][] = [
    [
      [...base, "--gitToken", "-", "--secret", "-"],
      { API_TOKEN: "x" },
      2,
      /Only one of --gitToken and --secret can be read from stdin/,
    ],
    [
      [...base, "--git-token-file", "token"],
      { API_TOKEN: TOKEN },
      2,
      /Give the git token once: both --git-token-file and \$API_TOKEN give it/,
    ],
    [
      [...base, "--gitToken", TOKEN],
      { TOOLKIT_GIT_TOKEN: TOKEN },
      2,
      /both --gitToken and \$TOOLKIT_GIT_TOKEN/,
    ],
    [[...base, "--git-token-file", "nope"], {}, 1, /Cannot read --git-token-file "nope"/],
    [
      [...base, "--gitToken", TOKEN, "--secret-file", "secret"],
      { WEBHOOK_SECRET: "x" },
      2,
      /Give the webhook secret once/,
    ],
  ];
  for (const [args, env, status, says] of refused) {
    const r = await cli.run(args, { env });
    assert.equal(r.status, status, `${args.join(" ")}: ${r.err}`);
    assert.match(r.err, says);
    assert.ok(!(r.out + r.err).includes(TOKEN));
  }
  assert.equal(host.hooks.length, 1);
});
