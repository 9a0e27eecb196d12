import assert from "node:assert/strict";
import { parseYamlDocuments } from "../yaml.ts";
import { API_GROUP, validatePolicy } from "../policy/mod.ts";
import { kyvernoClusterPolicyImporter } from "./kyverno_clusterpolicy.ts";
import { kyvernoImageValidatingPolicyImporter } from "./kyverno_ivp.ts";
import { Findings, translateImagePattern, wildcardToRegExp } from "./kyverno_common.ts";

/** The fields of the emitted objects the tests read. */
interface Emitted {
  kind: string;
  metadata: { name: string; namespace?: string };
  stringData: { key: string };
  spec: {
    repositories: {
      name: string;
      policy: {
        mode?: string;
        mutateImage?: boolean;
        simple: { requirements: Record<string, unknown>[] };
      };
    }[];
  };
}

const CONTEXT = { controllerNamespace: "toolkit-system" };
const FIXTURES = new URL("../../tests/fixtures/import/kyverno/", import.meta.url);

async function fixture(path: string): Promise<Record<string, unknown>> {
  return parseYamlDocuments(await Deno.readTextFile(new URL(path, FIXTURES)))[0] as Record<
    string,
    unknown
  >;
}

Deno.test("kyverno/policies verify-image: a keyed cosign rule, its key Secret, tlog required by the public-good root", async () => {
  const [rule] = await kyvernoClusterPolicyImporter.convert(
    await fixture("policies/other/verify-image/verify-image.yaml"),
    0,
    CONTEXT,
  );
  assert.ok(rule && !rule.refused);
  const [policy, secret] = rule.objects as unknown as Emitted[];
  assert.equal(policy?.kind, "ClusterImagePolicy");
  assert.equal(policy?.metadata.name, "verify-image-verify-image");
  validatePolicy(policy, [API_GROUP]);
  const repo = policy?.spec.repositories[0];
  assert.ok(repo);
  assert.equal(repo.name, "ghcr.io/kyverno/test-verify-image*");
  assert.equal(repo.policy.mode, "enforce");
  assert.equal(repo.policy.mutateImage, true);
  assert.deepEqual(repo.policy.simple.requirements, [{
    type: "sigstoreSigned",
    keySecret: secret?.metadata.name,
    tlog: "required",
    trustRootRef: { name: "sigstore-public-good" },
  }]);
  assert.equal(secret?.kind, "Secret");
  assert.equal(secret?.metadata.namespace, "toolkit-system");
  assert.match(secret?.stringData.key, /BEGIN PUBLIC KEY/);
  // background: false in the source: toolkit's PolicyReports judge it all the same.
  assert.equal(rule.findings.find((f) => f.path === "spec.background")?.kind, "stronger");
});

Deno.test("Audit becomes warn; an attestation condition on a plain predicate field becomes CEL", async () => {
  const [doc] = parseYamlDocuments(`
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: att}
spec:
  validationFailureAction: Audit
  background: false
  rules:
  - name: r
    match: {any: [{resources: {kinds: [Pod]}}]}
    verifyImages:
    - imageReferences: ["registry.example/team/*"]
      mutateDigest: false
      verifyDigest: false
      attestations:
      - predicateType: https://slsa.dev/provenance/v1
        attestors:
        - entries:
          - keys:
              publicKeys: "-----BEGIN PUBLIC KEY-----\\nAAAA\\n-----END PUBLIC KEY-----"
              rekor: {ignoreTlog: true}
        conditions:
        - all:
          - key: "{{ buildDefinition.buildType }}"
            operator: Equals
            value: https://example/build
          any:
          - {key: "{{ runDetails.builder.id }}", operator: In, value: [a, b]}
`) as Record<string, unknown>[];
  const [rule] = await kyvernoClusterPolicyImporter.convert(doc!, 0, CONTEXT);
  assert.ok(rule && !rule.refused, JSON.stringify(rule?.findings));
  const policy = rule.objects[0] as unknown as Emitted;
  const repo = policy.spec.repositories[0];
  assert.ok(repo);
  const req = repo.policy.simple.requirements[0] as Record<string, unknown> & {
    conditions: { expression: string }[];
  };
  assert.equal(repo.policy.mode, "warn");
  assert.equal(req.type, "attestation");
  assert.equal(req.tlog, "optional");
  assert.deepEqual(req.conditions.map((c: { expression: string }) => c.expression), [
    'has(predicate.buildDefinition) && has(predicate.buildDefinition.buildType) && predicate.buildDefinition.buildType == "https://example/build"',
    '(has(predicate.runDetails) && has(predicate.runDetails.builder) && has(predicate.runDetails.builder.id) && predicate.runDetails.builder.id in ["a", "b"])',
  ]);
});

Deno.test("kyverno/policies verify-image-slsa: keyless identity wildcards and regex_match conditions carried over", async () => {
  const [rule] = await kyvernoClusterPolicyImporter.convert(
    await fixture("policies/other/verify-image-slsa/verify-image-slsa.yaml"),
    0,
    CONTEXT,
  );
  assert.ok(rule && !rule.refused, JSON.stringify(rule?.findings));
  const policy = rule.objects[0] as unknown as Emitted;
  const repo = policy.spec.repositories[0];
  assert.ok(repo);
  assert.equal(repo.name, "myreg.org/path/repo:*");
  assert.equal(repo.policy.mode, "warn");
  assert.deepEqual(repo.policy.simple.requirements, [{
    type: "attestation",
    predicateType: "https://slsa.dev/provenance/v0.2",
    conditions: [{
      name: "condition-0-all-0",
      expression:
        'has(predicate.builder) && has(predicate.builder.id) && predicate.builder.id.matches("^https://github.com/slsa-framework/slsa-github-generator/.github/workflows/generator_container_slsa3.yml@refs/tags/v[0-9].[0-9].[0-9]$")',
    }],
    keyless: {
      trustRootRef: { name: "sigstore-public-good" },
      identities: [{
        issuer: "https://token.actions.githubusercontent.com",
        subjectRegExp:
          "^https://github\\.com/slsa-framework/slsa-github-generator/\\.github/workflows/generator_container_slsa3\\.yml@refs/tags/v.*$",
      }],
    },
  }]);
});

