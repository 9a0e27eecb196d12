/**
 * Legacy `.att` attestations (the layer blob a DSSE envelope, cosign's certificate and Rekor
 * bundle annotations) verified keyless, and keyed with `tlog: required`, as strictly as legacy
 * `.sig` signatures: with the Fulcio-like test CA and Rekor-like log of
 * tests/fakes/sigstore_instance.ts, each Rekor entry kind cosign logs attestations as (`dsse`
 * 0.0.1, `intoto` 0.0.1 and 0.0.2) is accepted, and each way the evidence can fail is refused
 * with its reason.
 */
import assert from "node:assert/strict";
import {
  type AttestationEntryKind,
  cosignStatement,
  legacyAttestation,
  legacySignature,
  testFulcio,
  testKeyPair,
  testRekor,
  testTrustRoot,
} from "../../tests/fakes/sigstore_instance.ts";
import { COSIGN_BUNDLE_ANNOTATION } from "../signature/cosign_media_types.ts";
import { compileIdentities } from "./identities.ts";
import { readSigstorePublicKeys } from "./public_keys.ts";
import { parseTrustRoot } from "./trust_root.ts";
import type { SigstoreTrust } from "./verify.ts";
import { type AttestationTrust, verifyAttestation } from "./verify_attestation.ts";

const DIGEST = `sha256:${"ab".repeat(32)}`;
const SLSA = "https://slsa.dev/provenance/v1";
const ISSUER = "https://token.actions.githubusercontent.com";
const SUBJECT = "https://github.com/team/app/.github/workflows/release.yml@refs/tags/v1.0";
const KINDS: readonly AttestationEntryKind[] = ["dsse 0.0.1", "intoto 0.0.1", "intoto 0.0.2"];
const statement = cosignStatement(DIGEST, SLSA);

async function keylessSetup(tlog: "required" | "optional" = "required") {
  const fulcio = await testFulcio();
  const log = testRekor();
  const trustRoot = await parseTrustRoot(testTrustRoot({ fulcio, rekor: log }), "test");
  const sigstore: SigstoreTrust = {
    keyless: { trustRoot, identities: compileIdentities([{ issuer: ISSUER, subject: SUBJECT }]) },
    tlog,
  };
  const key = testKeyPair();
  const notBefore = new Date(Date.now() - 3600_000);
  const certificate = await fulcio.issue({
    publicKey: key.publicKey,
    subject: SUBJECT,
    issuer: ISSUER,
    notBefore,
  });
  // Attested and logged while the ten-minute certificate was valid, an hour ago.
  const at = new Date(notBefore.getTime() + 60_000);
  const trust: AttestationTrust = { sigstore, clock: () => new Date() };
  return { fulcio, log, trust, key, certificate, at, signer: { key, certificate } };
}

async function keyedSetup() {
  const key = testKeyPair();
  const log = testRekor();
  const trust: AttestationTrust = {
    sigstore: {
      keys: await readSigstorePublicKeys(key.publicPem),
      tlog: "required",
      trustRoot: await parseTrustRoot(testTrustRoot({ rekor: log }), "test"),
    },
    clock: () => new Date(),
  };
  return { key, log, trust, at: new Date() };
}

async function reasonOf(promise: ReturnType<typeof verifyAttestation>): Promise<string> {
  const result = await promise;
  assert.equal(result.verified, false, "verified, but must be refused");
  return result.verified ? "" : result.reason;
}

Deno.test("a keyless legacy .att attestation verifies with each Rekor entry kind cosign logs", async () => {
  const { log, trust, signer, at } = await keylessSetup();
  for (const kind of KINDS) {
    const result = await verifyAttestation(
      legacyAttestation({ signer, statement, rekor: { log, at, kind } }),
      trust,
      DIGEST,
    );
    assert.ok(result.verified, `${kind}: ${JSON.stringify(result)}`);
    assert.equal(result.attestation.format, "legacy");
    assert.equal(result.attestation.signer, `${SUBJECT} (${ISSUER})`);
    assert.equal(result.attestation.predicateType, SLSA);
  }
});

