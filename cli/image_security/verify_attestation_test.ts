/**
 * `toolkit image-security verify-attestation` in-process: its command line, and the attestations
 * of an in-process registry stand-in (`tests/fakes/cosign_registry.ts`) verified with a PEM key
 * and checked against a policy's conditions. Attestations made by the real cosign are verified
 * in `tests/admission/attestation_e2e_test.ts`.
 */
import assert from "node:assert/strict";
import * as nodeCrypto from "node:crypto";
import { runCli } from "../app.ts";
import { bufferedIO } from "../io.ts";
import { commandContext } from "../context.ts";
import { encodeBase64 } from "../../lib/base64.ts";
import { dssePae } from "../../lib/signature/mod.ts";
import { cosignLayout, serveReferrersRegistry } from "../../tests/fakes/cosign_registry.ts";

const SLSA = "https://slsa.dev/provenance/v1";
const DIGEST = `sha256:${"ab".repeat(32)}`;

async function run(args: string[], cwd?: string) {
  const io = bufferedIO(cwd ? { cwd } : {});
  const status = await runCli(args, commandContext(io));
  return { status, out: io.out(), err: io.err() };
}

const pair = nodeCrypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
const other = nodeCrypto.generateKeyPairSync("ec", { namedCurve: "P-256" });

function attestation(repository: string, predicateType = SLSA) {
  const payload = new TextEncoder().encode(JSON.stringify({
    _type: "https://in-toto.io/Statement/v1",
    subject: [{ name: "team/app", digest: { sha256: DIGEST.slice(7) } }],
    predicateType,
    predicate: { buildDefinition: { externalParameters: { repository } } },
  }));
  const sig = nodeCrypto.sign(
    "sha256",
    dssePae("application/vnd.in-toto+json", payload),
    pair.privateKey,
  );
  return {
    format: "legacy" as const,
    payload: new TextEncoder().encode(JSON.stringify({
      payloadType: "application/vnd.in-toto+json",
      payload: encodeBase64(payload),
      signatures: [{ keyid: "", sig: encodeBase64(sig) }],
    })),
    annotations: {},
    where: "",
  };
}

async function setup() {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-verify-attestation-" });
  await Deno.writeTextFile(
    `${dir}/cosign.pub`,
    pair.publicKey.export({ type: "spki", format: "pem" }).toString(),
  );
  await Deno.writeTextFile(
    `${dir}/other.pub`,
    other.publicKey.export({ type: "spki", format: "pem" }).toString(),
  );
  await Deno.writeTextFile(
    `${dir}/policy.yaml`,
    `conditions:
  - name: from-our-repo
    expression: predicate.buildDefinition.externalParameters.repository == "https://git.example/team/app"
    message: built from a repository other than team/app
`,
  );
  return dir;
}

