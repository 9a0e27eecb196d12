import assert from "node:assert/strict";
import { API_GROUP, validatePolicy } from "../policy/mod.ts";
import { importDocuments } from "./import_documents.ts";
import { Findings, POLICY_CONTROLLER_IMPORTER, translateGlob } from "./policy_controller.ts";
import { PUBLIC_GOOD_TRUST_ROOT } from "./objects.ts";
import type { ImportedRule } from "./types.ts";

const context = { controllerNamespace: "toolkit-system" };
const PEM_A =
  "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEIcbqK2RAVZOfPzo+kbOhNYq8DK9f\n" +
  "B2BGbU7jAXEvYthJ3vRcYq8l7g9UAXXiz9P2awFuTa4COcZU2IdEDVU0uA==\n-----END PUBLIC KEY-----";
const PEM_B = await (async () => {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const der = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
  const b64 = btoa(String.fromCharCode(...der)).match(/.{1,64}/g)!.join("\n");
  return `-----BEGIN PUBLIC KEY-----\n${b64}\n-----END PUBLIC KEY-----`;
})();

function cip(spec: Record<string, unknown>, version = "v1beta1"): Record<string, unknown> {
  return {
    apiVersion: `policy.sigstore.dev/${version}`,
    kind: "ClusterImagePolicy",
    metadata: { name: "image-policy" },
    spec,
  };
}

async function convert(spec: Record<string, unknown>): Promise<ImportedRule> {
  const result = await importDocuments([cip(spec)], context);
  assert.equal(result.rules.length, 1);
  return result.rules[0]!;
}

function policyOf(rule: ImportedRule): Record<string, unknown> {
  const policy = rule.objects.find((o) => o.kind === "ClusterImagePolicy")!;
  validatePolicy(policy, [API_GROUP]);
  return policy;
}

function requirements(rule: ImportedRule): unknown {
  const spec = policyOf(rule).spec as {
    repositories: { policy: { simple: { requirements: unknown } } }[];
  };
  return spec.repositories[0]!.policy.simple.requirements;
}

Deno.test("the policy-controller importer accepts v1alpha1 and v1beta1 ClusterImagePolicies only", () => {
  assert.ok(POLICY_CONTROLLER_IMPORTER.accepts(cip({}, "v1alpha1")));
  assert.ok(POLICY_CONTROLLER_IMPORTER.accepts(cip({}, "v1beta1")));
  assert.ok(!POLICY_CONTROLLER_IMPORTER.accepts({ ...cip({}), apiVersion: "toolkit.dev/v1" }));
  assert.ok(!POLICY_CONTROLLER_IMPORTER.accepts({ ...cip({}), kind: "TrustRoot" }));
});

Deno.test("keyed authorities become one key Secret holding every key (any key passes)", async () => {
  const rule = await convert({
    images: [{ glob: "ghcr.io/team/**" }],
    mode: "warn",
    authorities: [{ key: { data: PEM_A } }, { key: { data: PEM_B } }],
  });
  assert.equal(rule.refused, false);
  const secret = rule.objects.find((o) => o.kind === "Secret")!;
  assert.deepEqual(secret.metadata, {
    name: "image-policy-key",
    namespace: "toolkit-system",
    annotations: {
      "toolkit.dev/imported-from": "policy.sigstore.dev/v1beta1 ClusterImagePolicy image-policy",
    },
  });
  assert.equal((secret.stringData as { key: string }).key, `${PEM_A}\n${PEM_B}\n`);
  const spec = policyOf(rule).spec as {
    repositories: { name: string; policy: { mode?: string } }[];
  };
  assert.equal(spec.repositories[0]!.name, "ghcr.io/team/*");
  assert.equal(spec.repositories[0]!.policy.mode, "warn");
  assert.deepEqual(requirements(rule), [{ type: "sigstoreSigned", keySecret: "image-policy-key" }]);
  assert.ok(rule.findings.every((f) => f.kind !== "refused" && f.kind !== "weaker"));
});

