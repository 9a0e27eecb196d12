/**
 * Every policy and TrustRoot of sigstore policy-controller's own examples and test data
 * (tests/fixtures/import/policy-controller, README there) converted by `importDocuments`: each
 * converted or refused as the table below says, with the field path of the refusal; every
 * emitted policy valid by toolkit's validator, every trusted_root.json parsed as the webhook
 * parses it; and none silently partial: every field of a converted policy is one the importer
 * maps (the field table of docs/migration.md) or lies under a finding's path.
 */
import assert from "node:assert/strict";
import { API_GROUP, validatePolicy } from "../../lib/policy/mod.ts";
import { importDocuments } from "../../lib/import/mod.ts";
import { parseYamlDocuments } from "../../lib/yaml.ts";
import { parseTrustRoot } from "../../lib/sigstore/trust_root.ts";
import { translateCuePolicy } from "../../lib/import/policy_controller_cue.ts";
import {
  compileAttestationCondition,
  loadAttestationConditions,
} from "../../lib/policy/attestation_conditions.ts";

const ROOT = new URL("../fixtures/import/policy-controller/", import.meta.url).pathname;

/** What each fixture becomes: `converted`, or `refused <path of the refusal>`. */
const EXPECTED: Readonly<Record<string, string>> = {
  "examples/policies/allow-only-pods.yaml": "refused spec.policy",
  "examples/policies/custom-key-attestation-sbom-spdxjson.yaml": "converted",
  "examples/policies/keyless-attestation-sbom-spdxjson.yaml": "converted",
  "examples/policies/release-signed-by-github-actions.yaml": "refused spec.images[0].glob",
  "examples/policies/signed-by-aws-kms-key.yaml": "refused spec.authorities[0].key.kms",
  "examples/policies/signed-by-gcp-kms-key.yaml": "refused spec.authorities[0].key.kms",
  "examples/policies/signed-by-github-actions.yaml": "converted",
  "test/testdata/policy-controller/e2e/cip-config-file-policy-fails.yaml": "refused spec.policy",
  "test/testdata/policy-controller/e2e/cip-config-file-policy-from-configmap.yaml":
    "refused spec.policy",
  "test/testdata/policy-controller/e2e/cip-config-file-policy.yaml": "refused spec.policy",
  "test/testdata/policy-controller/e2e/cip-include-objectmeta-fails.yaml": "refused spec.policy",
  "test/testdata/policy-controller/e2e/cip-include-objectmeta.yaml": "refused spec.policy",
  "test/testdata/policy-controller/e2e/cip-include-spec-fails.yaml": "refused spec.policy",
  "test/testdata/policy-controller/e2e/cip-include-spec.yaml": "refused spec.policy",
  "test/testdata/policy-controller/e2e/cip-include-typemeta.yaml": "refused spec.policy",
  "test/testdata/policy-controller/e2e/cip-key-and-keyless-ignore-sct.yaml":
    "refused spec.authorities[1]",
  "test/testdata/policy-controller/e2e/cip-key-and-keyless.yaml": "refused spec.authorities[1]",
  "test/testdata/policy-controller/e2e/cip-key-hash-algorithm.yaml": "converted",
  "test/testdata/policy-controller/e2e/cip-key-no-rekor.yaml": "converted",
  "test/testdata/policy-controller/e2e/cip-key-secret.yaml": "converted",
  "test/testdata/policy-controller/e2e/cip-key-tsa.yaml": "converted",
  "test/testdata/policy-controller/e2e/cip-key-with-attestations-no-rekor.yaml": "converted",
  "test/testdata/policy-controller/e2e/cip-key-with-attestations-rego.yaml": "converted",
  "test/testdata/policy-controller/e2e/cip-key-with-attestations.yaml": "converted",
  "test/testdata/policy-controller/e2e/cip-key.yaml": "converted",
  "test/testdata/policy-controller/e2e/cip-keyless-warn.yaml": "converted",
  "test/testdata/policy-controller/e2e/cip-keyless-with-attestations-rego.yaml":
    "refused spec.authorities[0].attestations[0].policy",
  "test/testdata/policy-controller/e2e/cip-keyless-with-attestations.yaml": "converted",
  "test/testdata/policy-controller/e2e/cip-keyless-with-identities-mismatch.yaml": "converted",
  "test/testdata/policy-controller/e2e/cip-keyless-with-identities.yaml": "converted",
  "test/testdata/policy-controller/e2e/cip-keyless-with-source-prefix-tag.yaml":
    "refused spec.authorities[0].source[0].tagPrefix",
  "test/testdata/policy-controller/e2e/cip-keyless-with-source.yaml":
    "refused spec.authorities[0].source[0].oci",
  "test/testdata/policy-controller/e2e/cip-keyless-with-trustroot-remote-with-attestations.yaml":
    "converted",
  "test/testdata/policy-controller/e2e/cip-keyless-with-trustroot-repository-with-attestations.yaml":
    "converted",
  "test/testdata/policy-controller/e2e/cip-keyless-with-trustroot-with-attestations.yaml":
    "converted",
  "test/testdata/policy-controller/e2e/cip-keyless.yaml": "converted",
  "test/testdata/policy-controller/e2e/cip-match-resource-label.yaml": "converted",
  "test/testdata/policy-controller/e2e/cip-policy-from-url.yaml": "refused spec.policy",
  "test/testdata/policy-controller/e2e/cip-requires-two-signatures-and-two-attestations-rego.yaml":
    "refused spec.authorities[1]",
  "test/testdata/policy-controller/e2e/cip-requires-two-signatures-and-two-attestations.yaml":
    "refused spec.authorities[1]",
  "test/testdata/policy-controller/e2e/cip-static-fail.yaml": "converted",
  "test/testdata/policy-controller/e2e/cip-static-pass.yaml": "converted",
  "test/testdata/policy-controller/empty-authorities/authorities-absent.yaml":
    "refused spec.authorities",
  "test/testdata/policy-controller/empty-authorities/authorities-present.yaml":
    "refused spec.authorities",
  "test/testdata/policy-controller/invalid/empty-keyref-and-keylessref.yaml":
    "refused spec.authorities[0]",
  "test/testdata/policy-controller/invalid/empty-keyref.yaml": "refused spec.authorities[0].key",
  "test/testdata/policy-controller/invalid/invalid-authority.yaml": "refused spec.authorities[0]",
  "test/testdata/policy-controller/invalid/invalid-glob.yaml": "refused spec.images[0].glob",
  "test/testdata/policy-controller/invalid/invalid-keyref-awskms.yaml":
    "refused spec.authorities[0].key.kms",
  "test/testdata/policy-controller/invalid/invalid-mode.yaml": "refused spec.mode",
  "test/testdata/policy-controller/invalid/invalid-pubkey.yaml":
    "refused spec.authorities[0].key.data",
  "test/testdata/policy-controller/invalid/keylessref-with-empty-authorities.yaml":
    "refused spec.authorities",
  "test/testdata/policy-controller/invalid/keylessref-with-malformed-issuer.yaml":
    "refused spec.authorities[0].keyless.identities[0].issuerRegExp",
  "test/testdata/policy-controller/invalid/keylessref-with-malformed-subject.yaml":
    "refused spec.authorities[0].keyless.identities[0].subjectRegExp",
  "test/testdata/policy-controller/invalid/keylessref-with-multiple-properties.yaml":
    "refused spec.authorities[0].keyless",
  "test/testdata/policy-controller/invalid/keyref-with-multiple-properties.yaml":
    "refused spec.authorities[0].key.kms",
  "test/testdata/policy-controller/invalid/missing-identity.yaml":
    "refused spec.authorities[0].keyless.identities",
  "test/testdata/policy-controller/invalid/missing-issuer.yaml":
    "refused spec.authorities[0].keyless.identities[0]",
  "test/testdata/policy-controller/invalid/missing-subject.yaml":
    "refused spec.authorities[0].keyless.identities[0]",
  "test/testdata/policy-controller/invalid/v1beta1-empty-keyref-and-keylessref.yaml":
    "refused spec.authorities[0].key",
  "test/testdata/policy-controller/invalid/v1beta1-empty-keyref.yaml":
    "refused spec.authorities[0].key",
  "test/testdata/policy-controller/invalid/v1beta1-invalid-glob.yaml":
    "refused spec.images[0].glob",
  "test/testdata/policy-controller/invalid/v1beta1-invalid-hash-algo.yaml":
    "refused spec.authorities[1].key.kms",
  "test/testdata/policy-controller/invalid/v1beta1-invalid-keyref-awskms.yaml":
    "refused spec.authorities[0].key.kms",
  "test/testdata/policy-controller/invalid/v1beta1-invalid-match-resource.yaml":
    "refused spec.match[0].resource",
  "test/testdata/policy-controller/invalid/v1beta1-invalid-mode.yaml": "refused spec.mode",
  "test/testdata/policy-controller/invalid/v1beta1-invalid-pubkey.yaml":
    "refused spec.authorities[0].key.data",
  "test/testdata/policy-controller/invalid/v1beta1-keylessref-with-empty-authorities.yaml":
    "refused spec.authorities",
  "test/testdata/policy-controller/invalid/v1beta1-keylessref-with-malformed-issuer.yaml":
    "refused spec.authorities[0].keyless.identities[0].issuerRegExp",
  "test/testdata/policy-controller/invalid/v1beta1-keylessref-with-malformed-subject.yaml":
    "refused spec.authorities[0].keyless.identities[0].subjectRegExp",
  "test/testdata/policy-controller/invalid/v1beta1-keylessref-with-multiple-properties.yaml":
    "refused spec.authorities[0].keyless",
  "test/testdata/policy-controller/invalid/v1beta1-keyref-with-multiple-properties.yaml":
    "refused spec.authorities[0].key.kms",
  "test/testdata/policy-controller/invalid/v1beta1-missing-identity.yaml":
    "refused spec.authorities[0].keyless.identities",
  "test/testdata/policy-controller/invalid/v1beta1-missing-issuer.yaml":
    "refused spec.authorities[0].keyless.identities[0]",
  "test/testdata/policy-controller/invalid/v1beta1-missing-subject.yaml":
    "refused spec.authorities[0].keyless.identities[0]",
  "test/testdata/policy-controller/invalid/v1beta1-valid-keyref-and-keylessref.yaml":
    "refused spec.authorities[0]",
  "test/testdata/policy-controller/invalid/valid-keyref-and-keylessref.yaml":
    "refused spec.authorities[0]",
  "test/testdata/policy-controller/tester/cip-public-keyless.yaml": "converted",
  "test/testdata/policy-controller/valid/v1beta1-valid-keylessref-awskms.yaml": "converted",
  "test/testdata/policy-controller/valid/v1beta1-valid-keyref-awskms.yaml":
    "refused spec.authorities[0].key.kms",
  "test/testdata/policy-controller/valid/v1beta1-valid-policy-glob.yaml":
    "refused spec.authorities[4].key.kms",
  "test/testdata/policy-controller/valid/v1beta1-valid-policy.yaml":
    "refused spec.authorities[6].key.kms",
  "test/testdata/policy-controller/valid/valid-keyless-with-source.yaml": "converted",
  "test/testdata/policy-controller/valid/valid-keylessref-awskms.yaml": "converted",
  "test/testdata/policy-controller/valid/valid-keyref-awskms.yaml":
    "refused spec.authorities[0].key.kms",
  "test/testdata/policy-controller/valid/valid-policy-glob.yaml":
    "refused spec.authorities[4].key.kms",
  "test/testdata/policy-controller/valid/valid-policy-hash-algo-sha512.yaml": "converted",
  "test/testdata/policy-controller/valid/valid-policy-hash-algo.yaml":
    "refused spec.authorities[6].key.kms",
  "test/testdata/policy-controller/valid/valid-policy-keyless-ignore-sct.yaml":
    "refused spec.authorities[4].key.kms",
  "test/testdata/policy-controller/valid/valid-policy-match-resource-label.yaml":
    "refused spec.authorities[6].key.kms",
  "test/testdata/policy-controller/valid/valid-policy-match-resource.yaml":
    "refused spec.authorities[6].key.kms",
  "test/testdata/policy-controller/valid/valid-policy.yaml": "refused spec.authorities[6].key.kms",
  // TrustRoots: the e2e ones hold placeholders their test script replaces, or a TUF repository.
  "test/testdata/trustroot/e2e/bring-your-own-keys.yaml":
    "refused spec.sigstoreKeys.tLogs[0].publicKey",
  "test/testdata/trustroot/e2e/with-remote.yaml": "refused spec.remote",
  "test/testdata/trustroot/e2e/with-repository.yaml": "refused spec.repository",
  "test/testdata/trustroot/e2e/with-tsa.yaml":
    "refused spec.sigstoreKeys.timestampAuthorities[0].certChain",
  "test/testdata/trustroot/valid/valid-sigstore-keys.yaml": "converted",
};

