import assert from "node:assert/strict";
import { encodeBase64 } from "../base64.ts";
import { parseReference } from "../image/mod.ts";
import {
  COSIGN_BUNDLE_ANNOTATION,
  COSIGN_CERTIFICATE_ANNOTATION,
} from "../signature/cosign_media_types.ts";
import {
  bundleSignature,
  cosignPayload,
  cosignStatement,
  legacySignature,
  testFulcio,
  testKeyPair,
  testRekor,
  testTrustRoot,
} from "../../tests/fakes/sigstore_instance.ts";
import { compileIdentities } from "./identities.ts";
import { readSigstorePublicKeys } from "./public_keys.ts";
import { parseTrustRoot } from "./trust_root.ts";
import { type CosignExpectedImage, type SigstoreTrust, verifyCosignSignature } from "./verify.ts";

const DIGEST = `sha256:${"ab".repeat(32)}`;
const OTHER_DIGEST = `sha256:${"cd".repeat(32)}`;
const REPOSITORY = "registry.test/team/app";
const expected: CosignExpectedImage = {
  manifestDigest: DIGEST,
  reference: parseReference(`${REPOSITORY}:1.0`),
};
const ISSUER = "https://token.actions.githubusercontent.com";
const SUBJECT = "https://github.com/team/app/.github/workflows/release.yml@refs/tags/v1.0";

async function keyed(pem: string, extra: Partial<{ tlog: "required"; trustRoot: string }> = {}) {
  return {
    keys: await readSigstorePublicKeys(pem),
    tlog: extra.tlog ?? "optional",
    ...(extra.trustRoot ? { trustRoot: await parseTrustRoot(extra.trustRoot, "test") } : {}),
  } satisfies SigstoreTrust;
}

async function reasonOf(promise: ReturnType<typeof verifyCosignSignature>): Promise<string> {
  const result = await promise;
  assert.equal(result.verified, false, "verified, but must be refused");
  return result.verified ? "" : result.reason;
}

Deno.test("verifyCosignSignature() accepts keyed signatures in both formats with every accepted key type", async () => {
  for (const type of ["ecdsa-p256", "ecdsa-p384", "ed25519", "rsa-2048"] as const) {
    const key = testKeyPair(type);
    const trust = await keyed(key.publicPem);
    const legacy = await verifyCosignSignature(
      legacySignature({ signer: { key }, payload: cosignPayload(REPOSITORY, DIGEST) }),
      trust,
      expected,
    );
    assert.equal(legacy.verified, true, `${type} legacy: ${JSON.stringify(legacy)}`);
    assert.equal(legacy.verified && legacy.signature.keyId, trust.keys[0]!.id);
    assert.equal(legacy.verified && legacy.signature.dockerReference, REPOSITORY);
    const bundle = await verifyCosignSignature(
      bundleSignature({ signer: { key }, statement: cosignStatement(DIGEST) }),
      trust,
      expected,
    );
    assert.equal(bundle.verified, true, `${type} bundle: ${JSON.stringify(bundle)}`);
  }
});

Deno.test("verifyCosignSignature() accepts any one key of several", async () => {
  const [a, b] = [testKeyPair(), testKeyPair("ed25519")];
  const trust = await keyed(`${a.publicPem}\n${b.publicPem}`);
  const result = await verifyCosignSignature(
    bundleSignature({ signer: { key: b }, statement: cosignStatement(DIGEST) }),
    trust,
    expected,
  );
  assert.equal(result.verified && result.signature.keyId, trust.keys[1]!.id);
});

Deno.test("verifyCosignSignature() refuses a signature for another digest", async () => {
  const key = testKeyPair();
  const trust = await keyed(key.publicPem);
  const reason = await reasonOf(verifyCosignSignature(
    legacySignature({ signer: { key }, payload: cosignPayload(REPOSITORY, OTHER_DIGEST) }),
    trust,
    expected,
  ));
  assert.match(reason, new RegExp(`it is a signature of ${OTHER_DIGEST}, not of ${DIGEST}`));
});

