/**
 * The git-host layer against every flavour: the real Gitea, and the stand-ins of the hosted APIs
 * (GitHub, GitHub Enterprise, GitLab with a subgroup, Bitbucket Cloud, and Gogs, which cannot be
 * built here): detection, default branch, files, an idempotent push hook with its secret in the
 * host's own field, and the errors of a refused token, a missing repository, a closed port and an
 * unknown host. `toolkit create-webhook` is run against each too: one hook with a URL, the real
 * hook id, and nothing added by a second run.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, freePort, GITEA_ADMIN, startGitea } from "../env/mod.ts";
import { type HostedKind, startHostedGit } from "../fakes/hosted_git.ts";
import { toolkit } from "../cli_dev/helpers.ts";
import {
  connectGitHost,
  detectGitFlavour,
  GitBranchNotFoundError,
  type GitFlavour,
  GitHostAuthError,
  GitHostNotFoundError,
  GitHostUnreachableError,
  parseGitUrl,
  UnknownGitHostError,
} from "../../lib/githost/mod.ts";

const TOKEN = "tok-0123456789abcdef";
const USER = "alice";
const FILES = { "package.json": "{}\n", "src/index.js": "1\n", Makefile: "all:\n" };

interface Case {
  kind: HostedKind;
  /** The repository URL's host: the real one for known hosts (with `apiBaseUrl`), else the stand-in. */
  knownHost?: string;
  path: string;
  /** Where the hook's secret is in the request body. */
  secretOf: (body: Record<string, unknown>) => unknown;
  /** Whether the hook's events say push. */
  pushEvent: string;
  /** The vendor's path of branch `main` (below the API base). */
  branchPath: string;
}

const CASES: Case[] = [
  {
    kind: "github",
    knownHost: "github.com",
    path: "octo/app",
    secretOf: (b) => (b.config as Record<string, unknown>).secret,
    pushEvent: "push",
    branchPath: "/repos/octo/app/branches/main",
  },
  {
    kind: "ghe",
    path: "octo/app",
    secretOf: (b) => (b.config as Record<string, unknown>).secret,
    pushEvent: "push",
    branchPath: "/api/v3/repos/octo/app/branches/main",
  },
  {
    kind: "gitlab",
    path: "platform/backend/app",
    secretOf: (b) => b.token,
    pushEvent: "push",
    branchPath: "/api/v4/projects/platform%2Fbackend%2Fapp/repository/branches/main",
  },
  {
    kind: "bitbucket",
    knownHost: "bitbucket.org",
    path: "team/app",
    secretOf: (b) => b.secret,
    pushEvent: "repo:push",
    branchPath: "/2.0/repositories/team/app/refs/branches/main",
  },
  {
    kind: "gogs",
    path: "octo/app",
    secretOf: (b) => (b.config as Record<string, unknown>).secret,
    pushEvent: "push",
    branchPath: "/api/v1/repos/octo/app/branches/main",
  },
];

function standIn(c: Case) {
  return startHostedGit(
    c.kind,
    { path: c.path, defaultBranch: "main", files: FILES },
    { username: USER, token: TOKEN },
  );
}

