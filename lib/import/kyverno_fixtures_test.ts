/**
 * Every Kyverno image-verification policy of tests/fixtures/import/kyverno (kyverno/policies'
 * verify-image samples and the conformance tests of Kyverno v1.19.1, see its README) converted:
 * each rule converted or refused with paths and reasons, none silently partial, and every
 * emitted policy valid in toolkit (attestation requirements checked against the attestation
 * schema while that kind is not in lib/policy).
 */
import assert from "node:assert/strict";
import { parseYamlDocuments } from "../yaml.ts";
import { API_GROUP, REQUIREMENT_TYPES, validatePolicy } from "../policy/mod.ts";
import { kyvernoClusterPolicyImporter } from "./kyverno_clusterpolicy.ts";
import { kyvernoImageValidatingPolicyImporter } from "./kyverno_ivp.ts";
import { importDocuments } from "./import_documents.ts";
import type { ImportedRule } from "./types.ts";

const ROOT = new URL("../../tests/fixtures/import/kyverno/", import.meta.url);
const CONTEXT = { controllerNamespace: "toolkit-system" };
const IMPORTERS = [kyvernoClusterPolicyImporter, kyvernoImageValidatingPolicyImporter];
const ATTESTATION_IN_POLICY = (REQUIREMENT_TYPES as readonly string[]).includes("attestation");

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

/** Without attestation requirements (checked apart while lib/policy lacks the kind). */
function withoutAttestations(policy: Record<string, unknown>): Record<string, unknown>[] {
  const checked: Record<string, unknown>[] = [];
  const spec = policy.spec as {
    repositories: { policy: { simple?: { requirements: Record<string, unknown>[] } } }[];
  };
  for (const repo of spec.repositories) {
    for (const r of repo.policy.simple?.requirements ?? []) {
      if (r.type === "attestation") checked.push(r);
    }
  }
  if (ATTESTATION_IN_POLICY || checked.length === 0) return [];
  for (const r of checked) {
    assert(typeof r.predicateType === "string" && r.predicateType !== "");
    assert((r.keySecret === undefined) !== (r.keyless === undefined), "keySecret or keyless");
    for (const c of (r.conditions ?? []) as Record<string, unknown>[]) {
      assert(typeof c.name === "string" && typeof c.expression === "string");
    }
  }
  return checked;
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
  for (const policy of policies) {
    const attestations = withoutAttestations(policy);
    if (attestations.length > 0) {
      const spec = structuredClone(policy.spec) as {
        repositories: { policy: { simple: { requirements: Record<string, unknown>[] } } }[];
      };
      for (const repo of spec.repositories) {
        repo.policy.simple.requirements = repo.policy.simple.requirements.map((r) =>
          r.type === "attestation" ? { type: "sigstoreSigned", ...pick(r) } : r
        );
      }
      validatePolicy({ ...policy, spec }, [API_GROUP]);
    } else {
      validatePolicy(policy, [API_GROUP]);
    }
  }
  for (const o of rule.objects) {
    const name = (o.metadata as { name: string }).name;
    assert(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name), name);
  }
}

function pick(r: Record<string, unknown>): Record<string, unknown> {
  const { keySecret, keySecretNamespace, keyless, tlog, trustRootRef } = r;
  return Object.fromEntries(
    Object.entries({ keySecret, keySecretNamespace, keyless, tlog, trustRootRef }).filter(([, v]) =>
      v !== undefined
    ),
  );
}

Deno.test("every Kyverno fixture policy is converted or refused with paths and reasons", async () => {
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