Deno.test("verify-attestation: usage errors exit 2", async () => {
  const dir = await setup();
  for (
    const [args, message] of [
      [["--key", "cosign.pub"], /Name the predicate type with --type/],
      [["--type", "not a type", "--key", "cosign.pub"], /--type "not a type" is neither a URI/],
      [["--type", "slsaprovenance1"], /--key FILE or --key-secret NAMESPACE\/NAME/],
      [
        ["--type", "slsaprovenance1", "--key", "cosign.pub", "--key-secret", "a/b"],
        /one of them/,
      ],
    ] as const
  ) {
    const r = await run(
      ["image-security", "verify-attestation", `r.example/a@${DIGEST}`, ...args],
      dir,
    );
    assert.equal(r.status, 2, r.err);
    assert.match(r.err, message);
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("verify-attestation prints the verified statements, and which conditions held", async () => {
  const dir = await setup();
  const layout = await cosignLayout(DIGEST, [
    attestation("https://git.example/team/app"),
    attestation("https://git.example/team/app", "https://spdx.dev/Document"),
  ], { attestationType: SLSA });
  await using server = serveReferrersRegistry({ layout });
  const image = `${server.host}/team/app@${DIGEST}`;
  const base = ["image-security", "verify-attestation", image, "--tls-verify=false"];
  const ok = await run(
    [...base, "--type", "slsaprovenance1", "--key", "cosign.pub", "-o", "json"],
    dir,
  );
  assert.equal(ok.status, 0, ok.err);
  const data = JSON.parse(ok.out);
  assert.equal(data.verified, true);
  assert.equal(data.predicateType, SLSA);
  assert.equal(data.attestations.length, 1);
  assert.equal(
    data.attestations[0].statement.predicate.buildDefinition.externalParameters.repository,
    "https://git.example/team/app",
  );
  const text = await run(
    [...base, "--type", SLSA, "--key", "cosign.pub", "--policy", "policy.yaml"],
    dir,
  );
  assert.equal(text.status, 0, text.err);
  assert.match(text.out, /^Verified attestation of https:\/\/slsa\.dev\/provenance\/v1 for /);
  assert.match(text.out, /\n {2}condition "from-our-repo": true\n/);
  // Another key verifies nothing.
  const wrong = await run([...base, "--type", SLSA, "--key", "other.pub"], dir);
  assert.equal(wrong.status, 1);
  assert.match(
    wrong.err,
    /is not verified: no attestation of type https:\/\/slsa\.dev\/provenance\/v1 is verified with the keys of --key other\.pub \(layer sha256:\w+ of sha256-\w+\.att: the envelope's signature does not verify with the PEM key of the requirement/,
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("verify-attestation exits 1 when no statement meets the policy's conditions", async () => {
  const dir = await setup();
  const layout = await cosignLayout(DIGEST, [attestation("https://git.example/evil/app")], {
    attestationType: SLSA,
  });
  await using server = serveReferrersRegistry({ layout });
  const r = await run([
    "image-security",
    "verify-attestation",
    `${server.host}/team/app@${DIGEST}`,
    "--tls-verify=false",
    "--type",
    "slsaprovenance1",
    "--key",
    "cosign.pub",
    "--policy",
    "policy.yaml",
    "-o",
    "json",
  ], dir);
  assert.equal(r.status, 1);
  const data = JSON.parse(r.out);
  assert.equal(data.verified, false);
  assert.deepEqual(data.attestations[0].conditions, [{
    name: "from-our-repo",
    held: false,
    message: "built from a repository other than team/app",
  }]);
  assert.match(
    r.err,
    /no attestation of type https:\/\/slsa\.dev\/provenance\/v1 meets every condition of --policy/,
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("verify-attestation verifies a GitHub artifact attestation keyless, with a trust root and an identity", async () => {
  const fixtures = new URL("../../tests/fixtures/", import.meta.url);
  const bundle = await Deno.readFile(
    new URL("attestations/github-reusable-workflow-attestation.sigstore.json", fixtures),
  );
  const digest = "sha256:49a3aa6075e0f49f82843e74b5baa614ad2a588e6675612bf108a0a008c5ac25";
  const layout = await cosignLayout(digest, [{ format: "bundle", bundle, where: "" }], {
    attestationType: SLSA,
  });
  await using server = serveReferrersRegistry({ layout });
  const root = new URL("sigstore/public_good_trusted_root.json", fixtures).pathname;
  const base = [
    "image-security",
    "verify-attestation",
    `${server.host}/github/artifact@${digest}`,
    "--tls-verify=false",
    "--type",
    "slsaprovenance1",
    "--trust-root",
    root,
    "--certificate-oidc-issuer",
    "https://token.actions.githubusercontent.com",
  ];
  const r = await run([
    ...base,
    "--certificate-identity-regexp",
    "^https://github\\.com/github/artifact-attestations-workflows/",
    "-o",
    "json",
  ]);
  assert.equal(r.status, 0, r.err);
  const data = JSON.parse(r.out);
  assert.equal(
    data.attestations[0].statement.predicate.buildDefinition.externalParameters.workflow
      .repository,
    "https://github.com/malancas/attest-demo",
  );
  const other = await run([...base, "--certificate-identity", "https://github.com/other"]);
  assert.equal(other.status, 1);
  assert.match(other.err, /which is not an accepted identity/);
  const both = await run([...base, "--certificate-identity", "x", "--key", "k.pub"]);
  assert.equal(both.status, 2);
});
