/**
 * `toolkit yq` end to end: the real CLI on real files (no cluster needed). Every edit is
 * checked byte for byte against the original text with only the changed part replaced, so
 * comments, blank lines, quoting, anchors, flow and block styles and the other documents of
 * the file are shown to stay as they were. The igc cases are those of the reference, §16.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { bufferedIO } from "../../cli/io.ts";
import { tempDir } from "../cli_dev/helpers.ts";
import { namesIn, readOnlyDir } from "../env/files.ts";
import { commandContext } from "../../cli/context.ts";

/** Runs `toolkit ARGS` in-process in `cwd`, with `stdin`. */
async function toolkit(args: string[], options: { cwd?: string; stdin?: string } = {}) {
  const io = bufferedIO(options);
  const status = await runCli(args, commandContext(io));
  return { status, out: io.out(), err: io.err() };
}

/** A Helm values file as people write them: comments, blank lines, quotes, anchors, flows. */
const VALUES = `# Default values for app.
# This is a YAML-formatted file.

replicaCount: 1

image:
  repository: icr.io/team/app   # the registry path
  tag: "1.9"
  pullPolicy: IfNotPresent

resources: &res
  limits: {cpu: 100m, memory: 128Mi}
  requests:
    cpu: 50m

sidecar:
  resources: *res
  args: ["--port", '8080']

dependencies:
- name: image
  version: 0.1.0
- name: n
  version: 2.0.0 # pinned

notes: |
  Line one
  Line two
`;

/** `text` with the first `from` replaced by `to` (failing the test when it is absent). */
function replaced(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `the text holds ${JSON.stringify(from)}`);
  return text.replace(from, () => to);
}

Deno.test("yq w: the igc cases of the reference, each fixed", async (t) => {
  await using dir = await tempDir("toolkit-yq-");
  const file = `${dir.path}/values.yaml`;
  await Deno.writeTextFile(file, VALUES);

  await t.step("1.10 stays 1.10 and 3.0 stays 3.0 (igc wrote 1.1 and 3)", async () => {
    let r = await toolkit(["yq", "w", file, "replicaCount", "3.0"]);
    assert.equal(r.status, 0, r.err);
    assert.equal(r.out, replaced(VALUES, "replicaCount: 1\n", "replicaCount: 3.0\n"));
    r = await toolkit(["yq", "w", file, "image.tag", "1.10"]);
    assert.equal(r.out, replaced(VALUES, 'tag: "1.9"', 'tag: "1.10"'), "a string stays a string");
  });

  await t.step("010 and true are written as typed; --tag '!!str' makes them strings", async () => {
    let r = await toolkit(["yq", "w", file, "replicaCount", "010"]);
    assert.equal(r.out, replaced(VALUES, "replicaCount: 1\n", "replicaCount: 010\n"));
    r = await toolkit(["yq", "w", file, "replicaCount", "true", "--tag", "!!str"]);
    assert.equal(r.out, replaced(VALUES, "replicaCount: 1\n", 'replicaCount: "true"\n'));
    r = await toolkit(["yq", "w", file, "extra", "010", "--tag", "!!str"]);
    assert.equal(r.out, `${VALUES}extra: "010"\n`);
  });

  await t.step(
    "comments, formatting and the key n are kept (igc dropped them, quoted 'n')",
    async () => {
      const r = await toolkit(["yq", "w", file, "dependencies[1].version", "2.1.0"]);
      assert.equal(r.out, replaced(VALUES, "version: 2.0.0 # pinned", "version: 2.1.0 # pinned"));
      assert.ok(r.out.endsWith("  Line two\n"), "no blank line added at the end (igc added one)");
    },
  );

  await t.step("igc's JSONPath filters and lodash paths work", async () => {
    let r = await toolkit(["yq", "w", file, 'dependencies[?(@.name == "image")].version', "0.2.0"]);
    assert.equal(r.out, replaced(VALUES, "version: 0.1.0", "version: 0.2.0"));
    r = await toolkit(["yq", "w", file, "$.dependencies[*].version", "1.0.0"]);
    assert.equal(
      r.out,
      replaced(
        replaced(VALUES, "version: 0.1.0", "version: 1.0.0"),
        "version: 2.0.0 #",
        "version: 1.0.0 #",
      ),
    );
    r = await toolkit(["yq", "w", file, "dependencies[0].name", "img"]);
    assert.equal(r.out, replaced(VALUES, "- name: image", "- name: img"));
  });

  await t.step("missing keys are created (igc silently did nothing)", async () => {
    const r = await toolkit(["yq", "w", file, "ingress.hosts[0].host", "app.example.com"]);
    assert.equal(r.out, `${VALUES}ingress:\n  hosts:\n  - host: app.example.com\n`);
    const added = await toolkit(["yq", "w", file, "dependencies[name==chart].version", "1.0"]);
    assert.equal(
      added.out,
      replaced(
        VALUES,
        "  version: 2.0.0 # pinned\n",
        "  version: 2.0.0 # pinned\n- name: chart\n  version: 1.0\n",
      ),
    );
  });

  await t.step("-i writes the file and prints nothing", async () => {
    const r = await toolkit(["yq", "w", "-i", file, "image.pullPolicy", "Always"]);
    assert.equal(r.status, 0, r.err);
    assert.equal(r.out, "");
    assert.equal(
      await Deno.readTextFile(file),
      replaced(VALUES, "pullPolicy: IfNotPresent", "pullPolicy: Always"),
    );
    await Deno.writeTextFile(file, VALUES);
  });

  await t.step(
    "an unknown subcommand and a missing file are errors (igc: exit 0, a stack)",
    async () => {
      let r = await toolkit(["yq", "frob", file]);
      assert.equal(r.status, 2);
      assert.match(r.err, /Unknown command "frob"/);
      r = await toolkit(["yq", "w", `${dir.path}/missing.yaml`, "a", "1"]);
      assert.equal(r.status, 1);
      assert.equal(r.err, `error: Cannot read "${dir.path}/missing.yaml": no such file\n`);
      assert.equal(r.out, "");
    },
  );
});

