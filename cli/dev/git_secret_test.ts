/**
 * `toolkit git-secret` (and what it shares with `toolkit gitops`, whose own tests are
 * `gitops_test.ts`) in-process, against the in-memory API server of
 * `tests/fakes/kube_api.ts` and real git repositories: their flags, their bad input, the
 * questions asked on a terminal and the result of each object. The end-to-end test against a real
 * API server is `tests/cli_dev/git_secret_test.ts`.
 */
import assert from "node:assert/strict";
import { CONFIG_MAPS, NAMESPACES, SECRETS } from "../../lib/kube/mod.ts";
import { decodeBase64Text } from "../../lib/base64.ts";
import { type FakeCli, fakeCli, type RunOptions } from "../../tests/fakes/cli.ts";
import { canary } from "../../tests/fakes/secret_canary.ts";
import { gitRepo } from "../../tests/env/git_repo.ts";
import { CANCEL } from "../../tests/fakes/terminal.ts";

function secretData(cli: FakeCli, ns: string): Record<string, string> {
  const data = (cli.kube.get(SECRETS, ns, "git-credentials")?.data ?? {}) as Record<string, string>;
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, decodeBase64Text(v)]));
}

function configData(cli: FakeCli, ns: string, name: string): Record<string, string> {
  return (cli.kube.get(CONFIG_MAPS, ns, name)?.data ?? {}) as Record<string, string>;
}

async function setUp(...namespaces: string[]): Promise<{ cli: FakeCli; repo: string }> {
  const cli = await fakeCli();
  for (const name of namespaces) cli.kube.seed(NAMESPACES, { metadata: { name } });
  const repo = await gitRepo(`${cli.dir}/repo`, "https://github.com/MyOrg/My.Repo.git");
  return { cli, repo };
}

Deno.test("git-secret stores the credentials Secret and the repository ConfigMap", async () => {
  const { cli, repo } = await setUp("dev");
  await using _ = cli;
  const r = await cli.run(["git-secret", "-n", "dev", "-u", "alice", "-p", "tok1", "-d", repo]);
  assert.equal(r.status, 0, r.err);
  assert.match(r.err, /Project git repo: https:\/\/github.com\/MyOrg\/My.Repo/);
  assert.match(r.err, /Branch: main/);
  const secret = cli.kube.get(SECRETS, "dev", "git-credentials");
  assert.equal(secret?.type, "kubernetes.io/basic-auth");
  assert.deepEqual(secretData(cli, "dev"), { username: "alice", password: "tok1" });
  assert.equal(secret?.metadata.annotations?.["tekton.dev/git-0"], "https://github.com");
  assert.deepEqual(cli.kube.get(CONFIG_MAPS, "dev", "myorg-my-repo")?.data, {
    url: "https://github.com/MyOrg/My.Repo",
    host: "github.com",
    org: "MyOrg",
    owner: "MyOrg",
    repo: "My.Repo",
    branch: "main",
    protocol: "https",
  });

  const again = await cli.run(["git-secret", "-n", "dev", "-d", repo, "-o", "json"]);
  assert.equal(again.status, 0, again.err);
  assert.match(again.err, /Git credentials have already been stored for user: alice/);
  const report = JSON.parse(again.out);
  assert.equal(report.namespace, "dev");
  assert.equal(report.url, "https://github.com/MyOrg/My.Repo");
  assert.deepEqual(
    report.results.map((x: Record<string, string>) => `${x.kind} ${x.name} ${x.outcome}`),
    ["ConfigMap myorg-my-repo unchanged", "Secret git-credentials unchanged"],
  );
});

Deno.test("git-secret never silently replaces credentials given on the command line", async () => {
  const { cli, repo } = await setUp("dev");
  await using _ = cli;
  await cli.run(["git-secret", "-n", "dev", "-u", "alice", "-p", "tok1", "-d", repo]);
  const r = await cli.run(["git-secret", "-n", "dev", "-u", "bob", "-p", "tok2", "-d", repo]);
  assert.equal(r.status, 2, "a usage error: --replace on the command line replaces them");
  assert.match(
    r.err,
    /Secret "dev\/git-credentials" already holds credentials for user "alice"; pass --replace/,
  );
  assert.deepEqual(secretData(cli, "dev"), { username: "alice", password: "tok1" });
  const replaced = await cli.run([
    "git-secret",
    "-n",
    "dev",
    "-u",
    "bob",
    "-p",
    "tok2",
    "-d",
    repo,
    "--replace",
  ]);
  assert.equal(replaced.status, 0, replaced.err);
  assert.match(replaced.err, /Secret "dev\/git-credentials" updated/);
  assert.deepEqual(secretData(cli, "dev"), { username: "bob", password: "tok2" });
});