Deno.test("a keyed authority with ctlog requires the log, with the public-good trust root to supply", async () => {
  const rule = await convert({
    images: [{ glob: "**" }],
    authorities: [{ key: { data: PEM_A }, ctlog: { url: "https://rekor.sigstore.dev" } }],
  });
  assert.deepEqual(requirements(rule), [{
    type: "sigstoreSigned",
    keySecret: "image-policy-key",
    tlog: "required",
    trustRootRef: { name: PUBLIC_GOOD_TRUST_ROOT },
  }]);
  assert.ok(
    rule.findings.some((f) => f.path === "spec.authorities[0].ctlog" && /supply/.test(f.reason)),
  );
});

Deno.test("keyless authorities of one trust root become one requirement listing every identity", async () => {
  const rule = await convert({
    images: [{ glob: "ghcr.io/*/app" }],
    authorities: [
      { keyless: { identities: [{ issuer: "https://issuer", subjectRegExp: "^a$" }] } },
      {
        keyless: {
          url: "https://fulcio.sigstore.dev",
          identities: [{ issuerRegExp: ".*", subject: "b" }],
        },
      },
    ],
  });
  assert.deepEqual(requirements(rule), [{
    type: "sigstoreSigned",
    keyless: {
      trustRootRef: { name: PUBLIC_GOOD_TRUST_ROOT },
      identities: [{ issuer: "https://issuer", subjectRegExp: "^a$" }, {
        issuerRegExp: ".*",
        subject: "b",
      }],
    },
  }]);
  assert.ok(rule.findings.some((f) => f.path === "spec.images[0].glob" && f.kind === "stronger"));
});

Deno.test("alternatives toolkit cannot express, KMS keys and other repositories are refused with their path", async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{
      images: [{ glob: "**" }],
      authorities: [{ key: { data: PEM_A } }, {
        keyless: { identities: [{ issuer: "i", subject: "s" }] },
      }],
    }, "spec.authorities[1]"],
    [
      { images: [{ glob: "**" }], authorities: [{ key: { kms: "awskms:///arn" } }] },
      "spec.authorities[0].key.kms",
    ],
    [{
      images: [{ glob: "**" }],
      authorities: [{ key: { data: PEM_A }, source: [{ oci: "reg/sigs" }] }],
    }, "spec.authorities[0].source[0].oci"],
    [
      { images: [{ glob: "reg/app@sha256:abc" }], authorities: [{ key: { data: PEM_A } }] },
      "spec.images[0].glob",
    ],
    [{
      images: [{ glob: "**" }],
      authorities: [{ static: { action: "pass" } }],
      policy: { type: "cue", data: "x" },
    }, "spec.policy"],
  ];
  for (const [spec, path] of cases) {
    const rule = await convert(spec);
    assert.equal(rule.refused, true, path);
    assert.deepEqual(rule.objects, []);
    assert.equal(rule.findings.at(-1)!.kind, "refused");
    assert.equal(rule.findings.at(-1)!.path, path);
  }
});

Deno.test("static authorities: pass admits, fail alone rejects, fail beside others never decides", async () => {
  assert.deepEqual(
    requirements(
      await convert({ images: [{ glob: "**" }], authorities: [{ static: { action: "pass" } }] }),
    ),
    [{ type: "insecureAcceptAnything" }],
  );
  assert.deepEqual(
    requirements(
      await convert({ images: [{ glob: "**" }], authorities: [{ static: { action: "fail" } }] }),
    ),
    [{ type: "reject" }],
  );
  assert.deepEqual(
    requirements(
      await convert({
        images: [{ glob: "**" }],
        authorities: [{ static: { action: "fail" } }, { key: { data: PEM_A } }],
      }),
    ),
    [{ type: "sigstoreSigned", keySecret: "image-policy-key" }],
  );
});