Deno.test("yq keeps anchors, aliases, flow and block styles, and the other documents", async (t) => {
  await using dir = await tempDir("toolkit-yq-");
  const file = `${dir.path}/values.yaml`;
  await Deno.writeTextFile(file, VALUES);

  await t.step("a value under an anchor changes in place; the alias follows it", async () => {
    const r = await toolkit(["yq", "w", file, "resources.requests.cpu", "75m"]);
    assert.equal(r.out, replaced(VALUES, "cpu: 50m", "cpu: 75m"));
    const read = await toolkit(["yq", "r", "-"], { stdin: r.out });
    assert.match(read.out, /cpu: 75m/);
    const alias = await toolkit(["yq", "r", file, "sidecar.resources.requests.cpu"]);
    assert.equal(alias.out, "50m\n");
  });

  await t.step("writing through an alias is refused: it would change every use", async () => {
    const r = await toolkit(["yq", "w", file, "sidecar.resources.requests.cpu", "1"]);
    assert.equal(r.status, 1);
    assert.match(
      r.err,
      /"sidecar\.resources" is an alias \(\*res\); change the node its anchor \(&res\) is on/,
    );
  });

  await t.step("flow collections get entries in flow style, keeping their quotes", async () => {
    let r = await toolkit(["yq", "w", file, "resources.limits.gpu", "1"]);
    assert.equal(
      r.out,
      replaced(VALUES, "{cpu: 100m, memory: 128Mi}", "{cpu: 100m, memory: 128Mi, gpu: 1}"),
    );
    r = await toolkit(["yq", "w", file, "sidecar.args[+]", "--", "--debug"]);
    assert.equal(r.out, replaced(VALUES, `["--port", '8080']`, `["--port", '8080', --debug]`));
    r = await toolkit(["yq", "w", file, "sidecar.args[1]", "9090"]);
    assert.equal(r.out, replaced(VALUES, `'8080'`, `'9090'`));
    r = await toolkit(["yq", "d", file, "sidecar.args[0]"]);
    assert.equal(r.out, replaced(VALUES, `["--port", '8080']`, `['8080']`));
  });

  await t.step("a literal block stays a block for several lines", async () => {
    const r = await toolkit(["yq", "w", file, "notes", "One\nTwo\nThree\n"]);
    assert.equal(r.out, replaced(VALUES, "  Line one\n  Line two\n", "  One\n  Two\n  Three\n"));
  });

  await t.step("deleting keeps the neighbours, their comments and blank lines", async () => {
    let r = await toolkit(["yq", "d", file, "image.tag"]);
    assert.equal(r.out, replaced(VALUES, '  tag: "1.9"\n', ""));
    r = await toolkit(["yq", "d", file, "dependencies[name==image]"]);
    assert.equal(r.out, replaced(VALUES, "- name: image\n  version: 0.1.0\n", ""));
    r = await toolkit(["yq", "d", file, "resources"]);
    assert.equal(r.status, 1);
    assert.match(r.err, /an alias elsewhere in the document refers to an anchor that would go/);
  });

  await t.step(
    "a multi-document file keeps every document; -d picks, -d '*' takes all",
    async () => {
      const stream = "# one\nkind: A\nspec: {}\n---\n# two\nkind: B\n...\n---\nkind: C # three\n";
      const multi = `${dir.path}/multi.yaml`;
      await Deno.writeTextFile(multi, stream);
      let r = await toolkit(["yq", "w", multi, "-d", "1", "spec.x", "1"]);
      assert.equal(r.out, replaced(stream, "kind: B\n", "kind: B\nspec:\n  x: 1\n"));
      r = await toolkit(["yq", "w", multi, "-d", "*", "kind", "Z"]);
      assert.equal(
        r.out,
        stream.replace("kind: A", "kind: Z").replace("kind: B", "kind: Z").replace(
          "kind: C",
          "kind: Z",
        ),
      );
      r = await toolkit(["yq", "r", multi, "-d", "*", "kind"]);
      assert.equal(r.out, "A\nB\nC\n");
      r = await toolkit(["yq", "r", multi, "-d", "2"]);
      assert.equal(r.out, "kind: C # three\n");
      r = await toolkit(["yq", "r", multi, "-d", "5"]);
      assert.equal(r.status, 1);
      assert.match(
        r.err,
        /Cannot find document 5 of ".*multi\.yaml": it has 3 documents \(0 to 2\)/,
      );
    },
  );

  await t.step("a JSON file stays JSON", async () => {
    const json = `${dir.path}/package.json`;
    const text = '{\n  "name": "app",\n  "version": "1.2.2",\n  "deps": {"a": "^1"}\n}\n';
    await Deno.writeTextFile(json, text);
    const r = await toolkit(["yq", "w", json, "version", "1.10"]);
    assert.equal(r.out, replaced(text, '"1.2.2"', '"1.10"'));
    const added = await toolkit(["yq", "w", json, "scripts.test", "deno test"]);
    assert.equal(
      added.out,
      replaced(text, '{"a": "^1"}\n', '{"a": "^1"},\n  "scripts": {"test": "deno test"}\n'),
    );
    assert.deepEqual(JSON.parse(added.out).scripts, { test: "deno test" });
    const flag = await toolkit(["yq", "w", json, "deps.b", "yes"]);
    assert.deepEqual(JSON.parse(flag.out).deps, { a: "^1", b: "yes" });
  });

  await t.step("CRLF files keep their line ends", async () => {
    const crlf = `${dir.path}/crlf.yaml`;
    await Deno.writeTextFile(crlf, "a: 1\r\nb:\r\n  c: 2\r\n");
    const r = await toolkit(["yq", "w", crlf, "b.d.e", "3"]);
    assert.equal(r.out, "a: 1\r\nb:\r\n  c: 2\r\n  d:\r\n    e: 3\r\n");
  });
});