Deno.test("git-secret: the name positional, --values and the context's namespace", async () => {
  await using cli = await fakeCli({ contexts: [{ name: "fake", namespace: "dev2" }] });
  cli.kube.seed(NAMESPACES, { metadata: { name: "dev2" } });
  const other = await gitRepo(
    `${cli.dir}/other`,
    "http://git.local:3000/team/app.git",
    "feature/x",
  );
  await Deno.writeTextFile(`${cli.dir}/values.yaml`, "# extra\nfoo: bar\nport: 8080\n");
  const r = await cli.run(
    ["git-secret", "My_Name", "-u", "u", "-p", "p", "-d", "other", "--values", "values.yaml"],
  );
  assert.equal(r.status, 0, r.err);
  const cm = configData(cli, "dev2", "my-name");
  assert.equal(cm.url, "http://git.local:3000/team/app");
  assert.equal(cm.branch, "feature/x");
  assert.deepEqual(secretData(cli, "dev2"), {
    foo: "bar",
    port: "8080",
    username: "u",
    password: "p",
  });
  const unnamed = await cli.run(["git-secret", "-d", other]);
  assert.equal(unnamed.status, 0, unnamed.err);
  assert.ok(cli.kube.get(CONFIG_MAPS, "dev2", "team-app-feature-x"));
});

Deno.test("git-secret asks for what is missing on a terminal, and only there", async () => {
  const { cli, repo } = await setUp("dev");
  await using _ = cli;
  const r = await cli.run(["git-secret", "-n", "dev", "-d", repo], {
    answers: ["carol", "s3cret"],
  });
  assert.equal(r.status, 0, r.err);
  assert.deepEqual(r.asked, [
    "Provide the git username:",
    "Provide the git password or personal access token:",
  ]);
  assert.deepEqual(secretData(cli, "dev"), { username: "carol", password: "s3cret" });
  assert.doesNotMatch(r.err + r.out, /s3cret/);
});

Deno.test("git-secret and gitops: a write the API server refuses fails the command", async () => {
  const { cli, repo } = await setUp("dev");
  await using _ = cli;
  cli.kube.refuse({ method: "PATCH", type: SECRETS, namespace: "dev" });
  const r = await cli.run(["git-secret", "-n", "dev", "-u", "a", "-p", "b", "-d", repo]);
  assert.equal(r.status, 1);
  assert.match(r.err, /Cannot apply Secret "dev\/git-credentials": .*denied the request/);
});

