/**
 * Attestations made by peers, verified as the `attestation` requirement verifies them
 * (tests/fixtures/attestations, origins in its README): GitHub's artifact attestations (Sigstore
 * bundles of a DSSE in-toto statement, keyless, verified offline against the public-good trust
 * root), npm's provenance from GitHub Actions, and Tekton Chains' SLSA v1.0 provenance (a
 * statement of its e2e expectations, signed here as Chains signs: DSSE with a PEM key, stored in
 * the `.att` tag). cosign's own `attest` is verified in tests/admission/attestation_e2e_test.ts.
 */
import assert from "node:assert/strict";
import * as nodeCrypto from "node:crypto";
import { encodeBase64 } from "../base64.ts";
import { compileAttestationCondition, loadAttestationConditions } from "../policy/mod.ts";
import { dssePae } from "../signature/mod.ts";
import { compileIdentities } from "./identities.ts";
import { readSigstorePublicKeys } from "./public_keys.ts";
import { parseTrustRoot } from "./trust_root.ts";
import { verifyAttestation } from "./verify_attestation.ts";

await loadAttestationConditions();

const FIXTURES = new URL("../../tests/fixtures/attestations/", import.meta.url);
const ROOT = new URL(
  "../../tests/fixtures/sigstore/public_good_trusted_root.json",
  import.meta.url,
);
const GITHUB = "https://token.actions.githubusercontent.com";

async function keyless(subject: string) {
  const trustRoot = await parseTrustRoot(await Deno.readFile(ROOT), "public good");
  return {
    sigstore: {
      keyless: { trustRoot, identities: compileIdentities([{ issuer: GITHUB, subject }]) },
      tlog: "required" as const,
    },
    clock: () => new Date(),
  };
}

function holds(expression: string, statement: Record<string, unknown>) {
  const result = compileAttestationCondition({ name: "c", expression }).evaluate({
    statement,
    predicate: statement.predicate ?? null,
    subject: statement.subject ?? null,
    predicateType: statement.predicateType,
    attestations: {},
  });
  assert.ok(result.ok, JSON.stringify(result));
  return result.value;
}

Deno.test("a GitHub artifact attestation verifies offline, keyless, and its provenance meets conditions", async () => {
  const bundle = await Deno.readFile(
    new URL("github-reusable-workflow-attestation.sigstore.json", FIXTURES),
  );
  const workflow =
    "https://github.com/github/artifact-attestations-workflows/.github/workflows/attest.yml@09b495c3f12c7881b3cc17209a327792065c1a1d";
  const digest = "sha256:49a3aa6075e0f49f82843e74b5baa614ad2a588e6675612bf108a0a008c5ac25";
  const result = await verifyAttestation(
    { format: "bundle", bundle, where: "github" },
    await keyless(workflow),
    digest,
  );
  assert.ok(result.verified, JSON.stringify(result));
  assert.equal(result.attestation.predicateType, "https://slsa.dev/provenance/v1");
  assert.equal(result.attestation.signer, `${workflow} (${GITHUB})`);
  assert.equal(
    holds(
      'predicate.buildDefinition.externalParameters.workflow.repository == "https://github.com/malancas/attest-demo" && predicate.runDetails.builder.id.startsWith("https://github.com/")',
      result.attestation.statement,
    ),
    true,
  );
  // Another identity, or another artifact, is refused.
  const stranger = await verifyAttestation(
    { format: "bundle", bundle, where: "github" },
    await keyless("https://github.com/someone/else/.github/workflows/x.yml@refs/heads/main"),
    digest,
  );
  assert.equal(stranger.verified, false);
  assert.match((stranger as { reason: string }).reason, /which is not an accepted identity/);
  const other = await verifyAttestation(
    { format: "bundle", bundle, where: "github" },
    await keyless(workflow),
    `sha256:${"0".repeat(64)}`,
  );
  assert.match((other as { reason: string }).reason, /its statement's subject is sha256:49a3/);
});

Deno.test("npm's provenance from GitHub Actions (a sigstore-js release) verifies, its subject by sha512", async () => {
  const bundle = await Deno.readFile(
    new URL("github-npm-sigstore-js-2.1.0.sigstore.json", FIXTURES),
  );
  const result = await verifyAttestation(
    { format: "bundle", bundle, where: "npm" },
    await keyless(
      "https://github.com/sigstore/sigstore-js/.github/workflows/release.yml@refs/heads/main",
    ),
    "sha512:90f223f992e4c88dd068cd2a5fc57f9d2b30798343dd6e38f29c240e04ba090ef831f84490847c4e82b9232c78e8a258463b1e55c0f7469f730265008fa6633f",
  );
  assert.ok(result.verified, JSON.stringify(result));
  assert.equal(result.attestation.predicateType, "https://slsa.dev/provenance/v1");
});

Deno.test("Tekton Chains' SLSA v1.0 provenance, signed as Chains signs it, verifies and meets conditions", async () => {
  const statement = await Deno.readFile(
    new URL("tekton-chains-v2alpha4-task-output-image.json", FIXTURES),
  );
  const pair = nodeCrypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
  const sig = nodeCrypto.sign(
    "sha256",
    dssePae("application/vnd.in-toto+json", statement),
    pair.privateKey,
  );
  const envelope = new TextEncoder().encode(JSON.stringify({
    payloadType: "application/vnd.in-toto+json",
    payload: encodeBase64(statement),
    signatures: [{ keyid: "", sig: encodeBase64(sig) }],
  }));
  const keys = await readSigstorePublicKeys(
    pair.publicKey.export({ type: "spki", format: "pem" }).toString(),
  );
  const result = await verifyAttestation(
    { format: "legacy", payload: envelope, annotations: {}, where: "chains" },
    { sigstore: { keys, tlog: "optional" }, clock: () => new Date() },
    "sha256:05f95b26ed10668b7183c1e2da98610e91372fa9f510046d4ce5812addad86b5",
  );
  assert.ok(result.verified, JSON.stringify(result));
  assert.equal(
    holds(
      'predicate.buildDefinition.buildType == "https://tekton.dev/chains/v2/slsa" && predicate.runDetails.builder.id == "https://tekton.dev/chains/v2" && predicate.buildDefinition.resolvedDependencies.exists(d, d.uri == "oci://busybox")',
      result.attestation.statement,
    ),
    true,
  );
});
