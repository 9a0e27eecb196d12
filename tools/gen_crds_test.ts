import assert from "node:assert/strict";
import { crdFiles } from "./gen_crds.ts";

Deno.test("deploy/crds is generated from lib/policy/crds.ts (run `deno task gen`)", async () => {
  for (const [name, text] of Object.entries(crdFiles())) {
    const onDisk = await Deno.readTextFile(new URL(`../deploy/crds/${name}`, import.meta.url));
    assert.equal(onDisk, text, name);
  }
});
