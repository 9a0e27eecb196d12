import assert from "node:assert/strict";
import { InvalidPolicyError, validatePolicy, validatePolicyInSlices } from "./validate.ts";
import { API_GROUP, PORTIERIS_API_GROUP } from "./crds.ts";
import { loadAttestationConditions } from "./attestation_conditions.ts";

await loadAttestationConditions();

const groups = [API_GROUP];

function policy(spec: unknown, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: `${API_GROUP}/v1`,
    kind: "ImagePolicy",
    metadata: { name: "p", namespace: "dev" },
    spec,
    ...extra,
  };
}

function problems(raw: unknown, g = groups): string[] {
  try {
    validatePolicy(raw, g);
  } catch (error) {
    assert.ok(error instanceof InvalidPolicyError);
    return error.problems.map((p) => `${p.path}: ${p.message}`);
  }
  return [];
}

Deno.test("validatePolicy() accepts a Portieris-style policy", () => {
  const parsed = validatePolicy(
    policy({
      repositories: [
        { name: "icr.io/*", policy: null },
        {
          name: "us.icr.io/team/*",
          policy: {
            mutateImage: false,
            simple: {
              requirements: [{
                type: "signedBy",
                keySecret: "signer",
                signedIdentity: {
                  type: "remapIdentity",
                  prefix: "us.icr.io",
                  signedPrefix: "icr.io",
                },
              }],
            },
          },
        },
      ],
    }),
    groups,
  );
  assert.equal(parsed.namespace, "dev");
  assert.deepEqual(parsed.repositories[0]?.policy, {});
  assert.equal(parsed.repositories[1]?.policy.mutateImage, false);
  assert.equal(parsed.repositories[1]?.policy.simple?.requirements?.[0]?.keySecret, "signer");
});

Deno.test("validatePolicy() names every wrong field with its path", () => {
  const found = problems(policy({
    repositories: [
      { name: "" },
      {
        name: "x/*",
        policy: {
          mutateImage: "yes",
          simple: {
            requirements: [
              { type: "signedBy" },
              { type: "trustMe" },
              { type: "signedBy", keySecret: "k", signedIdentity: { type: "matchExactReference" } },
            ],
          },
        },
      },
    ],
  }));
  assert.deepEqual(found, [
    "spec.repositories[0].name: is required",
    "spec.repositories[1].policy.mutateImage: must be true or false",
    "spec.repositories[1].policy.simple.requirements[0].keySecret: is required for signedBy",
    'spec.repositories[1].policy.simple.requirements[1].type: "trustMe" is not supported: use one of "signedBy", "sigstoreSigned", "insecureAcceptAnything", "reject", "attestation"',
    "spec.repositories[1].policy.simple.requirements[2].signedIdentity.dockerReference: is required for matchExactReference",
  ]);
});

Deno.test("validatePolicy() checks the API group and unknown fields", () => {
  const portieris = policy({ repositories: [] }, {
    apiVersion: `${PORTIERIS_API_GROUP}/v1`,
  });
  assert.match(problems(portieris)[0] ?? "", /^apiVersion: /);
  assert.deepEqual(problems(portieris, [PORTIERIS_API_GROUP]), []);
  assert.deepEqual(problems(policy({ repositories: [{ name: "a", polcy: {} }] })), [
    "spec.repositories[0].polcy: is not a known field",
  ]);
});

Deno.test("validatePolicy() rejects a missing spec and a bad store URL", () => {
  assert.deepEqual(problems(policy(undefined)), ["spec: is required"]);
  assert.match(
    problems(
      policy({ repositories: [{ name: "a", policy: { simple: { storeURL: "ftp://x" } } }] }),
    )[0] ?? "",
    /storeURL: "ftp:\/\/x" is not an http\(s\) or file URL/,
  );
});

Deno.test("validatePolicy() bounds patterns, strings and lists with field paths", () => {
  assert.deepEqual(problems(policy({ repositories: [{ name: "icr.io/Team/*" }] })), [
    'spec.repositories[0].name: "icr.io/Team/*" has upper case in the repository path "Team/*", which image names never have',
  ]);
  const long = problems(policy({ repositories: [{ name: "x".repeat(600) }] }));
  assert.match(long[0] ?? "", /^spec\.repositories\[0\]\.name: "x{256}…\(600 bytes\)" is 600/);
  assert.match(
    problems(policy({
      repositories: [{
        name: "*",
        policy: { simple: { requirements: [{ type: "signedBy", keySecret: "k".repeat(300) }] } },
      }],
    }))[0] ?? "",
    /requirements\[0\]\.keySecret: is 300 characters long; at most 253/,
  );
  const many = Array.from({ length: 513 }, () => ({ name: "*" }));
  assert.match(problems(policy({ repositories: many }))[0] ?? "", /at most 512/);
});