Deno.test("an untranslatable condition, a KMS key, n-of-m and Notary refuse the rule with the path", async () => {
  const [scan] = await kyvernoClusterPolicyImporter.convert(
    await fixture("policies/other/require-vulnerability-scan/require-vulnerability-scan.yaml"),
    0,
    CONTEXT,
  );
  assert.ok(scan?.refused);
  assert.ok(scan.findings.some((f) =>
    f.kind === "refused" &&
    f.path === "spec.rules[0].verifyImages[0].attestations[0].predicateType"
  ));
  const [cve] = await kyvernoClusterPolicyImporter.convert(
    await fixture("policies/other/verify-image-cve-2022-42889/verify-image-cve-2022-42889.yaml"),
    0,
    CONTEXT,
  );
  assert.ok(cve?.refused);
  assert.ok(cve.findings.some((f) =>
    f.kind === "refused" &&
    f.path === "spec.rules[0].verifyImages[0].attestations[0].conditions[0].all[0]"
  ));
  const [doc] = parseYamlDocuments(`
apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: p, namespace: team}
spec:
  rules:
  - name: r
    match: {any: [{resources: {kinds: [Pod]}}]}
    verifyImages:
    - imageReferences: ["ghcr.io/*"]
      attestors:
      - count: 2
        entries: [{keys: {kms: "awskms:///x"}}, {keys: {kms: "awskms:///y"}}, {keys: {kms: "awskms:///z"}}]
`) as Record<string, unknown>[];
  const [rule] = await kyvernoClusterPolicyImporter.convert(doc!, 0, CONTEXT);
  assert.ok(rule?.refused);
  assert.ok(rule.findings.some((f) => f.path.endsWith("entries[0].keys.kms")));
});

Deno.test("several keys in one publicKeys are several entries: all required, or any one with count 1", async () => {
  const two =
    "-----BEGIN PUBLIC KEY-----\\nAAAA\\n-----END PUBLIC KEY-----\\n-----BEGIN PUBLIC KEY-----\\nBBBB\\n-----END PUBLIC KEY-----";
  const policy = (count: string) =>
    parseYamlDocuments(`
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: keys}
spec:
  background: false
  rules:
  - name: r
    match: {any: [{resources: {kinds: [Pod]}}]}
    verifyImages:
    - imageReferences: ["registry.example/*"]
      attestors:
      - ${count}entries: [{keys: {publicKeys: "${two}", rekor: {ignoreTlog: true}}}]
`)[0] as Record<string, unknown>;
  const requirements = async (count: string) => {
    const [rule] = await kyvernoClusterPolicyImporter.convert(policy(count), 0, CONTEXT);
    assert.ok(rule && !rule.refused, JSON.stringify(rule?.findings));
    const secrets = rule.objects.filter((o) => o.kind === "Secret") as unknown as Emitted[];
    const emitted = rule.objects[0] as unknown as Emitted;
    return { secrets, requirements: emitted.spec.repositories[0]?.policy.simple.requirements };
  };
  const all = await requirements("count: 2\n        ");
  assert.equal(all.requirements?.length, 2);
  assert.equal(all.secrets.length, 2);
  const absent = await requirements("");
  assert.equal(absent.requirements?.length, 2);
  const any = await requirements("count: 1\n        ");
  assert.equal(any.requirements?.length, 1);
  assert.equal(any.secrets.length, 1);
  assert.equal(any.secrets[0]?.stringData.key.match(/BEGIN PUBLIC KEY/g)?.length, 2);
});

Deno.test("Kyverno image globs: translated exactly, or reported, or refused", () => {
  const f = new Findings();
  assert.equal(translateImagePattern("ghcr.io/org/*", "p", f, "wildcard"), "ghcr.io/org/*");
  assert.equal(translateImagePattern("*", "p", f, "wildcard"), "*");
  assert.equal(f.list.length, 0);
  assert.equal(
    translateImagePattern("docker.io/nginx:*", "p", f, "wildcard"),
    "docker.io/library/nginx:*",
  );
  assert.equal(f.list[0]?.kind, "stronger");
  assert.equal(translateImagePattern("ghcr.io/app:v?", "q", f, "wildcard"), undefined);
  assert.ok(f.refused);
  assert.equal(wildcardToRegExp("https://x/*@refs/tags/v*"), "^https://x/.*@refs/tags/v.*$");
});

Deno.test("kyverno/policies verify-image-ivpol: an ImageValidatingPolicy's attestors and validations", async () => {
  const [rule] = await kyvernoImageValidatingPolicyImporter.convert(
    await fixture("policies/other/verify-image-ivpol/verify-image-ivpol.yaml"),
    0,
    CONTEXT,
  );
  assert.ok(rule);
  if (!rule.refused) {
    for (const o of rule.objects) {
      if (o.kind === "ClusterImagePolicy") validatePolicy(o, [API_GROUP]);
    }
  } else {
    assert.ok(rule.findings.some((f) => f.kind === "refused" && f.path.startsWith("spec.")));
  }
});
