/**
 * Converting a stream of documents: each document goes to the first importer of
 * {@linkcode IMPORTERS} that accepts it; every policy an importer emits is checked with toolkit's
 * own validator (one that fails refuses its rule, so no invalid policy is ever written); a rule
 * that would make an object of the same kind and name as an earlier rule is refused (applying
 * both would leave only one); then the differences that only show across rules are reported:
 *
 * - toolkit applies to an image only the most specific matching pattern of the policies that
 *   govern its namespace, while policy-controller and Kyverno apply every matching rule: a
 *   pattern of such a source that overlaps another rule's is reported `weaker` on both;
 * - a namespace with an ImagePolicy ignores the ClusterImagePolicies in toolkit: an imported
 *   ImagePolicy is reported `weaker` when cluster policies were imported too.
 *
 * @module
 */
import {
  API_GROUP,
  hasAttestationConditions,
  InvalidPolicyError,
  loadAttestationConditions,
  validatePolicy,
} from "../policy/mod.ts";
import { InvalidKeyError, KeyNotAcceptedError } from "../signature/mod.ts";
import { isPemPublicKey, readSigstorePublicKeys } from "../sigstore/mod.ts";
import { IMPORTERS } from "./importers.ts";
import { describeSource, KEY_ENTRY } from "./objects.ts";
import { patternsOverlap } from "./overlap.ts";
import type {
  ImportContext,
  ImportedRule,
  ImportFinding,
  ImportResult,
  PolicyImporter,
} from "./types.ts";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The toolkit policies among a rule's objects. */
function policiesOf(rule: ImportedRule): Record<string, unknown>[] {
  return rule.objects.filter((o) =>
    (o.kind === "ClusterImagePolicy" || o.kind === "ImagePolicy") &&
    typeof o.apiVersion === "string" && o.apiVersion.startsWith(`${API_GROUP}/`)
  );
}

function patternsOf(policy: Record<string, unknown>): string[] {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const repositories = Array.isArray(spec.repositories) ? spec.repositories : [];
  return repositories.flatMap((r) => isObject(r) && typeof r.name === "string" ? [r.name] : []);
}

function scopeOf(policy: Record<string, unknown>): string {
  const meta = isObject(policy.metadata) ? policy.metadata : {};
  return policy.kind === "ImagePolicy" ? `ns/${meta.namespace}` : "cluster";
}

function refusedRule(rule: ImportedRule, finding: ImportFinding): ImportedRule {
  return { ...rule, objects: [], refused: true, findings: [...rule.findings, finding] };
}

/**
 * Refuses a rule whose emitted policies do not pass toolkit's validator, or whose key Secrets hold
 * a PEM key the webhook would refuse (type, curve, size): read as the webhook reads them, whatever
 * the importer, so such a key refuses the rule now rather than every image later.
 */
async function validated(rule: ImportedRule): Promise<ImportedRule> {
  if (rule.refused) return rule.objects.length ? { ...rule, objects: [] } : rule;
  for (const object of rule.objects) {
    const data = object.kind === "Secret" && isObject(object.stringData)
      ? object.stringData[KEY_ENTRY]
      : undefined;
    if (typeof data !== "string" || !isPemPublicKey(data)) continue;
    try {
      await readSigstorePublicKeys(data);
    } catch (error) {
      if (!(error instanceof InvalidKeyError || error instanceof KeyNotAcceptedError)) throw error;
      const meta = isObject(object.metadata) ? object.metadata : {};
      return refusedRule(rule, {
        path: "",
        kind: "refused",
        reason:
          `the key of Secret ${meta.namespace}/${meta.name} would be refused by the webhook: ${error.message}`,
      });
    }
  }
  for (const policy of policiesOf(rule)) {
    try {
      validatePolicy(policy, [API_GROUP]);
    } catch (error) {
      const problems = error instanceof InvalidPolicyError
        ? error.problems.map((p) => `${p.path}: ${p.message}`).join("; ")
        : String(error);
      return refusedRule(rule, {
        path: "",
        kind: "refused",
        reason: `the converted policy is not valid in toolkit: ${problems}`,
      });
    }
  }
  return rule;
}

async function convertOne(
  importer: PolicyImporter,
  document: Record<string, unknown>,
  index: number,
  context: ImportContext,
): Promise<readonly ImportedRule[]> {
  try {
    return await importer.convert(document, index, context);
  } catch (error) {
    // An importer never throws for bad input; should one, the document is refused, not lost.
    const meta = isObject(document.metadata) ? document.metadata : {};
    return [{
      source: {
        apiVersion: String(document.apiVersion ?? ""),
        kind: String(document.kind ?? ""),
        name: String(meta.name ?? ""),
        document: index,
      },
      objects: [],
      findings: [{
        path: "",
        kind: "refused",
        reason: `${importer.name} failed: ${error instanceof Error ? error.message : error}`,
      }],
      refused: true,
    }];
  }
}

/** Converts every document with the importers of {@linkcode IMPORTERS}. */
export function importDocuments(
  documents: readonly unknown[],
  context: ImportContext,
): Promise<ImportResult> {
  return importWith(IMPORTERS, documents, context);
}