const withRequirements = (...requirements: unknown[]) =>
  policy({ repositories: [{ name: "reg.test/*", policy: { simple: { requirements } } }] });
const REQ = "spec.repositories[0].policy.simple.requirements";

Deno.test("validatePolicy() reads sigstoreSigned requirements, keyed and keyless", () => {
  const parsed = validatePolicy(
    withRequirements(
      { type: "sigstoreSigned", keySecret: "cosign-pub" },
      {
        type: "sigstoreSigned",
        keySecret: "cosign-pub",
        tlog: "required",
        trustRootRef: { name: "sigstore-root" },
        signedIdentity: { type: "matchExactRepository", dockerRepository: "reg.test/app" },
      },
      {
        type: "sigstoreSigned",
        keyless: {
          trustRootRef: { kind: "Secret", name: "root", namespace: "sigstore", key: "root.json" },
          identities: [
            {
              issuer: "https://token.actions.githubusercontent.com",
              subjectRegExp: "^https://github\\.com/org/",
            },
            { issuerRegExp: "^https://accounts\\.google\\.com$", subject: "me@example.com" },
          ],
        },
      },
      { type: "signedBy", keySecret: "gpg" },
    ),
    groups,
  );
  const requirements = parsed.repositories[0]!.policy.simple!.requirements!;
  assert.deepEqual(requirements[0], { type: "sigstoreSigned", keySecret: "cosign-pub" });
  assert.deepEqual(requirements[1]?.trustRootRef, { kind: "ConfigMap", name: "sigstore-root" });
  assert.equal(requirements[1]?.tlog, "required");
  assert.deepEqual(requirements[2]?.keyless, {
    trustRootRef: { kind: "Secret", name: "root", namespace: "sigstore", key: "root.json" },
    identities: [
      {
        issuer: "https://token.actions.githubusercontent.com",
        subjectRegExp: "^https://github\\.com/org/",
      },
      { issuerRegExp: "^https://accounts\\.google\\.com$", subject: "me@example.com" },
    ],
  });
});

Deno.test("validatePolicy() names every wrong sigstoreSigned field with its path", () => {
  assert.deepEqual(
    problems(withRequirements(
      { type: "sigstoreSigned" },
      {
        type: "sigstoreSigned",
        keySecret: "k",
        keyless: { trustRootRef: { name: "r" }, identities: [{ issuer: "i", subject: "s" }] },
      },
      { type: "sigstoreSigned", keySecret: "k", tlog: "always" },
      { type: "sigstoreSigned", keySecret: "k", tlog: "required" },
      { type: "signedBy", keySecret: "k", tlog: "required", keyless: {} },
      {
        type: "sigstoreSigned",
        keyless: {
          trustRootRef: { kind: "Pod" },
          identities: [
            { issuer: "i" },
            { issuer: "i", issuerRegExp: "j", subject: "s" },
            { issuerRegExp: "(a+", subject: "s" },
            { issuer: "i", subjectRegExp: "(?i)ME@EXAMPLE.COM" },
            { issuer: "i", subject: "s", email: "x" },
          ],
        },
      },
      {
        type: "sigstoreSigned",
        keyless: { trustRootRef: { name: "r" }, identities: [] },
        trustRootRef: { name: "r" },
      },
    )),
    [
      `${REQ}[0].keySecret: sigstoreSigned needs keySecret (keyed) or keyless, not both`,
      `${REQ}[1].keySecret: sigstoreSigned needs keySecret (keyed) or keyless, not both`,
      `${REQ}[2].tlog: "always" is not supported: use one of "required", "optional"`,
      `${REQ}[3].trustRootRef: is required for tlog: required with a keySecret (the logs' keys)`,
      `${REQ}[4].keyless: is only for sigstoreSigned and attestation`,
      `${REQ}[4].tlog: is only for sigstoreSigned and attestation`,
      `${REQ}[5].keyless.trustRootRef.kind: "Pod" is not supported: use one of "ConfigMap", "Secret"`,
      `${REQ}[5].keyless.trustRootRef.name: is required`,
      `${REQ}[5].keyless.identities[0].subject: one of subject and subjectRegExp is required`,
      `${REQ}[5].keyless.identities[1].issuer: one of issuer and issuerRegExp is required`,
      `${REQ}[5].keyless.identities[2].issuerRegExp: Cannot use regular expression "(a+": missing ) at character 4`,
      `${REQ}[5].keyless.identities[3].subjectRegExp: Cannot use regular expression "(?i)ME@EXAMPLE.COM": flags and look-around groups are not supported at character 2`,
      `${REQ}[5].keyless.identities[4].email: is not a known field`,
      `${REQ}[6].keyless.identities: must be a non-empty list`,
      `${REQ}[6].trustRootRef: is for a keyed requirement (keyless names its own)`,
    ],
  );
});