Deno.test("yq r, d, merge and new from the command line", async (t) => {
  await using dir = await tempDir("toolkit-yq-");
  const file = `${dir.path}/values.yaml`;
  await Deno.writeTextFile(file, VALUES);

  await t.step("r prints scalars as text and blocks as their lines", async () => {
    assert.equal((await toolkit(["yq", "r", file, "image.tag"])).out, "1.9\n");
    assert.equal((await toolkit(["yq", "r", file, "dependencies[*].name"])).out, "image\nn\n");
    assert.equal(
      (await toolkit(["yq", "r", file, "image"])).out,
      'repository: icr.io/team/app   # the registry path\ntag: "1.9"\npullPolicy: IfNotPresent\n',
    );
    assert.equal((await toolkit(["yq", "r", file, "nothing.here"])).out, "");
    const piped = await toolkit(["yq", "r"], { stdin: "a:\n  b: 1.10\n" });
    assert.equal(piped.out, "a:\n  b: 1.10\n");
    assert.equal(
      (await toolkit(["yq", "read", "-", "a.b"], { stdin: "a:\n  b: 1.10\n" })).out,
      "1.10\n",
    );
  });

  await t.step("w and d read standard input with -", async () => {
    const r = await toolkit(["yq", "w", "-", "a.b", "--", "-x"], { stdin: "a: {}\n" });
    assert.equal(r.out, "a:\n  b: -x\n");
    const d = await toolkit(["yq", "d", "-", "a.b"], { stdin: "a:\n  b: 1\n  c: 2\n" });
    assert.equal(d.out, "a:\n  c: 2\n");
  });

  await t.step("merge deep-merges into the first file; -i writes it", async () => {
    const over = `${dir.path}/over.yaml`;
    await Deno.writeTextFile(over, "image:\n  tag: 2.0.0\n  digest: sha256:abc\nreplicaCount: 2\n");
    let r = await toolkit(["yq", "merge", file, over]);
    assert.equal(
      r.out,
      replaced(
        VALUES,
        "  pullPolicy: IfNotPresent\n",
        "  pullPolicy: IfNotPresent\n  digest: sha256:abc\n",
      ),
    );
    r = await toolkit(["yq", "m", "-x", "-i", file, over]);
    assert.equal(r.status, 0, r.err);
    assert.equal(
      await Deno.readTextFile(file),
      replaced(
        replaced(
          replaced(VALUES, "replicaCount: 1", "replicaCount: 2"),
          'tag: "1.9"',
          "tag: 2.0.0",
        ),
        "  pullPolicy: IfNotPresent\n",
        "  pullPolicy: IfNotPresent\n  digest: sha256:abc\n",
      ),
    );
    await Deno.writeTextFile(file, VALUES);
  });

  await t.step("new prints a new document", async () => {
    const r = await toolkit(["yq", "new", "spec.containers[name==app].image", "app:1.10"]);
    assert.equal(r.out, "spec:\n  containers:\n    - name: app\n      image: app:1.10\n");
  });

  await t.step("-i writes nothing when nothing changes, and keeps the mode", async () => {
    await Deno.chmod(file, 0o600);
    const before = await Deno.stat(file);
    let r = await toolkit(["yq", "w", "-i", file, "image.tag", "1.9"]);
    assert.equal(r.status, 0, r.err);
    assert.equal((await Deno.stat(file)).ino, before.ino, "not rewritten");
    r = await toolkit(["yq", "d", "-i", file, "missing"]);
    assert.equal((await Deno.stat(file)).ino, before.ino, "not rewritten");
    r = await toolkit(["yq", "w", "-i", file, "image.tag", "2.0"]);
    const after = await Deno.stat(file);
    assert.notEqual(after.ino, before.ino);
    assert.equal(after.mode! & 0o777, 0o600);
  });

  await t.step("-i and m -i write through a symbolic link, which stays a link", async () => {
    await Deno.mkdir(`${dir.path}/chart`);
    await Deno.writeTextFile(`${dir.path}/chart/values.yaml`, VALUES);
    await Deno.symlink("chart/values.yaml", `${dir.path}/link.yaml`);
    let r = await toolkit(["yq", "w", "-i", "link.yaml", "image.tag", "3.0"], { cwd: dir.path });
    assert.equal(r.status, 0, r.err);
    await Deno.writeTextFile(`${dir.path}/over.yaml`, "replicaCount: 3\n");
    r = await toolkit(["yq", "m", "-x", "-i", "link.yaml", "over.yaml"], { cwd: dir.path });
    assert.equal(r.status, 0, r.err);
    assert.ok((await Deno.lstat(`${dir.path}/link.yaml`)).isSymlink);
    const text = await Deno.readTextFile(`${dir.path}/chart/values.yaml`);
    assert.match(text, /tag: "3.0"/);
    assert.match(text, /replicaCount: 3/);
    assert.deepEqual(await namesIn(`${dir.path}/chart`), ["values.yaml"]);
  });

  await t.step("-i in a read-only directory fails clearly (exit 1) and loses nothing", async () => {
    const before = await Deno.readTextFile(`${dir.path}/chart/values.yaml`);
    await using _ = await readOnlyDir(`${dir.path}/chart`);
    for (
      const args of [["w", "-i", "link.yaml", "image.tag", "4"], ["d", "-i", "link.yaml", "image"]]
    ) {
      const r = await toolkit(["yq", ...args], { cwd: dir.path });
      assert.equal(r.status, 1, r.err);
      assert.match(r.err, /Cannot write "link.yaml": its directory ".*chart" cannot be written/);
    }
    assert.equal(await Deno.readTextFile(`${dir.path}/chart/values.yaml`), before);
    assert.deepEqual(await namesIn(`${dir.path}/chart`), ["values.yaml"]);
  });
});