Deno.test("the git-host layer speaks each hosted flavour's API (stand-ins)", async (t) => {
  for (const c of CASES) {
    await t.step(c.kind, async () => {
      await using host = standIn(c);
      const url = parseGitUrl(
        `${c.knownHost ? `https://${c.knownHost}` : host.origin}/${c.path}.git`,
      );
      const options = {
        credentials: { username: USER, password: TOKEN },
        ...(c.knownHost ? { apiBaseUrl: host.apiBaseUrl } : {}),
      };
      assert.equal(await detectGitFlavour(url, options), c.kind as GitFlavour);
      const repo = await connectGitHost(url, options);
      try {
        assert.equal(await repo.defaultBranch(), "main");
        const files = await repo.listFiles("main");
        for (const f of ["Makefile", "package.json"]) {
          assert.ok(files.includes(f), `${f} in ${files}`);
        }
        assert.equal(await repo.readFile("main", "Makefile"), "all:\n");
        assert.equal(await repo.readFile("main", "missing.txt"), undefined);

        // The branch's head, from the vendor's branch endpoint; a missing branch named.
        assert.equal(await repo.branchHead("main"), host.head);
        assert.ok(
          host.requests.some((r) => r.method === "GET" && r.path === c.branchPath),
          host.requests.map((r) => r.path).join(", "),
        );
        await assert.rejects(
          repo.branchHead("feature/gone"),
          (e: unknown) =>
            e instanceof GitBranchNotFoundError && e.branch === "feature/gone" &&
            e.message.includes('"feature/gone"'),
        );

        // Three other hooks first, so that finding ours needs the second page.
        for (let i = 0; i < 3; i++) {
          await repo.ensurePushHook({ url: `https://other-${i}.example.com/hook`, secret: "x" });
        }
        const target = "https://listener.example.com/hooks/app";
        const first = await repo.ensurePushHook({ url: target, secret: "s3cret" });
        assert.equal(first.action, "created");
        const second = await repo.ensurePushHook({ url: target, secret: "s3cret" });
        assert.equal(second.action, "unchanged");
        assert.equal(second.hook.id, first.hook.id);
        const third = await repo.ensurePushHook({
          url: target,
          secret: "n3w",
          secretChanged: true,
        });
        assert.equal(third.action, "updated");
        assert.equal(host.hooks.filter((h) => h.url === target).length, 1);
        assert.equal(host.hooks.find((h) => h.url === target)?.secret, "n3w");
        assert.ok((await repo.listHooks()).some((h) => h.url === target));

        const created = host.requests.find((r) =>
          r.method === "POST" && JSON.stringify(r.body).includes(target)
        );
        const body = created!.body as Record<string, unknown>;
        assert.equal(c.secretOf(body), "s3cret");
        const hook = host.hooks.find((h) => h.url === target)!;
        assert.ok(hook.events.includes(c.pushEvent), hook.events.join());
        // Never the token in a request path.
        for (const r of host.requests) {
          assert.ok(!r.path.includes(TOKEN) && !r.search.includes(TOKEN));
        }
      } finally {
        repo.close();
      }

      // A refused token, and a repository that is not there.
      const refused = await connectGitHost(url, {
        ...options,
        credentials: { username: USER, password: "refused-token-42" },
        flavour: c.kind,
      });
      await assert.rejects(
        refused.defaultBranch(),
        (e: unknown) =>
          e instanceof GitHostAuthError && !e.message.includes("refused-token-42") &&
          /401/.test(e.message),
      );
      refused.close();
      const missing = await connectGitHost(parseGitUrl(`${url.protocol}://${url.host}/no/such`), {
        ...options,
        flavour: c.kind,
      });
      await assert.rejects(missing.defaultBranch(), GitHostNotFoundError);
      missing.close();
    });
  }

  await t.step("a closed port and an unknown host", async () => {
    const closed = parseGitUrl(`http://127.0.0.1:${freePort()}/o/r`);
    await assert.rejects(
      detectGitFlavour(closed, { credentials: { username: USER, password: TOKEN } }),
      GitHostUnreachableError,
    );
    await using plain = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Response("hello", { status: 200 }),
    );
    await assert.rejects(
      detectGitFlavour(parseGitUrl(`http://127.0.0.1:${plain.addr.port}/o/r`), {
        credentials: { username: USER, password: TOKEN },
      }),
      (e: unknown) => e instanceof UnknownGitHostError && /--git-host-type/.test(e.message),
    );
  });
});

