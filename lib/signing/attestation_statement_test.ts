import assert from "node:assert/strict";
import {
  COSIGN_CUSTOM_PREDICATE_TYPE,
  encodeStatement,
  inTotoStatement,
  predicateFromFile,
  predicateTypeOf,
  SLSA_PROVENANCE_V1,
  slsaProvenance,
  TOOLKIT_BUILD_TYPE,
} from "./attestation_statement.ts";
import { UsageError } from "../errors.ts";

const HEX = "d2c75242ad9ff5d7b38175ddac59371af9ece029097e93faf82bb61493ba6683";
const COMMIT = "0123456789abcdef0123456789abcdef01234567";
const encoder = new TextEncoder();

Deno.test("predicateTypeOf() maps cosign's short names and takes any other URI as it is", () => {
  assert.equal(predicateTypeOf("slsaprovenance1"), "https://slsa.dev/provenance/v1");
  assert.equal(predicateTypeOf("slsaprovenance"), "https://slsa.dev/provenance/v0.2");
  assert.equal(predicateTypeOf("slsaprovenance02"), "https://slsa.dev/provenance/v0.2");
  assert.equal(predicateTypeOf("spdxjson"), "https://spdx.dev/Document");
  assert.equal(predicateTypeOf("cyclonedx"), "https://cyclonedx.org/bom");
  assert.equal(predicateTypeOf("link"), "https://in-toto.io/Link/v1");
  assert.equal(predicateTypeOf("vuln"), "https://cosign.sigstore.dev/attestation/vuln/v1");
  assert.equal(predicateTypeOf("openvex"), "https://openvex.dev/ns");
  assert.equal(predicateTypeOf("custom"), COSIGN_CUSTOM_PREDICATE_TYPE);
  assert.equal(predicateTypeOf("https://example.com/p/v1"), "https://example.com/p/v1");
  for (const bad of ["slsa", "", "not a uri", "toString", "__proto__"]) {
    assert.throws(() => predicateTypeOf(bad), UsageError, bad);
  }
});

Deno.test("inTotoStatement() names the repository and the digest by algorithm", () => {
  const statement = inTotoStatement(
    [{ name: "registry.example/team/app", digest: `sha256:${HEX}` }],
    SLSA_PROVENANCE_V1,
    { a: 1 },
  );
  assert.equal(
    new TextDecoder().decode(encodeStatement(statement)),
    `{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"registry.example/team/app","digest":{"sha256":"${HEX}"}}],"predicateType":"https://slsa.dev/provenance/v1","predicate":{"a":1}}`,
  );
  assert.throws(() => inTotoStatement([], SLSA_PROVENANCE_V1, {}), TypeError);
  assert.throws(() => inTotoStatement([{ name: "r", digest: "sha256:zz" }], "x:y", {}), TypeError);
});

Deno.test("predicateFromFile() reads a JSON object, or wraps custom text as cosign does", () => {
  const now = new Date("2026-01-02T03:04:05.678Z");
  assert.deepEqual(predicateFromFile(encoder.encode('{"x":[1]}'), SLSA_PROVENANCE_V1, now, "f"), {
    x: [1],
  });
  assert.deepEqual(
    predicateFromFile(encoder.encode("hello"), COSIGN_CUSTOM_PREDICATE_TYPE, now, "f"),
    {
      Data: "hello",
      Timestamp: "2026-01-02T03:04:05Z",
    },
  );
  assert.throws(
    () => predicateFromFile(encoder.encode("[1]"), SLSA_PROVENANCE_V1, now, "f"),
    /not a JSON object/,
  );
  assert.throws(
    () => predicateFromFile(encoder.encode("{"), SLSA_PROVENANCE_V1, now, "f"),
    /not JSON/,
  );
  assert.throws(
    () => predicateFromFile(new Uint8Array([0xff]), SLSA_PROVENANCE_V1, now, "f"),
    /UTF-8/,
  );
});

const BUILD = {
  repository: "https://git.example/team/app",
  revision: "main",
  commit: COMMIT,
  pipeline: "app-build",
  task: "build",
  builderId: "https://toolkit.dev/tekton/dev",
  invocationId: "8f1c2e1a-0000-4000-8000-000000000001",
  startedOn: new Date("2026-01-02T03:04:05.123Z"),
  finishedOn: new Date("2026-01-02T03:09:00Z"),
};

Deno.test("slsaProvenance() writes the fields the brief and docs/signing.md name", () => {
  assert.deepEqual(slsaProvenance(BUILD), {
    buildDefinition: {
      buildType: TOOLKIT_BUILD_TYPE,
      externalParameters: {
        repository: "https://git.example/team/app",
        revision: "main",
        pipeline: "app-build",
        task: "build",
      },
      internalParameters: {},
      resolvedDependencies: [{
        uri: "git+https://git.example/team/app",
        digest: { sha1: COMMIT },
      }],
    },
    runDetails: {
      builder: { id: "https://toolkit.dev/tekton/dev" },
      metadata: {
        invocationId: BUILD.invocationId,
        startedOn: "2026-01-02T03:04:05Z",
        finishedOn: "2026-01-02T03:09:00Z",
      },
    },
  });
  const sha256 = "ab".repeat(32);
  const p = slsaProvenance({ ...BUILD, commit: sha256, startedOn: undefined }) as {
    buildDefinition: { resolvedDependencies: { digest: unknown }[] };
    runDetails: { metadata: Record<string, string> };
  };
  assert.deepEqual(p.buildDefinition.resolvedDependencies[0]!.digest, { sha256 });
  assert.equal(p.runDetails.metadata.startedOn, undefined);
});

Deno.test("slsaProvenance() refuses a missing field, a branch name and a builder id that is no URI", () => {
  assert.throws(() => slsaProvenance({ ...BUILD, repository: " " }), /repository not given/);
  assert.throws(() => slsaProvenance({ ...BUILD, invocationId: "" }), /invocationId not given/);
  assert.throws(() => slsaProvenance({ ...BUILD, commit: "main" }), /not a full commit hash/);
  assert.throws(() => slsaProvenance({ ...BUILD, revision: "" }), /revision not given/);
  assert.throws(() => slsaProvenance({ ...BUILD, builderId: "tekton" }), /not a URI/);
});
