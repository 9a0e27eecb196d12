/**
 * `toolkit yq` on real files through the CLI: igc's cases (§16 of the reference), comments,
 * anchors, multi-document files, flow and block styles kept byte for byte where nothing changes,
 * values that keep their text, created paths, `-i`, standard input, and bad input.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { bufferedIO } from "../../cli/io.ts";

async function yq(args: string[], options: { cwd: string; stdin?: string }) {
  const io = bufferedIO({ cwd: options.cwd, ...(options.stdin ? { stdin: options.stdin } : {}) });
  const status = await runCli(["yq", ...args], { io, programName: "toolkit" });
  return { status, out: io.out(), err: io.err() };
}

const VALUES = `# Values for the chart
image:
  repository: icr.io/app   # the registry
  tag: "1.0"
replicas: 2

defaults: &defaults
  timeout: 30
service:
  <<: *defaults
  port: 8080
list: [a, b]
dependencies:
- name: image
  version: 1.2.3
- name: db
  version: 9.1
`;

const MULTI = `# first
kind: A
spec:
  value: 1
---
# second
kind: B
spec:
  value: 2
`;

Deno.test("toolkit yq", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-yq-" });
  const cwd = dir;
  const write = (name: string, text: string) => Deno.writeTextFile(`${dir}/${name}`, text);
  const read = (name: string) => Deno.readTextFile(`${dir}/${name}`);
  try {
    await write("values.yaml", VALUES);
    await write("multi.yaml", MULTI);

    await t.step("w sets a scalar and keeps every other byte, 1.10 staying 1.10", async () => {
      const r = await yq(["w", "values.yaml", "image.tag", "1.10"], { cwd });
      assert.equal(r.status, 0, r.err);
      assert.equal(r.out, VALUES.replace('tag: "1.0"', 'tag: "1.10"'));
      const plain = await yq(["w", "values.yaml", "replicas", "3.0"], { cwd });
      assert.equal(plain.out, VALUES.replace("replicas: 2", "replicas: 3.0"));
    });

    await t.step("igc's JSONPath filters and wildcards", async () => {
      const r = await yq(
        ["w", "values.yaml", 'dependencies[?(@.name == "image")].version', "2.0.1"],
        { cwd },
      );
      assert.equal(r.out, VALUES.replace("version: 1.2.3", "version: 2.0.1"));
      const all = await yq(["w", "values.yaml", "dependencies[*].version", "0.1"], { cwd });
      assert.equal(
        all.out,
        VALUES.replace("version: 1.2.3", "version: 0.1").replace("version: 9.1", "version: 0.1"),
      );
      const list = await yq(["w", "values.yaml", "list[0]", "z"], { cwd });
      assert.equal(list.out, VALUES.replace("[a, b]", "[z, b]"));
    });

    await t.step("w makes missing keys and elements (igc silently did nothing)", async () => {
      const r = await yq(["w", "values.yaml", "x.y.z", "010"], { cwd });
      assert.equal(r.status, 0, r.err);
      assert.match(r.out, /\nx:\n {2}y:\n {4}z: "010"\n$/); // its text, so a string
      assert.match(r.out, /^# Values for the chart\n/);
      assert.match(r.out, /repository: icr\.io\/app +# the registry/);
      assert.match(r.out, /<<: \*defaults/);
      const element = await yq(["w", "values.yaml", "dependencies[name==cache].version", "7"], {
        cwd,
      });
      assert.match(element.out, /- name: cache\n {2}version: 7\n$/);
    });

    await t.step("--tag forces a type", async () => {
      assert.match(
        (await yq(["w", "values.yaml", "replicas", "3", "--tag", "!!str"], { cwd })).out,
        /replicas: "3"/,
      );
      assert.match(
        (await yq(["w", "values.yaml", "image.tag", "true", "--tag", "!!bool"], { cwd })).out,
        /tag: true/,
      );
      assert.equal(
        (await yq(["w", "values.yaml", "replicas", "x", "--tag", "!!int"], { cwd })).status,
        2,
      );
    });

    await t.step("-d picks a document; the other keeps its bytes", async () => {
      const r = await yq(["w", "multi.yaml", "spec.value", "5", "-d", "1"], { cwd });
      assert.equal(r.out, MULTI.replace("value: 2", "value: 5"));
      const all = await yq(["w", "multi.yaml", "spec.value", "9", "-d", "*"], { cwd });
      assert.equal(all.out, MULTI.replace("value: 1", "value: 9").replace("value: 2", "value: 9"));
      assert.equal((await yq(["r", "multi.yaml", "kind", "-d", "1"], { cwd })).out, "B\n");
      assert.equal((await yq(["r", "multi.yaml", "kind", "-d", "2"], { cwd })).status, 2);
    });

    await t.step("r, d, merge and new", async () => {
      assert.equal((await yq(["r", "values.yaml", "service.port"], { cwd })).out, "8080\n");
      assert.equal((await yq(["r", "values.yaml", "nope"], { cwd })).status, 1);
      const d = await yq(["d", "values.yaml", "replicas"], { cwd });
      assert.ok(!d.out.includes("replicas"));
      assert.match(d.out, /^# Values for the chart\n/);
      await write("extra.yaml", 'image:\n  tag: "2.0"\n  pullPolicy: Always\nnew: 1\n');
      const keep = await yq(["merge", "values.yaml", "extra.yaml"], { cwd });
      assert.match(keep.out, /tag: "1\.0"/);
      assert.match(keep.out, /pullPolicy: Always/);
      assert.match(keep.out, /\nnew: 1\n/);
      const overwrite = await yq(["merge", "-x", "values.yaml", "extra.yaml"], { cwd });
      assert.match(overwrite.out, /tag: "2\.0"/);
      assert.equal(
        (await yq(["new", "a.b[0].c", "1.10"], { cwd })).out,
        "a:\n  b:\n    - c: 1.10\n",
      );
    });

    await t.step("-i writes the file only when it changes, keeping its mode", async () => {
      await write("edit.yaml", VALUES);
      await Deno.chmod(`${dir}/edit.yaml`, 0o640);
      let r = await yq(["w", "-i", "edit.yaml", "replicas", "4"], { cwd });
      assert.equal(r.status, 0, r.err);
      assert.equal(r.out, "");
      assert.equal(await read("edit.yaml"), VALUES.replace("replicas: 2", "replicas: 4"));
      assert.equal((await Deno.stat(`${dir}/edit.yaml`)).mode! & 0o777, 0o640);
      r = await yq(["w", "-i", "edit.yaml", "replicas", "4"], { cwd });
      assert.match(r.err, /edit\.yaml unchanged/);
    });

    await t.step("standard input", async () => {
      const r = await yq(["w", "-", "a", "2"], { cwd, stdin: "a: 1 # keep\n" });
      assert.equal(r.out, "a: 2 # keep\n");
      assert.equal((await yq(["w", "-i", "-", "a", "2"], { cwd, stdin: "a: 1\n" })).status, 2);
    });

    await t.step("bad input: clear errors with exit 2 or 1", async () => {
      const cases: [string[], number, RegExp][] = [
        [["bogus", "values.yaml"], 2, /Unknown argument|Unknown command|Choose a command/],
        [["w", "missing.yaml", "a", "1"], 1, /Cannot read "missing\.yaml": no such file/],
        [["w", "values.yaml", "a[", "1"], 2, /at character 2: no closing \]/],
        [["w", "values.yaml", "list[5]", "1"], 2, /the sequence has 2 item/],
        [["w", "values.yaml"], 2, /Not enough|path/],
      ];
      await write("broken.yaml", "a: [1, 2\n");
      cases.push([["r", "broken.yaml"], 1, /Cannot parse "broken\.yaml"/]);
      for (const [args, status, message] of cases) {
        const r = await yq(args, { cwd });
        assert.equal(r.status, status, `${args.join(" ")}: ${r.err}`);
        assert.match(r.err, message, args.join(" "));
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
