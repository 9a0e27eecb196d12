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

/** An IVP whose validation is signed by any one of `names`, of the attestors given as YAML. */
function anyOf(attestors: string, names: string): Record<string, unknown> {
  return parseYamlDocuments(`
apiVersion: policies.kyverno.io/v1
kind: ImageValidatingPolicy
metadata: {name: ivp}
spec:
  matchImageReferences: [{glob: "registry.example/team/*"}]
  attestors:
${attestors}
  validations:
  - expression: images.containers.map(image, verifyImageSignatures(image, [${names}])).all(e, e > 0)
`)[0] as Record<string, unknown>;
}

const KEY_A = "-----BEGIN PUBLIC KEY-----\\nAAAA\\n-----END PUBLIC KEY-----";
const KEY_B = "-----BEGIN PUBLIC KEY-----\\nBBBB\\n-----END PUBLIC KEY-----";

Deno.test("any one of several attestors: keys in one Secret, keyless identities of one trust root", async () => {
  const [keys] = await IVP.convert(
    anyOf(
      `  - {name: a, cosign: {key: {data: "${KEY_A}"}}}
  - {name: b, cosign: {key: {data: "${KEY_B}"}}}`,
      "attestors.a, attestors.b",
    ),
    0,
    CONTEXT,
  );
  assert.ok(keys && !keys.refused, JSON.stringify(keys?.findings));
  const [policy, secret] = keys.objects as unknown as Emitted[];
  assert.deepEqual(policy?.spec.repositories[0]?.policy.simple.requirements, [{
    type: "sigstoreSigned",
    keySecret: "ivp-key-any-a-b",
    tlog: "required",
    trustRootRef: { name: "sigstore-public-good" },
  }]);
  const pems = (secret as unknown as { stringData: { key: string } }).stringData.key;
  assert.equal(pems.match(/BEGIN PUBLIC KEY/g)?.length, 2);
  validatePolicy(policy, [API_GROUP]);

  const identity = (subject: string) =>
    `{cosign: {keyless: {identities: [{issuer: "https://token.actions.githubusercontent.com", subject: "${subject}"}]}}}`;
  const [keyless] = await IVP.convert(
    anyOf(
      `  - {name: main, ${
        identity("https://github.com/o/r/.github/workflows/a.yml@refs/heads/main").slice(1)
      }
  - {name: release, ${
        identity("https://github.com/o/r/.github/workflows/b.yml@refs/heads/main").slice(1)
      }`,
      "attestors.main, attestors.release",
    ),
    0,
    CONTEXT,
  );
  assert.ok(keyless && !keyless.refused, JSON.stringify(keyless?.findings));
  const requirements = (keyless.objects[0] as unknown as Emitted).spec.repositories[0]?.policy
    .simple.requirements as Record<string, { identities: unknown[] }>[];
  assert.equal(requirements.length, 1);
  assert.equal(requirements[0]!.keyless!.identities.length, 2);
  validatePolicy(keyless.objects[0], [API_GROUP]);
});

Deno.test("any one of attestors toolkit cannot merge exactly is refused with the validation's path", async () => {
  const refusedOf = async (attestors: string, names: string) => {
    const [rule] = await IVP.convert(anyOf(attestors, names), 0, CONTEXT);
    assert.ok(rule?.refused);
    const finding = rule.findings.find((f) => f.kind === "refused")!;
    assert.equal(finding.path, "spec.validations[0].expression");
    return finding.reason;
  };
  const keyless =
    `cosign: {keyless: {identities: [{issuer: "https://issuer.example", subject: "ci"}]}}`;
  // A key and a keyless identity.
  assert.match(
    await refusedOf(
      `  - {name: a, cosign: {key: {data: "${KEY_A}"}}}\n  - {name: b, ${keyless}}`,
      "attestors.a, attestors.b",
    ),
    /a key and a keyless identity/,
  );
  // Keys in two Secrets.
  assert.match(
    await refusedOf(
      `  - {name: a, cosign: {key: {secretRef: {name: a}}}}\n  - {name: b, cosign: {key: {secretRef: {name: b}}}}`,
      "attestors.a, attestors.b",
    ),
    /different Secrets/,
  );
  // Different Rekor settings.
  assert.match(
    await refusedOf(
      `  - {name: a, cosign: {key: {data: "${KEY_A}"}, ctlog: {insecureIgnoreTlog: true}}}\n  - {name: b, cosign: {key: {data: "${KEY_B}"}}}`,
      "attestors.a, attestors.b",
    ),
    /different sigstore instances/,
  );
  // Two private instances, which would share one trust root name.
  assert.match(
    await refusedOf(
      `  - {name: a, cosign: {ctlog: {url: "https://rekor.a.example"}, keyless: {identities: [{issuer: i, subject: s}]}}}\n  - {name: b, cosign: {ctlog: {url: "https://rekor.b.example"}, keyless: {identities: [{issuer: i, subject: t}]}}}`,
      "attestors.a, attestors.b",
    ),
    /different sigstore instances/,
  );
});