Deno.test("validatePolicy() bounds the work of a keyless requirement's regular expressions", () => {
  const heavy = { issuer: "i", subjectRegExp: "^(?:a|b){600}$" };
  assert.deepEqual(
    problems(withRequirements({
      type: "sigstoreSigned",
      keyless: { trustRootRef: { name: "r" }, identities: Array.from({ length: 8 }, () => heavy) },
    })).map((p) => p.replace(/\d+ states/, "N states")),
    [
      `${REQ}[0].keyless.identities: its regular expressions compile to N states; at most 8192 are allowed in all`,
    ],
  );
});

Deno.test("validatePolicyInSlices() validates as validatePolicy() does, waiting between slices", async () => {
  const raw = {
    apiVersion: "toolkit.dev/v1",
    kind: "ImagePolicy",
    metadata: { name: "p", namespace: "dev" },
    spec: {
      repositories: Array.from({ length: 512 }, (_, i) => ({
        name: `icr.io/team/app-${i}`,
        policy: { simple: { requirements: [{ type: "signedBy", keySecret: "k" }] } },
      })),
    },
  };
  let turns = 0;
  const slicer = {
    counter: { steps: 0 },
    due: () => true,
    next: () => Promise.resolve(void turns++),
  };
  const policy = await validatePolicyInSlices(raw, ["toolkit.dev"], slicer);
  assert.deepEqual(policy, validatePolicy(raw, ["toolkit.dev"]));
  assert.equal(turns, 512 / 16 - 1);
  const broken = structuredClone(raw);
  broken.spec.repositories[300]!.name = "";
  await assert.rejects(
    validatePolicyInSlices(broken, ["toolkit.dev"], slicer),
    /spec\.repositories\[300\]\.name: is required/,
  );
});

Deno.test("validatePolicy() reads multiArch and platforms of signature requirements", () => {
  const parsed = validatePolicy(
    withRequirements(
      {
        type: "signedBy",
        keySecret: "k",
        multiArch: "everyPlatform",
        platforms: ["linux/amd64", "linux/arm64/v8", "linux/amd64"],
      },
      { type: "sigstoreSigned", keySecret: "k", multiArch: "either" },
      { type: "sigstoreSigned", keySecret: "k" },
    ),
    groups,
  );
  const requirements = parsed.repositories[0]!.policy.simple!.requirements!;
  assert.equal(requirements[0]?.multiArch, "everyPlatform");
  assert.deepEqual(requirements[0]?.platforms, ["linux/amd64", "linux/arm64/v8"]);
  assert.equal(requirements[1]?.multiArch, "either");
  assert.equal(requirements[1]?.platforms, undefined);
  assert.equal(requirements[2]?.multiArch, undefined);
});

