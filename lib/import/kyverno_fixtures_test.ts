/**
 * Every Kyverno image-verification policy of tests/fixtures/import/kyverno (kyverno/policies'
 * verify-image samples and the conformance tests of Kyverno v1.19.1, see its README) converted:
 * each rule converted or refused with paths and reasons, none silently partial, and every
 * emitted policy valid in toolkit (its validator, attestation conditions compiled and
 * cost-checked).
 */
import assert from "node:assert/strict";
import { parseYamlDocuments } from "../yaml.ts";
import { API_GROUP, loadAttestationConditions, validatePolicy } from "../policy/mod.ts";
import { kyvernoClusterPolicyImporter } from "./kyverno_clusterpolicy.ts";
import { kyvernoImageValidatingPolicyImporter } from "./kyverno_ivp.ts";
import { importDocuments } from "./import_documents.ts";
import type { ImportedRule } from "./types.ts";

const ROOT = new URL("../../tests/fixtures/import/kyverno/", import.meta.url);
const CONTEXT = { controllerNamespace: "toolkit-system" };
const IMPORTERS = [kyvernoClusterPolicyImporter, kyvernoImageValidatingPolicyImporter];

async function fixtures(): Promise<[string, unknown[]][]> {
  const out: [string, unknown[]][] = [];
  const visit = async (dir: URL): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) await visit(url);
      else if (entry.name.endsWith(".yaml")) {
        out.push([url.pathname, parseYamlDocuments(await Deno.readTextFile(url))]);
      }
    }
  };
  await visit(ROOT);
  return out.sort(([a], [b]) => a.localeCompare(b));
}

function checkRule(file: string, rule: ImportedRule): void {
  const where = `${file} ${rule.source.name}/${rule.source.rule ?? ""}`;
  if (rule.refused) {
    assert.equal(rule.objects.length, 0, where);
    assert(
      rule.findings.some((f) => f.kind === "refused" && f.path !== "" && f.reason !== ""),
      where,
    );
    return;
  }
  assert(rule.findings.every((f) => f.kind !== "refused"), where);
  for (const f of rule.findings) {
    assert(f.path !== "" && f.reason !== "", `${where}: ${JSON.stringify(f)}`);
  }
  const policies = rule.objects.filter((o) =>
    o.kind === "ClusterImagePolicy" || o.kind === "ImagePolicy"
  );
  if (policies.length === 0) {
    // Not an image rule: said so.
    assert(rule.findings.some((f) => f.reason.includes("not an image-verification rule")), where);
    return;
  }
  for (const policy of policies) validatePolicy(policy, [API_GROUP]);
  for (const o of rule.objects) {
    const name = (o.metadata as { name: string }).name;
    assert(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name), name);
  }
}

Deno.test("every Kyverno fixture policy is converted or refused with paths and reasons", async () => {
  await loadAttestationConditions();
  let documents = 0, converted = 0, refused = 0, other = 0;
  for (const [file, docs] of await fixtures()) {
    for (const [index, doc] of docs.entries()) {
      const importer = IMPORTERS.find((i) => i.accepts(doc));
      if (!importer) continue;
      documents++;
      const rules = await importer.convert(doc as Record<string, unknown>, index, CONTEXT);
      assert(rules.length > 0, file);
      for (const rule of rules) {
        checkRule(file, rule);
        if (rule.refused) refused++;
        else if (rule.objects.length > 0) converted++;
        else other++;
      }
    }
  }
  // deno-lint-ignore no-console -- the counts, as a figure for the report
  console.log(
    `${documents} documents: ${converted} rules converted, ${refused} refused, ${other} not image rules`,
  );
  assert(documents >= 100, `${documents} documents`);
  assert(converted >= 20, `${converted} converted`);
});

Deno.test("the fixtures go through importDocuments with the registered importers", async () => {
  const all = (await fixtures()).flatMap(([, docs]) => docs);
  const result = await importDocuments(all, CONTEXT);
  assert(result.rules.length > 100);
  for (const rule of result.rules) {
    if (rule.refused) assert(rule.findings.some((f) => f.kind === "refused"));
  }
});
