/**
 * The generated files (`deno task gen`) are in sync with their sources: the CRDs in
 * `deploy/crds/` and in the Helm chart, and the chart's copy of the release key.
 *
 * @module
 */
import assert from "node:assert/strict";
import { CHART_DIR, crdFiles, generatedFiles } from "./gen_crds.ts";

const ROOT = new URL("../", import.meta.url);

Deno.test("the generated files are up to date (run `deno task gen`)", async () => {
  for (const [path, text] of Object.entries(await generatedFiles())) {
    const onDisk = await Deno.readTextFile(new URL(path, ROOT));
    assert.equal(onDisk, text, path);
  }
});

Deno.test("deploy/crds and the chart's crds/ hold exactly the generated CRDs", async () => {
  const expected = Object.keys(crdFiles()).sort();
  for (const dir of ["deploy/crds", `${CHART_DIR}/crds`]) {
    const names: string[] = [];
    for await (const entry of Deno.readDir(new URL(`${dir}/`, ROOT))) names.push(entry.name);
    assert.deepEqual(names.sort(), expected, `${dir} has files no generator writes`);
  }
});
