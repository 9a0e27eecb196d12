import assert from "node:assert/strict";
import { bufferedIO } from "../io.ts";
import { UsageError } from "../../lib/errors.ts";
import { pathToChange, writeValue } from "./change.ts";
import { run } from "./write.ts";
import { parsePath } from "./path.ts";
import { commandContext } from "../context.ts";

const source = (text: string) => ({ name: "f.yaml", path: undefined, text });

Deno.test("writeValue() writes every match, creates what is missing, and counts the places", () => {
  const text = "# c\nl:\n  - v: 1\n  - v: 2\n";
  assert.deepEqual(writeValue(source(text), parsePath("l[*].v"), { text: "3.0" }, 0), {
    text: "# c\nl:\n  - v: 3.0\n  - v: 3.0\n",
    places: 2,
  });
  assert.deepEqual(writeValue(source(text), parsePath("m.n"), { text: "x" }, 0), {
    text: "# c\nl:\n  - v: 1\n  - v: 2\nm:\n  n: x\n",
    places: 1,
  });
  assert.deepEqual(writeValue(source(text), parsePath("q[*].v"), { text: "x" }, 0), {
    text,
    places: 1,
  });
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
  const options = {
    file: "-",
    path: "l[*].v",
    value: "1",
    inplace: false,
    doc: "0",
    tag: undefined,
    verbose: false,
    quiet: false,
  };
  let io = bufferedIO({ stdin: "l: []\n" });
  await run(options, commandContext(io));
  assert.equal(io.out(), "l: []\n");
  assert.match(io.err(), /warning: path "l\[\*\]\.v" matches nothing in "standard input"/);
  io = bufferedIO({ stdin: "l: []\n" });
  await run({ ...options, quiet: true }, commandContext(io));
  assert.equal(io.err(), "");
});
