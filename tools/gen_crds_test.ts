/**
 * The generated files (`deno task gen`) are in sync with their sources: the CRDs in
 * `deploy/crds/` and in the Helm chart, and the chart's copy of the release key.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  CHART_DIR,
  crdFiles,
  generatedFiles,
  POLICY_REPORT_CRDS_DIR,
  policyReportCrdFiles,
} from "./gen_crds.ts";
import { crdsDir } from "../tests/env/tools.ts";

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
    for await (const entry of Deno.readDir(new URL(`${dir}/`, ROOT))) {
      // policyreport/: the PolicyReport CRDs as Kyverno ships them (the test below).
      if (entry.isFile) names.push(entry.name);
    }
    assert.deepEqual(names.sort(), expected, `${dir} has files no generator writes`);
  }
});

Deno.test({
  name: "the pinned PolicyReport CRDs are Kyverno's, as the provisioned Go module ships them",
  ignore: crdsDir() === undefined,
  async fn() {
    const pinned = await policyReportCrdFiles();
    const module: Record<string, string> = {};
    const dir = `${crdsDir()}/policyreport`;
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && entry.name.endsWith(".yaml")) {
        module[entry.name] = await Deno.readTextFile(`${dir}/${entry.name}`);
      }
    }
    assert.deepEqual(
      Object.keys(module).sort(),
      ["wgpolicyk8s.io_clusterpolicyreports.yaml", "wgpolicyk8s.io_policyreports.yaml"],
    );
    assert.deepEqual(pinned, module, `${POLICY_REPORT_CRDS_DIR} differs from the module's files`);
  },
});
