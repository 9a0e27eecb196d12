/**
 * `toolkit yq` end to end, beyond yq's own tests: every path form yq v3 documents on `r`, `w`
 * and `d` (and `new`, `prefix`), each checked byte for byte against the file with only the
 * changed part replaced; the no-op class (for every command, a path that matches nothing is
 * reported: `r` prints nothing and exits 0 as yq did, `-e` makes it fail, `w` and `d` warn and
 * list with `-v`, `new` and `prefix` refuse what they cannot make); the text kept by `prefix`,
 * `merge --comments` and tag-only writes (comments, CRLF line ends, a missing final newline);
 * and yq's spellings of flags (`-d*`, `-ppv`, `-c=false`, a global flag before the command).
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { bufferedIO } from "../../cli/io.ts";
import { commandContext } from "../../cli/context.ts";
import { tempDir } from "../env/files.ts";

/** Runs `toolkit yq ARGS` in-process in `cwd`, with `stdin`. */
async function yq(args: string[], options: { cwd?: string; stdin?: string } = {}) {
  const io = bufferedIO(options);
  const status = await runCli(["yq", ...args], commandContext(io));
  return { status, out: io.out(), err: io.err() };
}

/** `text` with the first `from` replaced by `to` (failing the test when it is absent). */
function replaced(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `the text holds ${JSON.stringify(from)}`);
  return text.replace(from, () => to);
}

const TEXT = `# services
svc:
  web:
    image: nginx:1.25 # pinned
    ports: [80, 443]
  worker:
    image: "busybox:1.36"
  webhook:
    image: app:2
people:
  - name: fred # the first
    age: 31
    pets: [cat, dog]
  - name: sam
    age: 40
    pets: [rat]
  - name: fernie
    age: 12
animals:
  - cat
  - dog
state:
  country:
    city: foo
"a.b": dotted
`;

Deno.test("r, w and d take every path form yq v3 documents, and keep the rest byte for byte", async (t) => {
  await using dir = await tempDir("toolkit-yq-forms-");
  const file = `${dir.path}/v.yaml`;
  await Deno.writeTextFile(file, TEXT);
  const r = async (path: string, ...flags: string[]) => (await yq(["r", file, path, ...flags])).out;
  const w = async (path: string, value: string) => (await yq(["w", file, path, value])).out;
  const d = async (path: string) => (await yq(["d", file, path])).out;

  await t.step("keys, indexes from either end, [+], quoted keys", async () => {
    assert.equal(await r("svc.web.image"), "nginx:1.25\n");
    assert.equal(await r("people[-1].name"), "fernie\n");
    assert.equal(await r("people.[1].name"), "sam\n");
    assert.equal(await r('"a.b"'), "dotted\n");
    assert.equal(
      await w("people[+].name", "ann"),
      replaced(TEXT, "    age: 12\n", "    age: 12\n  - name: ann\n"),
    );
    assert.equal(
      await d("people[-2]"),
      replaced(TEXT, "  - name: sam\n    age: 40\n    pets: [rat]\n", ""),
    );
  });

  await t.step("globs inside a key, *, and ** at any depth", async () => {
    assert.equal(await r("svc.web*.image"), "nginx:1.25\napp:2\n");
    assert.equal(
      await r("svc.*.image", "-ppv"),
      'svc.web.image: nginx:1.25 # pinned\nsvc.worker.image: "busybox:1.36"\nsvc.webhook.image: app:2\n',
    );
    assert.equal(await r("**.city"), "foo\n");
    assert.equal(
      await w("svc.web*.image", "x"),
      replaced(replaced(TEXT, "image: nginx:1.25 #", "image: x #"), "image: app:2", "image: x"),
    );
    assert.equal(
      await d("**.age"),
      TEXT.replace("    age: 31\n", "").replace("    age: 40\n", "").replace("    age: 12\n", ""),
    );
    assert.equal(
      await d("svc.w*"),
      replaced(TEXT, TEXT.slice(TEXT.indexOf("svc:"), TEXT.indexOf("people:")), "svc: {}\n"),
      "a mapping that loses every key is {}",
    );
  });

  await t.step(
    "filters in both spellings, with a path, a glob, or . for the item itself",
    async () => {
      assert.equal(await r("people(name==f*).age"), "31\n12\n");
      assert.equal(await r("people.(name==sam).age"), "40\n");
      assert.equal(await r("people[name==sam].age"), "40\n");
      assert.equal(await r("people(pets.*==dog).name"), "fred\n");
      assert.equal(await r("animals(.==d*)"), "dog\n");
      assert.equal(await r("(**.city==foo)", "-p", "p"), "state\n");
      assert.equal(await w("people(name==sam).age", "41"), replaced(TEXT, "age: 40", "age: 41"));
      assert.equal(await d("animals(.==cat)"), replaced(TEXT, "  - cat\n", ""));
      assert.equal(
        await d("people(name==f*)"),
        replaced(
          replaced(TEXT, "  - name: fred # the first\n    age: 31\n    pets: [cat, dog]\n", ""),
          "  - name: fernie\n    age: 12\n",
          "",
        ),
      );
    },
  );
});