/**
 * The attestation policies (`authorities[].attestations[].policy`) of the fixtures: how many, how
 * many translate to a CEL condition within toolkit's CEL cost limit (one is Rego; seven, the
 * vulnerability scans' eleven comparisons over every attestation, are over the limit), and how
 * many conditions are in converted policies (the other policies are refused for their
 * authorities: a key or keyless alternative).
 */
const ATTESTATION_POLICIES = { all: 27, translated: 19, inConvertedPolicies: 9 };

/** The fields a converted policy carries over as they are (docs/migration.md's table). */
const MAPPED = [
  /^apiVersion$/,
  /^kind$/,
  /^metadata\./,
  /^spec\.images\[\d+\]\.glob$/,
  /^spec\.mode$/,
  /^spec\.authorities\[\d+\]\.name$/,
  /^spec\.authorities\[\d+\]\.key\.data$/,
  /^spec\.authorities\[\d+\]\.key\.hashAlgorithm$/,
  /^spec\.authorities\[\d+\]\.key\.secretRef\.(name|namespace)$/,
  /^spec\.authorities\[\d+\]\.keyless\.identities\[\d+\]\.(issuer|subject|issuerRegExp|subjectRegExp)$/,
  /^spec\.authorities\[\d+\]\.keyless\.insecureIgnoreSCT$/,
  /^spec\.authorities\[\d+\]\.static\.action$/,
  // keyless: the Rekor of the requirement's one trust root (a finding when it is another).
  /^spec\.authorities\[\d+\]\.ctlog\.(url|trustRootRef)$/,
  /^spec\.authorities\[\d+\]\.signatureFormat$/,
  /^spec\.authorities\[\d+\]\.attestations\[\d+\]\.(name|predicateType)$/,
  // A CUE policy that translates becomes the requirement's condition (else a finding says why).
  /^spec\.authorities\[\d+\]\.attestations\[\d+\]\.policy\.(type|data)$/,
];

