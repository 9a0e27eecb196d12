/**
 * `toolkit enable` against a local HTTP server that serves a pipelines index and real tarballs
 * made here with the system `tar czf`: the files are added, a second run changes nothing, the index
 * is read whatever its content type, changed files are overwritten only with --force, a dirty
 * working tree is refused, and hostile archives (`..`, absolute paths, links) are refused with
 * nothing written.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { bufferedIO } from "../../cli/io.ts";
import { git } from "../cli_dev/helpers.ts";
import { namesIn, readOnlyDir } from "../env/files.ts";
import { commandContext } from "../../cli/context.ts";

async function sh(cwd: string, ...args: string[]) {
  const out = await new Deno.Command(args[0]!, {
    args: args.slice(1),
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

async function tarball(
  work: string,
  name: string,
  files: Record<string, string>,
): Promise<Uint8Array> {
  const dir = `${work}/src-${name}`;
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.writeTextFile(`${dir}/${path}`, text);
  }
  await sh(dir, "tar", "czf", `${work}/${name}.tar.gz`, ".");
  return await Deno.readFile(`${work}/${name}.tar.gz`);
}

const INDEX = (base: string) =>
  `version: v2
branches:
  stable:
    nodejs:
      - {url: ${base}/stable/nodejs-1.0.0.tar.gz, name: nodejs, version: latest}
      - {url: ${base}/stable/nodejs-1.0.0.tar.gz, name: nodejs, version: 1.0.0}
      - {url: ${base}/stable/nodejs-0.9.0.tar.gz, name: nodejs, version: 0.9.0}
    java:
      - {url: ${base}/stable/java-1.0.0.tar.gz, name: java, version: latest}
    hostile:
      - {url: ${base}/stable/dotdot.tar.gz, name: hostile, version: dotdot}
      - {url: ${base}/stable/absolute.tar.gz, name: hostile, version: absolute}
      - {url: ${base}/stable/symlink.tar.gz, name: hostile, version: symlink}
      - {url: ${base}/stable/hardlink.tar.gz, name: hostile, version: hardlink}
`;

Deno.test("toolkit enable", async (t) => {
  const work = await Deno.makeTempDir({ prefix: "toolkit-enable-" });
  try {
    const archives = new Map<string, Uint8Array>();
    archives.set(
      "nodejs-1.0.0",
      await tarball(work, "nodejs-1.0.0", {
        Jenkinsfile: "pipeline {}\n",
        Dockerfile: "FROM node:20\n",
        "chart/app/Chart.yaml": "name: app\n",
      }),
    );
    archives.set("nodejs-0.9.0", await tarball(work, "nodejs-0.9.0", { Jenkinsfile: "old\n" }));
    // Hostile archives, made as an attacker would.
    await Deno.mkdir(`${work}/h/sub`, { recursive: true });
    await Deno.writeTextFile(`${work}/h/evil`, "evil\n");
    await sh(`${work}/h/sub`, "tar", "czPf", `${work}/dotdot.tar.gz`, "../evil");
    await sh(work, "tar", "czPf", `${work}/absolute.tar.gz`, `${work}/h/evil`);
    await Deno.symlink("/etc/passwd", `${work}/h/link`);
    await sh(`${work}/h`, "tar", "czf", `${work}/symlink.tar.gz`, "link");
    await Deno.link(`${work}/h/evil`, `${work}/h/hard`);
    await sh(`${work}/h`, "tar", "czf", `${work}/hardlink.tar.gz`, "evil", "hard");
    for (const n of ["dotdot", "absolute", "symlink", "hardlink"]) {
      archives.set(n, await Deno.readFile(`${work}/${n}.tar.gz`));
    }

    let indexType = "text/yaml";
    let port = 0;
    await using server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (req): Response => {
        const path = new URL(req.url).pathname;
        if (path === "/pipelines/index.yaml") {
          return new Response(INDEX(`http://127.0.0.1:${port}/pipelines`), {
            headers: { "Content-Type": indexType },
          });
        }
        const m = /^\/pipelines\/stable\/(.+)\.tar\.gz$/.exec(path);
        const body = m && archives.get(m[1]!);
        return body
          ? new Response(body as Uint8Array<ArrayBuffer>, {
            headers: { "Content-Type": "application/gzip", "Content-Length": String(body.length) },
          })
          : new Response("not found", { status: 404 });
      },
    );
    port = server.addr.port;
    const repo = `http://127.0.0.1:${port}/pipelines/`;
    const app = `${work}/app`;
    await Deno.mkdir(app);
    await git(app, "init", "-q", "-b", "main");
    await Deno.writeTextFile(`${app}/README.md`, "# app\n");
    await git(app, "add", ".");
    await git(app, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "init");
    const enable = async (args: string[]) => {
      const io = bufferedIO({ cwd: app });
      const status = await runCli(["enable", "--repo", repo, ...args], commandContext(io));
      return { status, out: io.out(), err: io.err() };
    };

    await t.step("the pipeline's files are added, completely, before anything else", async () => {
      const r = await enable(["-p", "nodejs", "-o", "json"]);
      assert.equal(r.status, 0, r.err);
      const report = JSON.parse(r.out);
      assert.deepEqual(report.added.sort(), ["Dockerfile", "Jenkinsfile", "chart/app/Chart.yaml"]);
      assert.equal(await Deno.readTextFile(`${app}/chart/app/Chart.yaml`), "name: app\n");
      await git(app, "add", ".");
      await git(app, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "pipeline");
    });

    await t.step("a second run changes nothing, whatever the index's content type", async () => {
      indexType = "application/octet-stream";
      const r = await enable(["-p", "nodejs"]);
      assert.equal(r.status, 0, r.err);
      assert.match(r.out, /No files were changed in your repo/);
      assert.match(r.out, /unchanged +Jenkinsfile/);
    });

    await t.step("nothing is written through a symbolic link of the directory", async () => {
      await Deno.remove(`${app}/Dockerfile`);
      await Deno.symlink(`${work}/outside-target`, `${app}/Dockerfile`);
      const r = await enable(["-p", "nodejs", "--force"]);
      assert.equal(r.status, 1, r.err);
      assert.match(r.err, /Dockerfile is a symbolic link in the directory/);
      assert.ok(!(await Deno.stat(`${work}/outside-target`).catch(() => undefined)));
      await Deno.remove(`${app}/Dockerfile`);
      await git(app, "checkout", "--", "Dockerfile");
    });

    await t.step(
      "a changed file is overwritten only with --force; a dirty tree is refused",
      async () => {
        let r = await enable(["-p", "nodejs", "-r", "0.9.0"]);
        assert.equal(r.status, 2);
        assert.match(r.err, /These files exist with other content: Jenkinsfile; pass --force/);
        assert.equal(await Deno.readTextFile(`${app}/Jenkinsfile`), "pipeline {}\n");
        await Deno.writeTextFile(`${app}/README.md`, "# changed\n");
        r = await enable(["-p", "nodejs"]);
        assert.equal(r.status, 2);
        assert.match(r.err, /uncommitted changes: commit or stash them first, or pass --force/);
        r = await enable(["-p", "nodejs", "-r", "0.9.0", "--force"]);
        assert.equal(r.status, 0, r.err);
        assert.match(r.out, /changed +Jenkinsfile/);
        assert.equal(await Deno.readTextFile(`${app}/Jenkinsfile`), "old\n");
      },
    );

    await t.step(
      "a read-only directory fails clearly (exit 1) and no file is changed, not even elsewhere",
      async () => {
        await Deno.writeTextFile(`${app}/chart/app/Chart.yaml`, "name: mine\n");
        {
          await using _ = await readOnlyDir(`${app}/chart/app`);
          const r = await enable(["-p", "nodejs", "--force"]);
          assert.equal(r.status, 1, r.err);
          assert.match(
            r.err,
            /Cannot write "chart\/app\/Chart.yaml": its directory ".*chart\/app" cannot be written/,
          );
          assert.equal(await Deno.readTextFile(`${app}/chart/app/Chart.yaml`), "name: mine\n");
          assert.equal(await Deno.readTextFile(`${app}/Jenkinsfile`), "old\n", "not renamed");
          assert.deepEqual(await namesIn(`${app}/chart/app`), ["Chart.yaml"]);
        }
        await Deno.writeTextFile(`${app}/chart/app/Chart.yaml`, "name: app\n");
      },
    );

    await t.step("hostile archives are refused and nothing is written", async () => {
      for (
        const [version, message] of [
          ["dotdot", /out of the directory/],
          ["absolute", /absolute path/],
          ["symlink", /symlink to \/etc\/passwd/],
          ["hardlink", /a link to evil/],
        ] as const
      ) {
        const r = await enable(["-p", "hostile", "-r", version, "--force"]);
        assert.equal(r.status, 1, `${version}: ${r.err}`);
        assert.match(r.err, message, version);
        assert.ok(!(await Deno.stat(`${app}/evil`).catch(() => undefined)), version);
      }
      assert.ok(!(await Deno.stat(`${work}/evil`).catch(() => undefined)));
    });

    await t.step(
      "unknown branch, pipeline or release say which exist; no -p without a terminal",
      async () => {
        const cases: [string[], number, RegExp][] = [
          [
            ["-p", "nodejs", "-b", "beta", "--force"],
            1,
            /no pipelines for branch "beta": its branches are stable/,
          ],
          [["-p", "go", "--force"], 1, /no pipeline "go": it has nodejs, java, hostile/],
          [
            ["-p", "nodejs", "-r", "2.0.0", "--force"],
            1,
            /no release "2\.0\.0": it has latest, 1\.0\.0, 0\.9\.0/,
          ],
          [["--force"], 2, /Choose the pipeline with -p: nodejs, java, hostile/],
          [["-p", "java", "--force"], 1, /HTTP 404/],
        ];
        for (const [args, status, message] of cases) {
          const r = await enable(args);
          assert.equal(r.status, status, `${args.join(" ")}: ${r.err}`);
          assert.match(r.err, message, args.join(" "));
        }
      },
    );
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