Deno.test("a path that matches nothing is reported, by every command", async (t) => {
  await using dir = await tempDir("toolkit-yq-forms-");
  const file = `${dir.path}/v.yaml`;
  await Deno.writeTextFile(file, TEXT);
  const other = `${dir.path}/o.yaml`;
  await Deno.writeTextFile(other, "x: 1\n");

  await t.step("r prints nothing and exits 0, as yq; -v says so, -e fails", async () => {
    for (const path of ["nope", "svc.zz*", "people(name==zed)", "**.nope", "animals[x]"]) {
      let res = await yq(["r", file, path]);
      assert.deepEqual([res.status, res.out, res.err], [0, "", ""], path);
      res = await yq(["r", "-v", file, path]);
      assert.match(res.err, /matches nothing/, path);
      res = await yq(["r", "-e", file, path]);
      assert.equal(res.status, 1, path);
      assert.match(res.err, /No matches found/, path);
    }
  });

  await t.step("w and d change nothing and warn; -v lists what they did", async () => {
    for (
      const [cmd, args] of [["w", ["svc.zz*.image", "x"]], ["d", ["people(name==zed)"]]] as const
    ) {
      let res = await yq([cmd, file, ...args]);
      assert.equal(res.status, 0);
      assert.equal(res.out, TEXT);
      assert.match(res.err, /warning: path ".*" matches nothing in ".*v\.yaml"; nothing was/);
      res = await yq([cmd, "--quiet", file, ...args]);
      assert.equal(res.err, "");
    }
    // -v's first line says which toolkit runs what, where; then what was done.
    const afterFirstLine = (text: string) => text.slice(text.indexOf("\n") + 1);
    let res = await yq(["d", "-v", file, "**.age"]);
    assert.match(res.err, /^toolkit \S+: toolkit yq d in /);
    assert.equal(
      afterFirstLine(res.err),
      "deleted: people[0].age\ndeleted: people[1].age\ndeleted: people[2].age\n",
    );
    res = await yq(["w", "-v", file, "svc.*.tag", "1"]);
    assert.equal(
      afterFirstLine(res.err),
      "written: svc.web.tag (new)\nwritten: svc.worker.tag (new)\nwritten: svc.webhook.tag (new)\n",
    );
  });

  await t.step("new and prefix refuse a path that cannot make anything, naming where", async () => {
    let res = await yq(["new", "a.*.b", "1"]);
    assert.equal(res.status, 2);
    assert.match(
      res.err,
      /Cannot create "a\.\*\.b": \* matches what exists and makes nothing \(at "a\.\*"\)/,
    );
    res = await yq(["prefix", file, "a(b==c)"]);
    assert.equal(res.status, 2);
    assert.match(res.err, /a prefix is keys, \[0\] and \[\+\], not \[b==c\] \(at "a\[b==c\]"\)/);
  });

  await t.step(
    "compare says on stderr where the path matches nothing; validate fails",
    async () => {
      let res = await yq(["compare", file, other, "nope"]);
      assert.deepEqual([res.status, res.out], [0, ""]);
      assert.match(res.err, /matches nothing in ".*v\.yaml"/);
      res = await yq(["validate", file, "nope"]);
      assert.equal(res.status, 1);
      assert.match(res.err, /path "nope" matches nothing/);
      res = await yq(["validate", file, "svc"]);
      assert.equal(res.status, 0);
    },
  );
});

Deno.test("prefix, merge --comments and tag-only writes keep the rest of the file", async () => {
  await using dir = await tempDir("toolkit-yq-forms-");
  const crlf = `${dir.path}/crlf.yaml`;
  await Deno.writeTextFile(crlf, "# head\r\na: 1 # one\r\nb:\r\n  - x\r\n");
  let res = await yq(["prefix", crlf, "top.inner"]);
  assert.equal(res.out, "# head\r\ntop:\r\n  inner:\r\n    a: 1 # one\r\n    b:\r\n      - x\r\n");
  const bare = `${dir.path}/bare.yaml`;
  await Deno.writeTextFile(bare, "a: 'q' # c\nb: yes");
  res = await yq(["prefix", bare, "[+]"]);
  assert.equal(res.out, "- a: 'q' # c\n  b: yes", "no final newline is added");
  res = await yq(["w", bare, "b", "--tag", "!!str"]);
  assert.equal(res.out, "a: 'q' # c\nb: 'yes'", "quoted as the file quotes");
  res = await yq(["w", bare, "a", "--style", "double"]);
  assert.equal(res.out, 'a: "q" # c\nb: yes');

  const over = `${dir.path}/over.yaml`;
  await Deno.writeTextFile(over, "a: z # from over\nb: no # why\nc: new # added\n");
  res = await yq(["merge", bare, over]);
  assert.equal(res.out, "a: 'q' # c\nb: yes # why\nc: new # added\n");
  res = await yq(["merge", "-x", "--comments", "ignore", bare, over]);
  assert.equal(res.out, "a: z # c\nb: no\nc: new\n");
});

Deno.test("yq's spellings of flags mean what they meant in yq", async () => {
  await using dir = await tempDir("toolkit-yq-forms-");
  const file = `${dir.path}/m.yaml`;
  await Deno.writeTextFile(file, "k: 1\n---\nk: 2\n");
  assert.equal((await yq(["r", "-d*", file, "k"])).out, "1\n2\n");
  assert.equal((await yq(["r", "-d1", file, "k"])).out, "2\n");
  assert.equal((await yq(["r", "-ppv", file, "k"])).out, "k: 1\n");
  assert.equal((await yq(["-j", "r", file])).out, '{"k":1}\n', "a global flag before the command");
  assert.equal((await yq(["r", "-jPI4", "-d*", file])).out, '{\n    "k": 1\n}\n{\n    "k": 2\n}\n');
  const res = await yq(["r", "-df", file]);
  assert.equal(res.status, 2);
  assert.match(res.err, /-d must be a document number \(0 is the first\) or '\*', not "f"/);
  const a = `${dir.path}/a.yaml`;
  const b = `${dir.path}/b.yaml`;
  await Deno.writeTextFile(a, "x: 1\n");
  await Deno.writeTextFile(b, "y: 2\n");
  assert.equal((await yq(["m", "-c=false", a, b])).out, "x: 1\n");
  assert.equal((await yq(["m", a, b])).out, "x: 1\ny: 2\n");
});
