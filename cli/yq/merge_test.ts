import assert from "node:assert/strict";
import { bufferedIO } from "../io.ts";
import { run } from "./merge.ts";
import { commandContext } from "../context.ts";

async function merge(
  files: Record<string, string>,
  flags: { overwrite?: boolean; append?: boolean; doc?: string } = {},
): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-yq-merge-" });
  try {
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/${name}`, text);
    }
    const io = bufferedIO({ cwd: dir });
    await run({
      files: Object.keys(files),
      inplace: false,
      doc: flags.doc ?? "0",
      overwrite: flags.overwrite ?? false,
      append: flags.append ?? false,
      verbose: false,
      quiet: false,
    }, commandContext(io));
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
    "# base\nimage:\n  tag: 1.10   # pinned\n  # the registry\n  registry: icr.io\nports: [443]\nnew: {a: 010}\n",
  );
  assert.equal(
    await merge({ "base.yaml": BASE, "over.yaml": OVER }, { append: true }),
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
    "x: 1\ny: 1\n---\nx: 2\ny: 2\n",
  );
  assert.equal(await merge({ "a.yaml": "", "b.yaml": "# b\ny: 2\n" }), "# b\ny: 2\n");
});

Deno.test("merge into a flow mapping writes the new entries on its line, without comments", async () => {
  assert.equal(
    await merge({ "a.yaml": "d: {e: f}\n", "b.yaml": "d:\n  # why\n  g: h # x\n" }),
    "d: {e: f, g: h}\n",
  );
});