Deno.test("yq refuses bad input clearly", async () => {
  await using dir = await tempDir("toolkit-yq-");
  const file = `${dir.path}/values.yaml`;
  await Deno.writeTextFile(file, VALUES);
  await Deno.writeTextFile(`${dir.path}/bad.yaml`, "a: 1\n---\nb: [1,\n");
  const cases: [string[], number, RegExp][] = [
    [
      ["yq", "w", file, "a..b", "1"],
      2,
      /Cannot read path "a\.\.b": recursive descent \(\.\.\) is not supported at character 2/,
    ],
    [["yq", "w", file, "a[name!=x].b", "1"], 2, /only == is supported at character 7/],
    [["yq", "r", file, 'a."b'], 2, /unterminated double quote at character 3/],
    [["yq", "w", file, "", "1"], 2, /Give the path/],
    [["yq", "w", file, ".", "1"], 2, /the document itself cannot be written/],
    [
      ["yq", "w", file, "replicaCount", "many", "--tag", "!!int"],
      2,
      /"many" is not an integer \(--tag !!int\)/,
    ],
    [["yq", "w", file, "a", "1", "--tag", "int"], 2, /--tag must be a YAML tag/],
    [["yq", "w", "-i", "-", "a", "1"], 2, /standard input cannot be edited in place/],
    [["yq", "w", file, "-d", "x", "a", "1"], 2, /-d must be a document number/],
    [["yq", "w", file, "image.tag.x", "1"], 1, /"image\.tag" holds a string, which has no keys/],
    [["yq", "w", file, "dependencies[7].x", "1"], 1, /"dependencies" has 2 items, not \[7\]/],
    [
      ["yq", "r", `${dir.path}/bad.yaml`],
      1,
      /Cannot read ".*bad\.yaml": invalid YAML in document 2 at line 4/,
    ],
    [["yq", "r", dir.path], 1, /it is a directory/],
    [["yq"], 2, /Not enough non-option arguments|Choose a command/],
    [["yq", "w", file], 2, /Give the path \(or --script\)/],
  ];
  for (const [args, status, message] of cases) {
    const r = await toolkit(args);
    assert.equal(r.status, status, `${args.join(" ")}: ${r.err}`);
    assert.match(r.err, message, args.join(" "));
    assert.equal(r.out, "", args.join(" "));
  }
  assert.equal(await Deno.readTextFile(file), VALUES, "nothing was written");
});

Deno.test("yq --help lists the subcommands and examples", async () => {
  const r = await toolkit(["yq", "--help"]);
  assert.equal(r.status, 0);
  for (
    const usage of [
      "r [file] [path]",
      "w <file> [path] [value]",
      "d <file> <path>",
      "merge <files..>",
      "new [path] [value]",
      "prefix <file> <path>",
      "compare <file1> <file2> [path]",
      "validate <file> [path]",
    ]
  ) {
    assert.ok(r.out.includes(`toolkit yq ${usage}`), usage);
  }
  assert.match(r.out, /yq w values\.yaml image\.tag 1\.10 -i/);
  const w = await toolkit(["yq", "w", "--help"]);
  assert.match(w.out, /-i, --inplace/);
  assert.match(w.out, /--tag/);
});