Deno.test("unknown fields and fields without equivalent are reported by path", async () => {
  const rule = await convert({
    images: [{ glob: "**" }],
    match: [{ resource: "pods", version: "v1" }],
    surprise: true,
    authorities: [{
      key: { data: PEM_A, hashAlgorithm: "sha512" },
      source: [{ signaturePullSecrets: [{ name: "s" }] }],
    }],
  });
  const paths = rule.findings.map((f) => `${f.kind} ${f.path}`);
  for (
    const want of [
      "unmapped spec.surprise",
      "stronger spec.match",
      "stronger metadata",
      "unmapped spec.authorities[0].key.hashAlgorithm",
      "unmapped spec.authorities[0].source[0].signaturePullSecrets",
    ]
  ) assert.ok(paths.includes(want), `${want} in ${paths.join(", ")}`);
});

Deno.test("an authority's attestations become attestation requirements; CUE/Rego alone refuses, beside others is reported", async () => {
  const rule = await convert({
    images: [{ glob: "ghcr.io/team/**" }],
    authorities: [{
      key: { data: PEM_A },
      attestations: [
        { name: "sbom", predicateType: "https://spdx.dev/Document" },
        {
          name: "vuln",
          predicateType: "https://cosign.sigstore.dev/attestation/vuln/v1",
          policy: { type: "cue", data: "x: 1" },
        },
      ],
    }],
  });
  assert.equal(rule.refused, false, JSON.stringify(rule.findings));
  assert.deepEqual(requirements(rule), [
    {
      type: "attestation",
      predicateType: "https://spdx.dev/Document",
      keySecret: "image-policy-key",
    },
    {
      type: "attestation",
      predicateType: "https://cosign.sigstore.dev/attestation/vuln/v1",
      keySecret: "image-policy-key",
    },
  ]);
  assert.ok(
    rule.findings.some((f) =>
      f.kind === "weaker" && f.path === "spec.authorities[0].attestations[1].policy"
    ),
  );

  const alone = await convert({
    images: [{ glob: "**" }],
    authorities: [{
      keyless: { identities: [{ issuer: "https://issuer", subject: "s" }] },
      attestations: [{
        name: "a",
        predicateType: "https://slsa.dev/provenance/v1",
        policy: { type: "rego", data: "x" },
      }],
    }],
  });
  assert.equal(alone.refused, true);
  assert.equal(alone.findings.at(-1)!.path, "spec.authorities[0].attestations[0].policy");
});

Deno.test("translateGlob() follows policy-controller's glob semantics and reports what differs", () => {
  const cases: [string, string, string[]][] = [
    ["**", "*", []],
    ["*", "index.docker.io/library/*", []],
    ["*/*", "index.docker.io/*/*", []],
    ["ghcr.io/team/**", "ghcr.io/team/*", []],
    ["ghcr.io/team/*", "ghcr.io/team/*", ["stronger"]],
    ["quay.io/app:v*", "quay.io/app:v*", []],
    ["quay.io/app", "quay.io/app", ["stronger"]],
    ["busybox*", "index.docker.io/library/busybox*", []],
    ["team/app:1", "index.docker.io/team/app:1", []],
    ["**demo**", "*demo*", []],
    ["*.gcr.io/**", "*.gcr.io/*", []],
  ];
  for (const [glob, pattern, kinds] of cases) {
    const findings = new Findings();
    assert.equal(translateGlob(glob, "spec.images[0].glob", findings), pattern, glob);
    assert.deepEqual(findings.list.map((f) => f.kind), kinds, glob);
  }
  for (const glob of ["reg/app@sha256:abc", "reg/[a]"]) {
    assert.throws(() => translateGlob(glob, "spec.images[0].glob", new Findings()), glob);
  }
});

Deno.test("an inline key toolkit's key Secrets would refuse refuses the policy, with its path", async () => {
  const rule = await convert({
    images: [{ glob: "**" }],
    authorities: [{ key: { data: PEM_A.replace("MFkw", "MFkW") } }],
  });
  assert.equal(rule.refused, true);
  assert.equal(rule.findings.at(-1)!.path, "spec.authorities[0].key.data");
  assert.match(rule.findings.at(-1)!.reason, /^not a key toolkit accepts: /);
});
