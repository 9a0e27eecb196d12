import assert from "node:assert/strict";
import { parseYamlDocuments } from "../yaml.ts";
import { API_GROUP, validatePolicy } from "../policy/mod.ts";
import { kyvernoImageValidatingPolicyImporter as IVP } from "./kyverno_ivp.ts";

const CONTEXT = { controllerNamespace: "toolkit-system" };
const FIXTURES = new URL("../../tests/fixtures/import/kyverno/", import.meta.url);

interface Emitted {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: {
    repositories: {
      name: string;
      policy: { mode?: string; mutateImage?: boolean; simple: { requirements: unknown[] } };
    }[];
  };
}

const KEY = "-----BEGIN PUBLIC KEY-----\\nAAAA\\n-----END PUBLIC KEY-----";

function ivp(
  extra: string,
  validations: string,
  kind = "ImageValidatingPolicy",
): Record<string, unknown> {
  return parseYamlDocuments(`
apiVersion: policies.kyverno.io/v1beta1
kind: ${kind}
metadata: {name: ivp, namespace: team}
spec:
  evaluation: {background: {enabled: false}}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  matchImageReferences: [{glob: "registry.example/team/*"}]
${extra}
  attestors:
  - name: build
    cosign:
      key: {data: "${KEY}"}
      ctlog: {insecureIgnoreTlog: true}
  attestations:
  - name: slsa
    intoto: {type: https://slsa.dev/provenance/v1}
  validations:
${validations}
`)[0] as Record<string, unknown>;
}

Deno.test("an IVP's signature, attestation and extractPayload validations become requirements and a condition", async () => {
  const [rule] = await IVP.convert(
    ivp(
      "  validationActions: [Audit]",
      `  - expression: images.containers.map(image, verifyImageSignatures(image, [attestors.build])).all(e, e > 0)
  - expression: images.containers.map(image, verifyAttestationSignatures(image, attestations.slsa, [attestors.build])).all(e, e > 0)
  - expression: >-
      images.containers.map(image, extractPayload(image, attestations.slsa).predicate.buildDefinition.buildType == "https://example/build").all(e, e)
    message: not our build`,
    ),
    0,
    CONTEXT,
  );
  assert.ok(rule && !rule.refused, JSON.stringify(rule?.findings));
  const [policy, secret] = rule.objects as unknown as Emitted[];
  assert.equal(policy?.kind, "ClusterImagePolicy");
  assert.equal(secret?.kind, "Secret");
  const repo = policy?.spec.repositories[0];
  assert.ok(repo);
  assert.equal(repo.name, "registry.example/team/*");
  assert.equal(repo.policy.mode, "warn");
  assert.deepEqual(repo.policy.simple.requirements, [
    { type: "sigstoreSigned", keySecret: "ivp-key-build", tlog: "optional" },
    {
      type: "attestation",
      predicateType: "https://slsa.dev/provenance/v1",
      keySecret: "ivp-key-build",
      tlog: "optional",
      conditions: [{
        name: "validation-0",
        expression: 'statement.predicate.buildDefinition.buildType == "https://example/build"',
        message: "not our build",
      }],
    },
  ]);
});

Deno.test("a NamespacedImageValidatingPolicy becomes an ImagePolicy with its key Secret in its namespace", async () => {
  const [rule] = await IVP.convert(
    ivp(
      "",
      "  - expression: images.containers.map(image, verifyImageSignatures(image, [attestors.build])).all(e, e > 0)",
      "NamespacedImageValidatingPolicy",
    ),
    0,
    CONTEXT,
  );
  assert.ok(rule && !rule.refused);
  const [policy, secret] = rule.objects as unknown as Emitted[];
  assert.equal(policy?.kind, "ImagePolicy");
  assert.equal(policy?.metadata.namespace, "team");
  assert.equal(secret?.metadata.namespace, "team");
  assert.equal(policy?.spec.repositories[0]?.policy.mode, "enforce");
  validatePolicy(policy, [API_GROUP]);
});

Deno.test("any other CEL validation refuses the policy with its path", async () => {
  const [rule] = await IVP.convert(
    ivp("", "  - expression: size(images.containers) > 0"),
    0,
    CONTEXT,
  );
  assert.ok(rule?.refused);
  assert.equal(rule.objects.length, 0);
  assert.ok(
    rule.findings.some((f) => f.kind === "refused" && f.path === "spec.validations[0].expression"),
  );
});

Deno.test("Kyverno's conformance IVP with a keyless attestation and an extractPayload check converts", async () => {
  const doc = parseYamlDocuments(
    await Deno.readTextFile(
      new URL(
        "conformance/image-validating-policies/standard/cosign-attestation-extract-cache-hit/policy.yaml",
        FIXTURES,
      ),
    ),
  )[0] as Record<string, unknown>;
  const [rule] = await IVP.convert(doc, 0, CONTEXT);
  assert.ok(rule && !rule.refused);
  const policy = rule.objects[0] as unknown as Emitted;
  assert.deepEqual(policy.spec.repositories[0]?.policy.simple.requirements, [{
    type: "attestation",
    predicateType: "https://slsa.dev/provenance/v1",
    keyless: {
      trustRootRef: { name: "sigstore-public-good" },
      identities: [{
        issuer: "https://token.actions.githubusercontent.com",
        subject:
          "https://github.com/kyverno/test-images/.github/workflows/cosign.yml@refs/heads/main",
      }],
    },
    conditions: [{
      name: "validation-0",
      expression: "has(statement.predicate.buildDefinition)",
      message: "failed to extract SLSA intoto attestation payload after verification",
    }],
  }]);
});
