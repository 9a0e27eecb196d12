import assert from "node:assert/strict";
import { bufferedIO } from "../io.ts";
import { run } from "./merge.ts";
import { commandContext } from "../context.ts";
import { bindOptions } from "../command.ts";
import { YQ_MERGE } from "./merge_command.ts";

const runMerge = bindOptions(YQ_MERGE, run);

async function merge(
  files: Record<string, string>,
  flags: { overwrite?: boolean; arrays?: string; doc?: string; comments?: string } = {},
): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-yq-merge-" });
  try {
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/${name}`, text);
    }
    const io = bufferedIO({ cwd: dir });
    await runMerge({ files: Object.keys(files), ...flags }, commandContext(io));
    return io.out();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const BASE = "# base\nimage:\n  tag: '1.0'   # pinned\nports:\n  - 80\n";
const OVER =
  "image:\n  tag: 1.10\n  # the registry\n  registry: icr.io\nports: [443]\nnew: {a: 010}\n";

Deno.test("merge adds what the first file lacks, comments and text included", async () => {
  assert.equal(
    await merge({ "base.yaml": BASE, "over.yaml": OVER }),
    "# base\nimage:\n  tag: '1.0'   # pinned\n  # the registry\n  registry: icr.io\nports:\n  - 80\nnew: {a: 010}\n",
  );
});

Deno.test("merge -x replaces values and sequences, -a appends to sequences", async () => {
  assert.equal(
    await merge({ "base.yaml": BASE, "over.yaml": OVER }, { overwrite: true }),
    "# base\nimage:\n  tag: 1.10   # pinned\n  # the registry\n  registry: icr.io\nports:\n  - 443\nnew: {a: 010}\n",
    "-x updates sequences item by item, as yq does",
  );
  assert.equal(
    await merge({ "base.yaml": BASE, "over.yaml": OVER }, { arrays: "append" }),
    "# base\nimage:\n  tag: '1.0'   # pinned\n  # the registry\n  registry: icr.io\nports:\n  - 80\n  - 443\nnew: {a: 010}\n",
  );
});

Deno.test("merge takes files in order, and documents by -d", async () => {
  assert.equal(
    await merge({ "a.yaml": "x: 1\n", "b.yaml": "y: 2\n", "c.yaml": "y: 3\nz: 4\n" }, {
      overwrite: true,
    }),
    "x: 1\ny: 3\nz: 4\n",
  );
  assert.equal(
    await merge({ "a.yaml": "x: 1\n---\nx: 2\n", "b.yaml": "y: 1\n---\ny: 2\n" }, { doc: "*" }),
    "x: 1\ny: 1\n---\nx: 2\ny: 1\n",
    "each file's first document goes into every chosen document, as in yq",
  );
  assert.equal(await merge({ "a.yaml": "", "b.yaml": "# b\ny: 2\n" }), "# b\ny: 2\n");
});

Deno.test("merge into a flow mapping writes the new entries on its line, without comments", async () => {
  assert.equal(
    await merge({ "a.yaml": "d: {e: f}\n", "b.yaml": "d:\n  # why\n  g: h # x\n" }),
    "d: {e: f, g: h}\n",
  );
});

Deno.test("merge -a overwrite replaces sequences, --autocreate=false adds no key", async () => {
  const files = { "a.yaml": "l: [1, 2, 3] # n\nk: v\n", "b.yaml": "l: [4, 5]\nnew: x\n" };
  assert.equal(await merge(files, { arrays: "overwrite" }), "l: [4, 5] # n\nk: v\nnew: x\n");
  assert.equal(await merge(files, { overwrite: true }), "l: [4, 5, 3] # n\nk: v\nnew: x\n");
  assert.equal(await merge(files), "l: [1, 2, 3] # n\nk: v\nnew: x\n");
  assert.equal(
    await merge({ ...files, "a.yaml": "l: [1]\n" }, { autocreate: false } as never),
    "l: [1, 5]\n",
    "sequences still grow",
  );
});

Deno.test("merge -x changes a value's characters and keeps its comment once", async () => {
  assert.equal(
    await merge({ "a.yaml": "a: y # s\n", "b.yaml": "a: z # t\n" }, { overwrite: true }),
    "a: z # s\n",
  );
  assert.equal(
    await merge({ "a.yaml": "a: y # s\n", "b.yaml": "a: z # t\n" }, {
      overwrite: true,
      comments: "append",
    }),
    "a: z # s # t\n",
  );
});