Deno.test("validatePolicy() names every wrong multiArch and platforms field with its path", () => {
  assert.deepEqual(
    problems(withRequirements(
      { type: "signedBy", keySecret: "k", multiArch: "all" },
      { type: "signedBy", keySecret: "k", platforms: "linux/amd64" },
      { type: "signedBy", keySecret: "k", platforms: ["linux", "Linux/AMD64", 3, "linux/amd64"] },
      { type: "signedBy", keySecret: "k", platforms: [] },
      { type: "signedBy", keySecret: "k", platforms: Array.from({ length: 33 }, () => "a/b") },
      { type: "reject", multiArch: "index", platforms: ["linux/amd64"] },
    )),
    [
      `${REQ}[0].multiArch: "all" is not supported: use one of "index", "everyPlatform", "either"`,
      `${REQ}[1].platforms: must be a list of platforms (os/architecture[/variant], e.g. linux/amd64)`,
      `${REQ}[2].platforms[0]: must be a platform as os/architecture[/variant] in lower case (e.g. linux/amd64, linux/arm64/v8), not "linux"`,
      `${REQ}[2].platforms[1]: must be a platform as os/architecture[/variant] in lower case (e.g. linux/amd64, linux/arm64/v8), not "Linux/AMD64"`,
      `${REQ}[2].platforms[2]: must be a platform as os/architecture[/variant] in lower case (e.g. linux/amd64, linux/arm64/v8), not "3"`,
      `${REQ}[3].platforms: must name at least one platform (omit it for all)`,
      `${REQ}[4].platforms: lists 33 platforms; at most 32 are allowed`,
      `${REQ}[5].multiArch: is only for signature and attestation requirements`,
      `${REQ}[5].platforms: is only for signature and attestation requirements`,
    ],
  );
});

Deno.test("validatePolicy() reads attestation requirements, short names resolved", () => {
  const parsed = validatePolicy(
    withRequirements(
      {
        type: "attestation",
        predicateType: "slsaprovenance1",
        keySecret: "build-keys",
        conditions: [{
          name: "from-our-repo",
          expression:
            'predicate.buildDefinition.externalParameters.repository == "https://git.example/team/app"',
          message: "built from a repository other than team/app",
        }],
      },
      {
        type: "attestation",
        predicateType: "https://spdx.dev/Document",
        keyless: { trustRootRef: { name: "root" }, identities: [{ issuer: "i", subject: "s" }] },
      },
    ),
    groups,
  );
  const requirements = parsed.repositories[0]!.policy.simple!.requirements!;
  assert.deepEqual(requirements[0], {
    type: "attestation",
    predicateType: "https://slsa.dev/provenance/v1",
    keySecret: "build-keys",
    conditions: [{
      name: "from-our-repo",
      expression:
        'predicate.buildDefinition.externalParameters.repository == "https://git.example/team/app"',
      message: "built from a repository other than team/app",
    }],
  });
  assert.equal(requirements[1]?.predicateType, "https://spdx.dev/Document");
  assert.equal(requirements[1]?.keyless?.trustRootRef.name, "root");
});

Deno.test("validatePolicy() refuses a CEL condition over its limits when the policy is read", () => {
  const found = problems(withRequirements(
    {
      type: "attestation",
      predicateType: "slsaprovenance1",
      keySecret: "k",
      conditions: [
        { name: "ok", expression: "true" },
        {
          name: "too-costly",
          expression: "predicate.a.all(x, predicate.a.all(y, predicate.a.all(z, x == y)))",
        },
        { name: "ok", expression: "false" },
        { name: "broken", expression: "predicate.(" },
      ],
    },
    { type: "attestation", keySecret: "k" },
    {
      type: "attestation",
      predicateType: "not a uri",
      keySecret: "k",
      signedIdentity: { type: "matchRepository" },
    },
    { type: "sigstoreSigned", keySecret: "k", predicateType: "slsaprovenance1", conditions: [] },
  ));
  assert.equal(found.length, 8, found.join("\n"));
  assert.match(
    found[0]!,
    /^spec\.repositories\[0\]\.policy\.simple\.requirements\[0\]\.conditions\[1\]\.expression: Cannot use the CEL condition "too-costly": its estimated cost \d+ is more than the limit 10000000$/,
  );
  assert.deepEqual(found.slice(1), [
    `${REQ}[0].conditions[2].name: "ok" is named twice`,
    `${REQ}[0].conditions[3].expression: Cannot use the CEL condition "broken": the expression does not parse (<input>:1:10: found . but expecting end of input)`,
    `${REQ}[1].predicateType: is required for attestation`,
    `${REQ}[2].signedIdentity: is not for attestation: an attestation names no repository`,
    `${REQ}[2].predicateType: "not a uri" is neither a URI nor one of slsaprovenance, slsaprovenance02, slsaprovenance1, link, spdx, spdxjson, cyclonedx, vuln, openvex, custom`,
    `${REQ}[3].predicateType: is only for attestation`,
    `${REQ}[3].conditions: is only for attestation`,
  ]);
});