Deno.test("a keyless legacy .att attestation is refused for each failure of its evidence", async () => {
  const { fulcio, log, trust, key, signer, at } = await keylessSetup();
  const check = async (
    name: string,
    stored: Parameters<typeof verifyAttestation>[0],
    reason: RegExp,
  ) => assert.match(await reasonOf(verifyAttestation(stored, trust, DIGEST)), reason, name);
  await check(
    "no log entry",
    legacyAttestation({ signer, statement }),
    /no verified signing time/,
  );
  await check(
    "no certificate",
    legacyAttestation({ signer: { key }, statement, rekor: { log, at } }),
    /it has no certificate \(keyless\)/,
  );
  const other = await fulcio.issue({
    publicKey: key.publicKey,
    subject: "https://github.com/someone/else/.github/workflows/x.yml@refs/heads/main",
    issuer: ISSUER,
    notBefore: signer.certificate.notBefore,
  });
  await check(
    "another identity",
    legacyAttestation({ signer: { key, certificate: other }, statement, rekor: { log, at } }),
    /which is not an accepted identity/,
  );
  const rogue = await testFulcio({ name: "fulcio.test" });
  const rogueCertificate = await rogue.issue({
    publicKey: key.publicKey,
    subject: SUBJECT,
    issuer: ISSUER,
    notBefore: signer.certificate.notBefore,
  });
  await check(
    "a CA outside the trust root",
    legacyAttestation({
      signer: { key, certificate: rogueCertificate },
      statement,
      rekor: { log, at },
    }),
    /its certificate is not valid under the trust root/,
  );
  await check(
    "logged after the certificate expired",
    legacyAttestation({
      signer,
      statement,
      rekor: { log, at: new Date(at.getTime() + 3600_000) },
    }),
    /its certificate is not valid under the trust root at the signing time/,
  );
  for (const kind of KINDS) {
    await check(
      `${kind}: a log the trust root does not list`,
      legacyAttestation({ signer, statement, rekor: { log: testRekor(), at, kind } }),
      /signed timestamp does not verify with a log key of the trust root/,
    );
    await check(
      `${kind}: an entry naming another certificate`,
      legacyAttestation({
        signer,
        statement,
        rekor: { log, at, kind },
        entryVerifier: other.toString("pem"),
      }),
      /names another key or certificate than the certificate it is verified with/,
    );
    await check(
      `${kind}: an entry of another envelope`,
      legacyAttestation({
        signer,
        statement,
        rekor: { log, at, kind },
        entryEnvelope: legacyAttestation({ signer, statement: cosignStatement(DIGEST, "x") })
          .payload,
      }),
      new RegExp(`its transparency log entry \\(${kind}\\) is for another envelope`),
    );
    // The same envelope (payload, signature) in other bytes: cosign compares the layer's hash.
    const stored = legacyAttestation({ signer, statement, rekor: { log, at, kind } });
    const reencoded = new TextEncoder().encode(
      JSON.stringify(JSON.parse(new TextDecoder().decode(stored.payload)), null, 1),
    );
    await check(
      `${kind}: the envelope re-encoded`,
      { ...stored, payload: reencoded },
      /is for another envelope \(its envelope hash is not the layer's\)/,
    );
  }
  // A .sig layer's hashedrekord entry on an .att layer.
  const sig = legacySignature({ signer, payload: statement, rekor: { log, at } });
  const stored = legacyAttestation({ signer, statement });
  await check(
    "a hashedrekord entry",
    {
      ...stored,
      annotations: {
        ...stored.annotations,
        [COSIGN_BUNDLE_ANNOTATION]: (sig as typeof stored).annotations[COSIGN_BUNDLE_ANNOTATION]!,
      },
    },
    /is a hashedrekord 0\.0\.1 entry, not an intoto or dsse entry of the envelope/,
  );
  // Two signatures: the log entry can be for only one of them.
  const envelope = JSON.parse(
    new TextDecoder().decode(legacyAttestation({ signer, statement }).payload),
  );
  envelope.signatures.push(envelope.signatures[0]);
  await check(
    "two signatures",
    { ...stored, payload: new TextEncoder().encode(JSON.stringify(envelope)) },
    /its DSSE envelope holds 2 signatures, not one/,
  );
  // The statement is still checked after the signature.
  assert.match(
    await reasonOf(verifyAttestation(
      legacyAttestation({ signer, statement, rekor: { log, at } }),
      trust,
      `sha256:${"cd".repeat(32)}`,
    )),
    /its statement's subject is sha256:abab.*, not sha256:cdcd/,
  );
});

Deno.test("a keyless legacy .att attestation with tlog: optional needs a verified time", async () => {
  const { log, trust, signer, at } = await keylessSetup("optional");
  const logged = await verifyAttestation(
    legacyAttestation({ signer, statement, rekor: { log, at } }),
    trust,
    DIGEST,
  );
  assert.ok(logged.verified, JSON.stringify(logged));
  assert.match(
    await reasonOf(verifyAttestation(legacyAttestation({ signer, statement }), trust, DIGEST)),
    /no verified signing time/,
  );
});

Deno.test("a keyed legacy .att attestation with tlog: required needs an entry of the trust root's log naming the key", async () => {
  const { key, log, trust, at } = await keyedSetup();
  const signer = { key };
  for (const kind of KINDS) {
    const result = await verifyAttestation(
      legacyAttestation({ signer, statement, rekor: { log, at, kind } }),
      trust,
      DIGEST,
    );
    assert.ok(result.verified, `${kind}: ${JSON.stringify(result)}`);
    assert.match(result.attestation.signer, /^sha256:/);
    assert.match(
      await reasonOf(verifyAttestation(
        legacyAttestation({ signer, statement, rekor: { log: testRekor(), at, kind } }),
        trust,
        DIGEST,
      )),
      /signed timestamp does not verify with a log key of the trust root/,
      kind,
    );
    assert.match(
      await reasonOf(verifyAttestation(
        legacyAttestation({
          signer,
          statement,
          rekor: { log, at, kind },
          entryVerifier: testKeyPair().publicPem,
        }),
        trust,
        DIGEST,
      )),
      /names another key or certificate than the key it is verified with/,
      kind,
    );
  }
  assert.match(
    await reasonOf(verifyAttestation(legacyAttestation({ signer, statement }), trust, DIGEST)),
    /no transparency log entry that the trust root's logs sign/,
  );
  assert.match(
    await reasonOf(verifyAttestation(
      legacyAttestation({ signer: { key: testKeyPair() }, statement, rekor: { log, at } }),
      trust,
      DIGEST,
    )),
    /the signature does not verify with the key of the requirement/,
  );
  // tlog: optional (the keyed default) does not look at the entry, as cosign
  // --insecure-ignore-tlog.
  const optional: AttestationTrust = {
    sigstore: { keys: await readSigstorePublicKeys(key.publicPem), tlog: "optional" },
    clock: () => new Date(),
  };
  const ignored = await verifyAttestation(
    legacyAttestation({ signer, statement, rekor: { log: testRekor(), at } }),
    optional,
    DIGEST,
  );
  assert.ok(ignored.verified, JSON.stringify(ignored));
});
