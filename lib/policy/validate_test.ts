import assert from "node:assert/strict";
import { InvalidPolicyError, validatePolicy } from "./validate.ts";
import { API_GROUP, PORTIERIS_API_GROUP } from "./crds.ts";

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
    'spec.repositories[1].policy.simple.requirements[1].type: "trustMe" is not supported: use one of "signedBy", "insecureAcceptAnything", "reject"',
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