Deno.test("toolkit create-webhook registers one hook with a URL on every hosted flavour", async (t) => {
  for (const c of CASES) {
    await t.step(c.kind, async () => {
      await using host = standIn(c);
      const gitUrl = `${c.knownHost ? `https://${c.knownHost}` : host.origin}/${c.path}`;
      const env = {
        JENKINS_URL: "https://jenkins.example.com",
        USER_NAME: USER,
        API_TOKEN: TOKEN,
        GIT_URL: gitUrl,
      };
      const args = [
        "create-webhook",
        "--jobName",
        "dev/app",
        ...(c.knownHost ? ["--git-api-url", host.apiBaseUrl] : []),
      ];
      const r = await toolkit([...args, "-o", "json"], env);
      assert.equal(r.status, 0, r.err);
      const out = JSON.parse(r.out);
      assert.equal(out.action, "created");
      assert.equal(host.hooks.length, 1);
      assert.ok(String(out.id).includes(String(host.hooks[0]!.id)), `the real hook id: ${out.id}`);
      const expected: Record<HostedKind, RegExp> = {
        github: /^https:\/\/jenkins\.example\.com\/github-webhook\/$/,
        ghe: /^https:\/\/jenkins\.example\.com\/github-webhook\/$/,
        gitlab: /^https:\/\/jenkins\.example\.com\/project\/dev\/app$/,
        bitbucket: /^https:\/\/jenkins\.example\.com\/bitbucket-hook\/$/,
        gogs:
          /^https:\/\/jenkins\.example\.com\/generic-webhook-trigger\/invoke\?token=[0-9a-f]{48}$/,
      };
      assert.match(host.hooks[0]!.url, expected[c.kind]);
      assert.ok(host.hooks[0]!.secret, "the hook has a secret");
      const again = await toolkit(args, env);
      assert.equal(again.status, 0, again.err);
      assert.match(again.out, /^Webhook unchanged: /);
      assert.equal(host.hooks.length, 1);
    });
  }
});

Deno.test({
  name: "the git-host layer on the real Gitea",
  ignore: e2eSkipReason(["gitea", "git"]) !== undefined,
  fn: async () => {
    await using gitea = await startGitea();
    const repo = await gitea.createRepo("layer-app", [
      { path: "go.mod", content: "module x\n" },
      { path: "cmd/x/main.go", content: "package main\n" },
    ]);
    const url = parseGitUrl(repo.cloneUrl);
    const options = { credentials: { username: GITEA_ADMIN.username, password: gitea.token } };
    assert.equal(await detectGitFlavour(url, options), "gitea");
    const host = await connectGitHost(url, options);
    try {
      assert.equal(await host.defaultBranch(), "main");
      assert.deepEqual(await host.listFiles("main"), ["cmd/x/main.go", "go.mod"]);
      assert.equal(await host.readFile("main", "go.mod"), "module x\n");
      assert.equal(await host.readFile("main", "nope"), undefined);
      const pushed = await gitea.pushCommit(repo, [{ path: "README.md", content: "# x\n" }]);
      assert.equal(await host.branchHead("main"), pushed);
      await assert.rejects(
        host.branchHead("feature/gone"),
        (e: unknown) => e instanceof GitBranchNotFoundError && e.branch === "feature/gone",
      );
      // A branch with a slash: its segments are the API path's.
      const slashed = await gitea.createRepo("layer-release", [{ path: "a", content: "a\n" }], {
        branch: "release/v1",
      });
      const release = await gitea.pushCommit(slashed, [{ path: "b", content: "b\n" }]);
      const other = await connectGitHost(parseGitUrl(slashed.cloneUrl), options);
      try {
        assert.equal(await other.branchHead("release/v1"), release);
      } finally {
        other.close();
      }
      const a = await host.ensurePushHook({ url: "https://l.example.com/h", secret: "s" });
      const b = await host.ensurePushHook({ url: "https://l.example.com/h", secret: "s" });
      assert.deepEqual([a.action, b.action], ["created", "unchanged"]);
      assert.equal((await host.listHooks()).length, 1);
    } finally {
      host.close();
    }
    const refused = await connectGitHost(url, {
      credentials: { username: GITEA_ADMIN.username, password: "wrong" },
      flavour: "gitea",
    });
    await assert.rejects(refused.defaultBranch(), GitHostAuthError);
    refused.close();
  },
});
