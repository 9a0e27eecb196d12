/** `toolkit git [remote]` end to end with real git repositories (no cluster needed). */
import assert from "node:assert/strict";
import { git, gitRepo, recordingBrowser, tempDir, toolkit } from "./helpers.ts";

Deno.test("git opens the web page of a remote, credentials stripped", async (t) => {
  await using dir = await tempDir();
  const repo = await gitRepo(`${dir.path}/repo`, "https://user:tok@github.com/MyOrg/My.Repo.git");
  await git(repo, "remote", "add", "upstream", "git@github.com:upstream-org/up-repo.git");
  await git(repo, "remote", "add", "lab", "ssh://git@gitlab.example.com:2222/group/sub/app.git");
  const browser = await recordingBrowser(dir.path);

  await t.step("--print prints the URL of origin", async () => {
    const r = await toolkit(["git", "--print"], {}, { cwd: repo });
    assert.equal(r.status, 0, r.err);
    assert.equal(r.out, "https://github.com/MyOrg/My.Repo\n");
  });

  await t.step("a named remote, -d, and ssh URLs", async () => {
    let r = await toolkit(["git", "upstream", "--print", "-d", "repo"], {}, { cwd: dir.path });
    assert.equal(r.out, "https://github.com/upstream-org/up-repo\n");
    r = await toolkit(["git", "lab", "--print", "-d", repo], {});
    assert.equal(r.out, "https://gitlab.example.com/group/sub/app\n");
  });

  await t.step("opens the browser of $BROWSER, else prints", async () => {
    let r = await toolkit(["git"], { BROWSER: browser.path }, { cwd: repo });
    assert.equal(r.status, 0, r.err);
    assert.equal(r.out, "");
    assert.match(r.err, /Opening git repo: https:\/\/github.com\/MyOrg\/My.Repo/);
    assert.deepEqual(await browser.calls(), ["https://github.com/MyOrg/My.Repo"]);
    assert.doesNotMatch(r.err, /tok/);
    r = await toolkit(["git"], { PATH: `${dir.path}/nothing-here` }, { cwd: repo });
    assert.equal(r.out, "https://github.com/MyOrg/My.Repo\n");
    assert.match(r.err, /No browser to open/);
  });

  await t.step("a failing browser command falls back to printing", async () => {
    const failing = `${dir.path}/failing`;
    await Deno.writeTextFile(failing, "#!/bin/sh\nexit 3\n");
    await Deno.chmod(failing, 0o755);
    const r = await toolkit(["git"], { BROWSER: failing }, { cwd: repo });
    assert.equal(r.status, 0);
    assert.equal(r.out, "https://github.com/MyOrg/My.Repo\n");
    assert.match(r.err, /failed \(exit 3\)/);
  });

  await t.step("outside a repository or with an unknown remote it fails clearly", async () => {
    let r = await toolkit(["git", "--print"], {}, { cwd: dir.path });
    assert.equal(r.status, 1);
    assert.match(r.err, /Cannot read the git repository in ".*": not a git repository/);
    r = await toolkit(["git", "nope", "--print"], {}, { cwd: repo });
    assert.equal(r.status, 1);
    assert.match(r.err, /Cannot read git remote "nope" in ".*repo": there is no such remote/);
    r = await toolkit(["git", "--print", "-d", `${dir.path}/missing`], {});
    assert.equal(r.status, 1);
    assert.match(r.err, /no such directory/);
  });
});