Deno.test("verifyCosignSignature() refuses a bundle whose subject is another digest", async () => {
  const key = testKeyPair();
  const reason = await reasonOf(verifyCosignSignature(
    bundleSignature({ signer: { key }, statement: cosignStatement(OTHER_DIGEST) }),
    await keyed(key.publicPem),
    expected,
  ));
  assert.match(reason, /statement's subject is sha256:cdcd.*, not sha256:abab/);
});

Deno.test("verifyCosignSignature() refuses a key that is not the requirement's", async () => {
  const [trusted, other] = [testKeyPair(), testKeyPair()];
  const trust = await keyed(trusted.publicPem);
  for (
    const signature of [
      legacySignature({ signer: { key: other }, payload: cosignPayload(REPOSITORY, DIGEST) }),
      bundleSignature({ signer: { key: other }, statement: cosignStatement(DIGEST) }),
    ]
  ) {
    assert.match(
      await reasonOf(verifyCosignSignature(signature, trust, expected)),
      /does not verify with the key of the requirement/,
    );
  }
});

Deno.test("verifyCosignSignature() never takes a key from the signature (GHSA-fx35-mq7g-6g98)", async () => {
  const [trusted, attacker] = [testKeyPair(), testKeyPair()];
  // The attacker signs with his key and puts his public key where a certificate belongs.
  const forged = legacySignature({
    signer: { key: attacker },
    payload: cosignPayload(REPOSITORY, DIGEST),
    annotations: { [COSIGN_CERTIFICATE_ANNOTATION]: attacker.publicPem },
  });
  assert.match(
    await reasonOf(verifyCosignSignature(forged, await keyed(trusted.publicPem), expected)),
    /does not verify with the key of the requirement/,
  );
  const fulcio = await testFulcio();
  const keyless: SigstoreTrust = {
    keyless: {
      trustRoot: await parseTrustRoot(testTrustRoot({ fulcio, rekor: testRekor() }), "test"),
      identities: compileIdentities([{ issuer: ISSUER, subject: SUBJECT }]),
    },
    tlog: "required",
  };
  assert.match(
    await reasonOf(verifyCosignSignature(forged, keyless, expected)),
    /certificate annotation holds a PUBLIC KEY, not an X.509 certificate/,
  );
});

Deno.test("verifyCosignSignature() refuses a DSSE payload type other than in-toto", async () => {
  const key = testKeyPair();
  const reason = await reasonOf(verifyCosignSignature(
    bundleSignature({
      signer: { key },
      statement: cosignStatement(DIGEST),
      payloadType: "application/vnd.dev.cosign.simplesigning.v1+json",
    }),
    await keyed(key.publicPem),
    expected,
  ));
  assert.match(reason, /DSSE payload type .* is not application\/vnd.in-toto\+json/);
});

Deno.test("verifyCosignSignature() refuses an attestation (another predicate type) as a signature", async () => {
  const key = testKeyPair();
  const reason = await reasonOf(verifyCosignSignature(
    bundleSignature({
      signer: { key },
      statement: cosignStatement(DIGEST, "https://slsa.dev/provenance/v1"),
    }),
    await keyed(key.publicPem),
    expected,
  ));
  assert.match(reason, /not cosign's signature predicate/);
});

Deno.test("verifyCosignSignature() applies the identity rule to the repository a legacy payload names", async () => {
  const key = testKeyPair();
  const trust = await keyed(key.publicPem);
  const elsewhere = legacySignature({
    signer: { key },
    payload: cosignPayload("registry.test/team/other", DIGEST),
  });
  assert.match(
    await reasonOf(verifyCosignSignature(elsewhere, trust, expected)),
    /not in the image's repository registry.test\/team\/app/,
  );
  const result = await verifyCosignSignature(elsewhere, trust, {
    ...expected,
    identityRule: { type: "matchExactRepository", dockerRepository: "registry.test/team/other" },
  });
  assert.equal(result.verified, true);
  // A bundle names no repository: it cannot meet an explicit rule.
  assert.match(
    await reasonOf(verifyCosignSignature(
      bundleSignature({ signer: { key }, statement: cosignStatement(DIGEST) }),
      trust,
      { ...expected, identityRule: { type: "matchRepository" } },
    )),
    /names no repository/,
  );
});

Deno.test("verifyCosignSignature() with tlog: required needs an entry signed by the trust root's log", async () => {
  const key = testKeyPair();
  const [log, stranger] = [testRekor(), testRekor()];
  const trust = await keyed(key.publicPem, {
    tlog: "required",
    trustRoot: testTrustRoot({ rekor: log }),
  });
  const at = new Date();
  const payload = cosignPayload(REPOSITORY, DIGEST);
  const logged = await verifyCosignSignature(
    legacySignature({ signer: { key }, payload, rekor: { log, at } }),
    trust,
    expected,
  );
  assert.equal(logged.verified, true, JSON.stringify(logged));
  assert.equal(
    logged.verified && logged.signature.signedAt?.getTime(),
    Math.floor(at.getTime() / 1000) * 1000,
  );
  const bundle = await verifyCosignSignature(
    bundleSignature({ signer: { key }, statement: cosignStatement(DIGEST), rekor: { log, at } }),
    trust,
    expected,
  );
  assert.equal(bundle.verified, true, JSON.stringify(bundle));
  assert.match(
    await reasonOf(
      verifyCosignSignature(legacySignature({ signer: { key }, payload }), trust, expected),
    ),
    /no transparency log entry/,
  );
  assert.match(
    await reasonOf(verifyCosignSignature(
      legacySignature({ signer: { key }, payload, rekor: { log: stranger, at } }),
      trust,
      expected,
    )),
    /signed timestamp does not verify with a log key of the trust root/,
  );
  // With tlog: optional the entry is not looked at, as cosign --insecure-ignore-tlog.
  const ignored = await verifyCosignSignature(
    legacySignature({ signer: { key }, payload, rekor: { log: stranger, at } }),
    await keyed(key.publicPem),
    expected,
  );
  assert.equal(ignored.verified, true);
});

Deno.test("verifyCosignSignature() refuses a Rekor entry made for another signature", async () => {
  const key = testKeyPair();
  const log = testRekor();
  const trust = await keyed(key.publicPem, {
    tlog: "required",
    trustRoot: testTrustRoot({ rekor: log }),
  });
  const other = legacySignature({
    signer: { key },
    payload: cosignPayload(REPOSITORY, OTHER_DIGEST),
    rekor: { log, at: new Date() },
  });
  const signature = legacySignature({
    signer: { key },
    payload: cosignPayload(REPOSITORY, DIGEST),
  });
  const spliced = {
    ...signature,
    annotations: {
      ...(signature.format === "legacy" ? signature.annotations : {}),
      [COSIGN_BUNDLE_ANNOTATION]: (other as { annotations: Record<string, string> })
        .annotations[COSIGN_BUNDLE_ANNOTATION]!,
    },
  };
  assert.match(
    await reasonOf(verifyCosignSignature(spliced, trust, expected)),
    /log entry is for another signature/,
  );
});

async function keylessSetup() {
  const fulcio = await testFulcio();
  const log = testRekor();
  const trustRoot = await parseTrustRoot(testTrustRoot({ fulcio, rekor: log }), "test");
  const trust: SigstoreTrust = {
    keyless: { trustRoot, identities: compileIdentities([{ issuer: ISSUER, subject: SUBJECT }]) },
    tlog: "required",
  };
  const key = testKeyPair();
  const notBefore = new Date(Date.now() - 3600_000);
  const certificate = await fulcio.issue({
    publicKey: key.publicKey,
    subject: SUBJECT,
    issuer: ISSUER,
    notBefore,
  });
  // Signed and logged while the ten-minute certificate was valid, an hour ago.
  const at = new Date(notBefore.getTime() + 60_000);
  return { fulcio, log, trust, key, certificate, at, signer: { key, certificate } };
}

Deno.test("verifyCosignSignature() accepts keyless signatures in both formats, logged while the certificate was valid", async () => {
  const { log, trust, signer, at } = await keylessSetup();
  const legacy = await verifyCosignSignature(
    legacySignature({ signer, payload: cosignPayload(REPOSITORY, DIGEST), rekor: { log, at } }),
    trust,
    expected,
  );
  assert.equal(legacy.verified, true, JSON.stringify(legacy));
  assert.equal(legacy.verified && legacy.signature.subject, SUBJECT);
  assert.equal(legacy.verified && legacy.signature.issuer, ISSUER);
  const bundle = await verifyCosignSignature(
    bundleSignature({ signer, statement: cosignStatement(DIGEST), rekor: { log, at } }),
    trust,
    expected,
  );
  assert.equal(bundle.verified, true, JSON.stringify(bundle));
});

Deno.test("verifyCosignSignature() refuses an expired certificate without timestamp evidence", async () => {
  const { trust, signer } = await keylessSetup();
  for (
    const signature of [
      legacySignature({ signer, payload: cosignPayload(REPOSITORY, DIGEST) }),
      bundleSignature({ signer, statement: cosignStatement(DIGEST) }),
    ]
  ) {
    assert.match(
      await reasonOf(verifyCosignSignature(signature, trust, expected)),
      /no verified signing time/,
    );
  }
});

Deno.test("verifyCosignSignature() refuses a signature logged after the certificate expired", async () => {
  const { log, trust, signer, at } = await keylessSetup();
  const late = new Date(at.getTime() + 20 * 60_000);
  assert.match(
    await reasonOf(verifyCosignSignature(
      legacySignature({
        signer,
        payload: cosignPayload(REPOSITORY, DIGEST),
        rekor: { log, at: late },
      }),
      trust,
      expected,
    )),
    /certificate is not valid under the trust root at the signing time/,
  );
});

Deno.test("verifyCosignSignature() refuses a certificate that does not chain to the trust root", async () => {
  const { log, trust, key, at } = await keylessSetup();
  const rogue = await testFulcio({ name: "fulcio.test" });
  const certificate = await rogue.issue({
    publicKey: key.publicKey,
    subject: SUBJECT,
    issuer: ISSUER,
    notBefore: new Date(at.getTime() - 60_000),
  });
  assert.match(
    await reasonOf(verifyCosignSignature(
      bundleSignature({
        signer: { key, certificate },
        statement: cosignStatement(DIGEST),
        rekor: { log, at },
      }),
      trust,
      expected,
    )),
    /certificate is not valid under the trust root/,
  );
});

Deno.test("verifyCosignSignature() refuses a certificate for another identity or issuer", async () => {
  const { fulcio, log, trust, key, at } = await keylessSetup();
  for (
    const [subject, issuer] of [
      ["https://github.com/team/app/.github/workflows/other.yml@refs/heads/main", ISSUER],
      [SUBJECT, "https://accounts.google.com"],
      ["someone@example.com", ISSUER],
    ]
  ) {
    const certificate = await fulcio.issue({
      publicKey: key.publicKey,
      subject: subject!,
      issuer: issuer!,
      notBefore: new Date(at.getTime() - 60_000),
    });
    const reason = await reasonOf(verifyCosignSignature(
      legacySignature({
        signer: { key, certificate },
        payload: cosignPayload(REPOSITORY, DIGEST),
        rekor: { log, at },
      }),
      trust,
      expected,
    ));
    assert.match(reason, /which is not an accepted identity/);
  }
});

Deno.test("verifyCosignSignature() matches keyless identities by regular expression", async () => {
  const { log, signer, at, trust } = await keylessSetup();
  const trustRoot = "keyless" in trust ? trust.keyless.trustRoot : undefined!;
  const signature = legacySignature({
    signer,
    payload: cosignPayload(REPOSITORY, DIGEST),
    rekor: { log, at },
  });
  const withIdentities = (identities: Parameters<typeof compileIdentities>[0]): SigstoreTrust => ({
    keyless: { trustRoot, identities: compileIdentities(identities) },
    tlog: "required",
  });
  const accepted = await verifyCosignSignature(
    signature,
    withIdentities([{
      issuerRegExp: "^https://token\\.actions\\.githubusercontent\\.com$",
      subjectRegExp: "^https://github\\.com/team/app/\\.github/workflows/release\\.yml@refs/tags/v",
    }]),
    expected,
  );
  assert.equal(accepted.verified, true);
  assert.match(
    await reasonOf(verifyCosignSignature(
      signature,
      withIdentities([{ issuer: ISSUER, subjectRegExp: "^https://github\\.com/other/" }]),
      expected,
    )),
    /not an accepted identity/,
  );
});

Deno.test("verifyCosignSignature() refuses what is not a signature at all", async () => {
  const key = testKeyPair();
  const trust = await keyed(key.publicPem);
  const cases: [Parameters<typeof verifyCosignSignature>[0], RegExp][] = [
    [{ format: "bundle", bundle: new TextEncoder().encode("{"), where: "referrer x" }, /not JSON/],
    [
      { format: "bundle", bundle: new TextEncoder().encode('{"mediaType":"x"}'), where: "r" },
      /not a valid sigstore bundle/,
    ],
    [
      { format: "legacy", payload: cosignPayload(REPOSITORY, DIGEST), annotations: {}, where: "l" },
      /no signature annotation/,
    ],
    [
      {
        format: "legacy",
        payload: new TextEncoder().encode('{"critical":{},"critical":{}}'),
        annotations: {
          "dev.cosignproject.cosign/signature": encodeBase64(new Uint8Array(8)),
        },
        where: "l",
      },
      /does not verify/,
    ],
  ];
  for (const [signature, reason] of cases) {
    assert.match(await reasonOf(verifyCosignSignature(signature, trust, expected)), reason);
  }
});
