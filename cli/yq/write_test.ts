import assert from "node:assert/strict";
import { bufferedIO } from "../io.ts";
import { UsageError } from "../../lib/errors.ts";
import { pathToChange, writeValue } from "./change.ts";
import { run } from "./write.ts";
import { parsePath } from "./path.ts";
import { commandContext } from "../context.ts";
import { bindOptions } from "../command.ts";
import { YQ_WRITE } from "./write_command.ts";

const runWrite = bindOptions(YQ_WRITE, run);

const source = (text: string) => ({ name: "f.yaml", path: undefined, text });

Deno.test("writeValue() writes every match, creates what is missing, and counts the places", () => {
  const text = "# c\nl:\n  - v: 1\n  - v: 2\n";
  assert.deepEqual(writeValue(source(text), parsePath("l[*].v"), { text: "3.0" }, 0), {
    text: "# c\nl:\n  - v: 3.0\n  - v: 3.0\n",
    places: 2,
    paths: ["l[0].v", "l[1].v"],
  });
  assert.deepEqual(writeValue(source(text), parsePath("m.n"), { text: "x" }, 0), {
    text: "# c\nl:\n  - v: 1\n  - v: 2\nm:\n  n: x\n",
    places: 1,
    paths: ["m.n (new)"],
  });
  assert.deepEqual(writeValue(source(text), parsePath("q[*].v"), { text: "x" }, 0), {
    text,
    places: 0,
    paths: [],
  }, "a * where nothing is creates nothing, and says so");
});

Deno.test("writeValue() gives a stream without documents one", () => {
  assert.equal(writeValue(source(""), parsePath("a.b"), { text: "1" }, 0).text, "a:\n  b: 1\n");
  assert.equal(
    writeValue(source("# only a comment"), parsePath("a"), { text: "1" }, 0).text,
    "# only a comment\na: 1\n",
  );
  assert.equal(writeValue(source(""), parsePath("l[*]"), { text: "1" }, 0).text, "");
});

Deno.test("pathToChange() refuses the document itself", () => {
  assert.deepEqual(pathToChange("a", "write"), parsePath("a"));
  assert.throws(
    () => pathToChange("$", "delete"),
    (e: unknown) =>
      e instanceof UsageError && /the document itself cannot be deleted/.test(e.message),
  );
});

Deno.test("yq w warns when a path matches nothing, unless --quiet", async () => {
  const options = { file: "-", path: "l[*].v", value: "1" };
  let io = bufferedIO({ stdin: "l: []\n" });
  await runWrite(options, commandContext(io));
  assert.equal(io.out(), "l: []\n");
  assert.match(io.err(), /warning: path "l\[\*\]\.v" matches nothing in "standard input"/);
  io = bufferedIO({ stdin: "l: []\n" });
  await runWrite({ ...options, quiet: true }, commandContext(io));
  assert.equal(io.err(), "");
});

Deno.test("yq w -v lists what it wrote and created", async () => {
  const io = bufferedIO({ stdin: "a: {x: 1}\nb: {y: 2}\n" });
  await runWrite({ file: "-", path: "*.x", value: "3", verbose: true }, commandContext(io));
  assert.equal(io.out(), "a: {x: 3}\nb: {y: 2, x: 3}\n");
  assert.equal(io.err(), "written: a.x\nwritten: b.x (new)\n");
});

Deno.test("yq w writes with --style, --anchorName, --makeAlias, [] and {}, and re-tags", async () => {
  const write = async (stdin: string, args: Record<string, unknown>) => {
    const io = bufferedIO({ stdin });
    await runWrite({ file: "-", ...args }, commandContext(io));
    return io.out();
  };
  assert.equal(await write("a: 1\n", { path: "a", value: "x", style: "double" }), 'a: "x"\n');
  assert.equal(await write("a: 1\n", { path: "a", value: "x", style: "folded" }), "a: >-\n  x\n");
  assert.equal(
    await write("a: 1\n", { path: "a", value: "5", style: "tagged" }),
    "a: !!int 5\n",
  );
  assert.equal(await write("a: 1\n", { path: "b", value: "[]" }), "a: 1\nb: []\n");
  assert.equal(await write("a: 1\n", { path: "b", value: "{}" }), "a: 1\nb: {}\n");
  assert.equal(await write("a: 1\n", { path: "b", value: "{}", tag: "!!str" }), 'a: 1\nb: "{}"\n');
  assert.equal(
    await write("a: &x 1\n", { path: "b", value: "x", makeAlias: true }),
    "a: &x 1\nb: *x\n",
  );
  assert.equal(await write("a: 1\n", { path: "a", value: "2", anchorName: "n" }), "a: &n 2\n");
  assert.equal(
    await write("x: &x 1\na: &y !!str 2 # c\n", { path: "a", value: "x", makeAlias: true }),
    "x: &x 1\na: *x # c\n",
    "an alias takes the place of the old anchor and tag",
  );
  assert.equal(await write("a: yes\nb: 1\n", { path: "*", tag: "!!str" }), 'a: "yes"\nb: "1"\n');
  assert.equal(await write("a: x\n", { path: "a", style: "single" }), "a: 'x'\n");
  assert.equal(await write("a: x\n", { path: "a", value: "y", tag: "!mine" }), "a: !mine y\n");
});