Deno.test("git-secret and gitops: bad input fails with a clear message and writes nothing", async () => {
  const { cli, repo } = await setUp("dev5");
  await using _ = cli;
  let r = await cli.run(["git-secret", "-n", "dev5", "-d", repo]);
  assert.equal(r.status, 2);
  assert.match(r.err, /The git username is missing: pass -u\/--gitUsername \(there is no terminal/);
  r = await cli.run(["git-secret", "-n", "dev5", "-u", "x", "-d", repo]);
  assert.equal(r.status, 2);
  assert.match(
    r.err,
    /The git password or token is missing: pass --git-token-file FILE, set TOOLKIT_GIT_TOKEN or give -p - \(stdin\)/,
  );
  r = await cli.run(["git-secret", "Not a name!", "-n", "dev5", "-d", repo]);
  assert.equal(r.status, 2);
  r = await cli.run(["git-secret", "-n", "nope", "-u", "x", "-p", "y", "-d", repo]);
  assert.equal(r.status, 1);
  assert.match(r.err, /Cannot find namespace "nope"/);
  await Deno.mkdir(`${cli.dir}/plain`);
  r = await cli.run(["git-secret", "-n", "dev5", "-u", "x", "-p", "y", "-d", `${cli.dir}/plain`]);
  assert.equal(r.status, 1);
  assert.match(r.err, /Cannot read the git repository in ".*plain": not a git repository/);
  r = await cli.run(["gitops", "not a url", "-n", "dev5"]);
  assert.equal(r.status, 2);
  r = await cli.run(["git-secret", "-n", "dev5", "-d", repo, "--values", "missing.yaml"]);
  assert.notEqual(r.status, 0);
  assert.deepEqual(cli.kube.writes(), []);
});

Deno.test("Ctrl-C at git-secret's question exits 130 and writes nothing", async () => {
  const { cli, repo } = await setUp("dev");
  await using _ = cli;
  const r = await cli.run(["git-secret", "-n", "dev", "-d", repo], { answers: [CANCEL] });
  assert.equal(r.status, 130, r.err);
  assert.deepEqual(r.asked, ["Provide the git username:"]);
  assert.match(r.err, /cancelled/);
  assert.doesNotMatch(r.err, /--help/);
  assert.equal(cli.kube.get(SECRETS, "dev", "git-credentials"), undefined);
});

Deno.test("git-secret asks before replacing credentials on a terminal", async () => {
  const { cli, repo } = await setUp("dev");
  await using _ = cli;
  await cli.run(["git-secret", "-n", "dev", "-u", "alice", "-p", "tok1", "-d", repo]);
  const args = ["git-secret", "-n", "dev", "-u", "bob", "-p", "tok2", "-d", repo];
  const no = await cli.run(args, { answers: [false] });
  assert.equal(no.status, 2, no.err);
  assert.match(
    no.asked[0]!,
    /Secret "dev\/git-credentials" already holds credentials for user "alice". Replace it\?/,
  );
  assert.match(no.err, /was left as it is/);
  assert.deepEqual(secretData(cli, "dev"), { username: "alice", password: "tok1" });
  const yes = await cli.run(args, { answers: [true] });
  assert.equal(yes.status, 0, yes.err);
  assert.deepEqual(secretData(cli, "dev"), { username: "bob", password: "tok2" });
});

Deno.test("git-secret's and gitops' --help say what they do", async () => {
  const { cli, repo } = await setUp("dev", "ops");
  await using _ = cli;
  // Help wraps its lines: read it as one.
  const help = (await cli.run(["git-secret", "--help"])).out.replace(/\s+/g, " ");
  // The ConfigMap's default name, as help writes it, is the one git-secret creates.
  const pattern = /default: <org>-<repo> of the repository, lower case/;
  assert.match(help, pattern);
  assert.match(help, /-n, --namespace <string> The namespace of the Secret git-credentials/);
  const r = await cli.run(["git-secret", "-n", "dev", "-u", "a", "-p", "b", "-d", repo]);
  assert.equal(r.status, 0, r.err);
  assert.ok(cli.kube.get(CONFIG_MAPS, "dev", "myorg-my-repo"), "<org>-<repo>, lower case");
  assert.ok(cli.kube.get(SECRETS, "dev", "git-credentials"));

  const gitopsHelp = (await cli.run(["gitops", "--help"])).out.replace(/\s+/g, " ");
  assert.match(gitopsHelp, /where the ConfigMap gitops-repo and the Secret git-credentials go/);
  const g = await cli.run([
    "gitops",
    "https://github.com/org/ops#main",
    "-n",
    "ops",
    "-u",
    "a",
    "-p",
    "b",
  ]);
  assert.equal(g.status, 0, g.err);
  assert.ok(cli.kube.get(CONFIG_MAPS, "ops", "gitops-repo"), "-n is where gitops-repo goes");
  assert.ok(cli.kube.get(SECRETS, "ops", "git-credentials"));
});

Deno.test("git-secret and gitops take the token from --git-token-file, TOOLKIT_GIT_TOKEN or -p -, and warn once for -p TOKEN", async () => {
  const { cli, repo } = await setUp("dev", "ops");
  await using _ = cli;
  const token = canary();
  await Deno.writeTextFile(`${cli.dir}/token`, `${token}\n`);
  const base = ["git-secret", "-n", "dev", "-u", "alice", "-d", repo, "--replace", "-v"];
  const sources: [string, string[], RunOptions][] = [
    ["--git-token-file", [...base, "--git-token-file", "token"], {}],
    ["TOOLKIT_GIT_TOKEN", base, { env: { TOOLKIT_GIT_TOKEN: token } }],
    ["-p - (stdin)", [...base, "-p", "-"], { stdin: `${token}\n` }],
    ["-p - (terminal)", [...base, "-p", "-"], { answers: [token] }],
    [
      "gitops --gitPat -",
      ["gitops", "https://github.com/org/ops#main", "-n", "ops", "-u", "bob", "--gitPat", "-"],
      { stdin: token },
    ],
  ];
  for (const [what, argv, options] of sources) {
    const r = await cli.run(argv, options);
    assert.equal(r.status, 0, `${what}: ${r.err}`);
    assert.doesNotMatch(r.err, /warning: the git token/, what);
    assert.ok(!(r.out + r.err).includes(token), `${what}: the token was printed`);
    if (options.answers) assert.deepEqual(r.asked, ["The git token:"]);
    const ns = argv[0] === "gitops" ? "ops" : "dev";
    assert.equal(secretData(cli, ns).password, token, what);
    if (ns === "dev") {
      await cli.run(["git-secret", "-n", "dev", "-u", "x", "-p", "y", "-d", repo, "--replace"]);
    }
  }

  const url = await cli.run([
    "gitops",
    `https://bob:${token}@github.com/org/ops#main`,
    "-n",
    "ops",
    "--replace",
  ]);
  assert.equal(url.status, 0, url.err);
  assert.equal(url.err.match(/warning: the git token given as the URL's user:token@/g)?.length, 1);
  assert.ok(!(url.out + url.err).includes(token), url.err);
  assert.equal(secretData(cli, "ops").password, token);

  const argument = await cli.run([...base, "-p", token]);
  assert.equal(argument.status, 0, argument.err);
  assert.equal(argument.err.match(/warning: the git token/g)?.length, 1, argument.err);
  assert.match(
    argument.err,
    /given as -p\/--gitPat's value .* pass --git-token-file FILE, set TOOLKIT_GIT_TOKEN, or give -p - to read it/,
  );
  assert.ok(!(argument.out + argument.err).includes(token));
  assert.equal(secretData(cli, "dev").password, token);
});

Deno.test("git-secret: two token sources, an unreadable token file or a terminal on stdin are refused before anything is reached", async () => {
  const { cli, repo } = await setUp("dev");
  await using _ = cli;
  const token = canary();
  await Deno.writeTextFile(`${cli.dir}/token`, token);
  await Deno.writeTextFile(`${cli.dir}/empty`, "\n");
  const base = ["git-secret", "-n", "dev", "-u", "alice", "-d", repo, "-v"];
  const cases: [string[], RunOptions, number, RegExp][] = [
    [
      [...base, "-p", token, "--git-token-file", "token"],
      {},
      2,
      /Give the git token once: both -p\/--gitPat and --git-token-file give it/,
    ],
    [
      [...base, "-p", "-"],
      { env: { TOOLKIT_GIT_TOKEN: token }, stdin: token },
      2,
      /both -p\/--gitPat - and \$TOOLKIT_GIT_TOKEN/,
    ],
    [
      [...base, "--git-token-file", "empty"],
      {},
      1,
      /Cannot use --git-token-file "empty": it is empty/,
    ],
    [[...base, "--git-token-file", "nope"], {}, 1, /Cannot read --git-token-file "nope"/],
    [
      [...base, "-p", "-"],
      { stdinIsTerminal: true },
      2,
      /-p - reads the git token from standard input, which is a terminal/,
    ],
    [[...base, "-p", "-"], { stdin: "" }, 1, /Cannot use standard input: it is empty/],
  ];
  for (const [argv, options, status, says] of cases) {
    const r = await cli.run(argv, options);
    assert.equal(r.status, status, `${argv.join(" ")}\n${r.err}`);
    assert.match(r.err, says);
    assert.ok(!(r.out + r.err).includes(token), r.err);
  }
  assert.deepEqual(cli.kube.requests, [], "the API server was not reached");
});
