import assert from "node:assert/strict";
import { GIT_FLAVOURS } from "../githost/flavour.ts";
import { TRIGGER_FLAVOURS } from "./trigger_flavours.ts";

Deno.test("docs/pipeline.md's table says what each flavour's trigger is made of", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/pipeline.md", import.meta.url));
  for (const flavour of GIT_FLAVOURS) {
    const row = doc.split("\n").find((line) =>
      line.startsWith("|") && line.includes(`\`${flavour}\``)
    );
    assert.ok(row, `no row for ${flavour}`);
    const f = TRIGGER_FLAVOURS[flavour];
    const cells = row.split("|").map((cell) => cell.trim());
    assert.equal(cells[2], `\`${f.eventHeader}: ${f.pushEvent}\``, flavour);
    assert.ok(cells[3]!.includes(`${f.refPath} == '`), flavour);
    assert.equal(cells[4], `\`${f.repositoryNamePath}\``, flavour);
    assert.equal(cells[5], `\`${f.repositoryUrlPath}\``, flavour);
    assert.equal(cells[6], `\`${f.revisionPath}\``, flavour);
    const check = f.secretCheck;
    const interceptor = check.kind === "interceptor" ? check.interceptor : "cel";
    assert.ok(cells[7]!.startsWith(`\`${interceptor}\` interceptor`), flavour);
  }
});

Deno.test("every flavour's guards and paths are CEL over the body", () => {
  for (const flavour of GIT_FLAVOURS) {
    const f = TRIGGER_FLAVOURS[flavour];
    for (const path of [f.refPath, f.revisionPath, f.repositoryUrlPath, f.repositoryNamePath]) {
      assert.match(path, /^body\.[a-z_]+(\.[a-z_]+|\[0\])*$/, `${flavour}: ${path}`);
    }
    assert.ok(f.pushGuards.length > 0, flavour);
  }
  assert.equal(TRIGGER_FLAVOURS.bitbucket.refValue("main"), "main");
  assert.equal(TRIGGER_FLAVOURS.github.refValue("main"), "refs/heads/main");
});