function leaves(value: unknown, path: string, out: string[]): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) out.push(path);
    value.forEach((v, i) => leaves(v, `${path}[${i}]`, out));
  } else if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) out.push(path);
    for (const [k, v] of entries) leaves(v, path ? `${path}.${k}` : k, out);
  } else out.push(path);
  return out;
}

async function yamlFiles(root: string, dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(`${root}${dir}`)) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) files.push(...await yamlFiles(root, `${path}/`));
    else if (path.endsWith(".yaml")) files.push(path);
  }
  return files.sort();
}

const under = (path: string, prefix: string) =>
  prefix === "" || path === prefix || path.startsWith(`${prefix}.`) ||
  path.startsWith(`${prefix}[`);

Deno.test("every policy-controller example and test policy is converted or refused as expected, none silently partial", async () => {
  const outcomes: Record<string, string> = {};
  let converted = 0, refused = 0, conditions = 0, all = 0, translated = 0;
  await loadAttestationConditions();
  for (const file of await yamlFiles(ROOT, "")) {
    const documents = parseYamlDocuments(await Deno.readTextFile(`${ROOT}${file}`)).filter((d) =>
      d
    );
    for (const document of documents) {
      const authorities = (document as { spec?: { authorities?: unknown } }).spec?.authorities;
      for (const authority of Array.isArray(authorities) ? authorities : []) {
        for (const attestation of authority?.attestations ?? []) {
          if (!attestation?.policy) continue;
          all++;
          const data = attestation.policy.type === "cue" ? attestation.policy.data : undefined;
          const cel = typeof data === "string" ? translateCuePolicy(data) : undefined;
          if (cel === undefined || !("expression" in cel)) continue;
          try {
            compileAttestationCondition({ name: "cue", expression: cel.expression });
            translated++;
          } catch { /* over the CEL cost limit: refused */ }
        }
      }
    }
    const result = await importDocuments(documents, { controllerNamespace: "toolkit-system" });
    // The e2e tests' Deployment is the one document that is no policy: reported, skipped.
    assert.deepEqual(
      result.unknown.length,
      file.endsWith("test-deployment.yaml") ? 1 : 0,
      `${file}: every document is a ClusterImagePolicy`,
    );
    for (const rule of result.rules) {
      const key = result.rules.length > 1 ? `${file}#${rule.source.document}` : file;
      for (const finding of rule.findings) {
        assert.ok(finding.reason.length > 10, `${key}: ${finding.path} has a reason`);
      }
      if (rule.refused) {
        refused++;
        const refusal = rule.findings.filter((f) => f.kind === "refused");
        assert.equal(refusal.length, 1, `${key}: one refusal`);
        assert.deepEqual(rule.objects, [], `${key}: a refused rule makes nothing`);
        outcomes[key] = `refused ${refusal[0]!.path}`;
        continue;
      }
      converted++;
      outcomes[key] = "converted";
      const policies = rule.objects.filter((o) => o.kind === "ClusterImagePolicy");
      if (rule.source.kind === "TrustRoot") {
        // A TrustRoot becomes the ConfigMap of its trusted_root.json, parsed as the webhook does.
        assert.deepEqual(rule.objects.map((o) => o.kind), ["ConfigMap"], key);
        const text = (rule.objects[0]!.data as Record<string, string>)["trusted_root.json"]!;
        await parseTrustRoot(text, key);
        continue;
      }
      assert.equal(policies.length, 1, key);
      for (const policy of policies) validatePolicy(policy, [API_GROUP]);
      conditions += JSON.stringify(policies).split('"conditions":').length - 1;
      const source = documents[rule.source.document];
      for (const leaf of leaves(source, "", [])) {
        const covered = MAPPED.some((m) => m.test(leaf)) ||
          rule.findings.some((f) => under(leaf, f.path));
        assert.ok(covered, `${key}: ${leaf} is neither mapped nor reported`);
      }
    }
  }
  assert.ok(converted > 10 && refused > 10, `${converted} converted, ${refused} refused`);
  assert.deepEqual(outcomes, EXPECTED);
  // The attestation policies (CUE) translated into CEL conditions of converted policies.
  assert.deepEqual(
    { all, translated, inConvertedPolicies: conditions },
    ATTESTATION_POLICIES,
  );
});