/** {@linkcode importDocuments} with a given list of importers (tests). */
export async function importWith(
  importers: readonly PolicyImporter[],
  documents: readonly unknown[],
  context: ImportContext,
): Promise<ImportResult> {
  const rules: ImportedRule[] = [];
  const everyMatching: boolean[] = [];
  const unknown: number[] = [];
  for (const [index, document] of documents.entries()) {
    const importer = isObject(document) ? importers.find((i) => i.accepts(document)) : undefined;
    if (importer === undefined || !isObject(document)) {
      unknown.push(index);
      continue;
    }
    for (const rule of await convertOne(importer, document, index, context)) {
      // Attestation conditions are compiled as they are validated: the evaluator loaded first.
      if (rule.objects.some(hasAttestationConditions)) await loadAttestationConditions();
      rules.push(await validated(rule));
      everyMatching.push(importer.everyMatchingRuleApplies === true);
    }
  }
  return { rules: crossRuleFindings(withoutClashes(rules), everyMatching), unknown };
}

/**
 * The objects of the rules converted, each once: two rules may make the same object (a trust root
 * or key Secret they both name), which the clash check has found equal in content.
 */
export function importedObjects(rules: readonly ImportedRule[]): Record<string, unknown>[] {
  const objects = new Map<string, Record<string, unknown>>();
  for (const rule of rules) {
    if (rule.refused) continue;
    for (const object of rule.objects) {
      const key = objectKey(object);
      if (!objects.has(key)) objects.set(key, object);
    }
  }
  return [...objects.values()];
}

function objectKey(object: Record<string, unknown>): string {
  const meta = isObject(object.metadata) ? object.metadata : {};
  return `${object.kind} ${meta.namespace ? `${meta.namespace}/` : ""}${meta.name}`;
}

/**
 * Refuses a rule that would make an object another rule (before it) makes too: one would
 * silently replace the other when applied.
 */
function withoutClashes(rules: readonly ImportedRule[]): ImportedRule[] {
  const made = new Map<string, { rule: ImportedRule; text: string }>();
  return rules.map((rule) => {
    if (rule.refused) return rule;
    for (const object of rule.objects) {
      const first = made.get(objectKey(object));
      // The same object made twice (a trust root or key Secret several rules name) is one object.
      if (first !== undefined && first.text !== canonicalJson(object)) {
        return refusedRule(rule, {
          path: "metadata.name",
          kind: "refused",
          reason: `it makes ${objectKey(object)}, as ${
            describeSource(first.rule.source)
          } (document ${first.rule.source.document}) does, with other content: rename one of them`,
        });
      }
    }
    for (const object of rule.objects) {
      if (!made.has(objectKey(object))) {
        made.set(objectKey(object), { rule, text: canonicalJson(object) });
      }
    }
    return rule;
  });
}

/** JSON with every object's keys sorted: equal for objects equal in content. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      isObject(v) && !Array.isArray(v)
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]))
        : v,
  );
}

/** Adds the findings that only show across rules (see the module's doc). */
function crossRuleFindings(
  rules: readonly ImportedRule[],
  everyMatching: readonly boolean[],
): ImportedRule[] {
  const extra: ImportFinding[][] = rules.map(() => []);
  const scoped = rules.map((rule) =>
    rule.refused
      ? []
      : policiesOf(rule).map((p) => ({ scope: scopeOf(p), patterns: patternsOf(p) }))
  );
  for (let a = 0; a < rules.length; a++) {
    for (let b = a + 1; b < rules.length; b++) {
      if (!everyMatching[a] && !everyMatching[b]) continue;
      const shared = overlapping(scoped[a]!, scoped[b]!);
      if (shared === undefined) continue;
      const [pa, pb] = shared;
      const why = (other: ImportedRule, mine: string, theirs: string) =>
        `pattern ${JSON.stringify(mine)} overlaps ${JSON.stringify(theirs)} of ${
          describeSource(other.source)
        }: the source requires every matching policy to pass, toolkit applies only the most specific matching pattern to an image`;
      extra[a]!.push({ path: "spec", kind: "weaker", reason: why(rules[b]!, pa, pb) });
      extra[b]!.push({ path: "spec", kind: "weaker", reason: why(rules[a]!, pb, pa) });
    }
  }
  const clusterSources = rules.filter((_rule, i) => scoped[i]!.some((p) => p.scope === "cluster"));
  rules.forEach((rule, i) => {
    const namespaces = scoped[i]!.filter((p) => p.scope !== "cluster");
    const others = clusterSources.filter((c) => c !== rule);
    if (namespaces.length && others.length) {
      extra[i]!.push({
        path: "metadata.namespace",
        kind: "weaker",
        reason: `toolkit's ImagePolicy replaces the ClusterImagePolicies in its namespace: ${
          others.map((o) => describeSource(o.source)).join(", ")
        } no longer apply there`,
      });
    }
  });
  return rules.map((rule, i) =>
    extra[i]!.length ? { ...rule, findings: [...rule.findings, ...extra[i]!] } : rule
  );
}

type Scoped = readonly { scope: string; patterns: readonly string[] }[];

function overlapping(a: Scoped, b: Scoped): [string, string] | undefined {
  for (const pa of a) {
    for (const pb of b) {
      if (pa.scope !== pb.scope) continue;
      for (const x of pa.patterns) {
        for (const y of pb.patterns) if (patternsOverlap(x, y)) return [x, y];
      }
    }
  }
  return undefined;
}
