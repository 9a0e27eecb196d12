/**
 * The keyless checks toolkit makes as cosign v3.1.3 makes them (issue #35, item 5): each
 * certificate or bundle here was admitted before, and cosign refuses it
 * (tests/admission/keyless_cosign_e2e_test.ts runs the real cosign on the same classes).
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import nodeCrypto from "node:crypto";
import { dsse } from "@sigstore/core";
import { encodeBase64 } from "../base64.ts";
import { parseReference } from "../image/mod.ts";
import { x509 } from "../x509.ts";
import {
  bundleSignature,
  cosignPayload,
  cosignStatement,
  legacySignature,
  messageBundle,
  signBytes,
  testFulcio,
  testKeyPair,
  testRekor,
  testTrustRoot,
} from "../../tests/fakes/sigstore_instance.ts";
import { SIGSTORE_BUNDLE_V03_MEDIA_TYPE } from "../signature/cosign_media_types.ts";
import { compileIdentities } from "./identities.ts";
import { readSigstorePublicKeys } from "./public_keys.ts";
import { parseTrustRoot } from "./trust_root.ts";
import {
  type CosignExpectedImage,
  type SigstoreTrust,
  verifyCosignSignature,
  verifySigstoreBundle,
} from "./verify.ts";

const DIGEST = `sha256:${"ab".repeat(32)}`;
const REPOSITORY = "registry.test/team/app";
const expected: CosignExpectedImage = {
  manifestDigest: DIGEST,
  reference: parseReference(`${REPOSITORY}:1.0`),
};
const ISSUER = "https://issuer.test";
const SUBJECT = "https://git.test/team/app/.ci/release.yml@refs/heads/main";
const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

type Fulcio = Awaited<ReturnType<typeof testFulcio>>;
type IssueOptions = Partial<Omit<Parameters<Fulcio["issue"]>[0], "publicKey" | "issuer">>;

async function setup(options: { fulcio?: Fulcio; subject?: string; tlog?: "optional" } = {}) {
  const fulcio = options.fulcio ?? await testFulcio();
  const log = testRekor();
  const trustRoot = await parseTrustRoot(testTrustRoot({ fulcio, rekor: log }), "test");
  const subject = options.subject ?? SUBJECT;
  const trust: SigstoreTrust = {
    keyless: { trustRoot, identities: compileIdentities([{ issuer: ISSUER, subject }]) },
    tlog: options.tlog ?? "required",
  };
  const notBefore = new Date(Date.now() - 3600_000);
  const at = new Date(notBefore.getTime() + 60_000);
  const signer = async (issue: IssueOptions = {}, key = testKeyPair()) => ({
    key,
    certificate: await fulcio.issue({
      publicKey: key.publicKey,
      subject,
      issuer: ISSUER,
      notBefore,
      ...issue,
    }),
  });
  return { fulcio, log, trust, at, signer };
}

/** The outcome of both storage formats signed by `signer`. */
async function bothFormats(
  context: Awaited<ReturnType<typeof setup>>,
  signer: Awaited<ReturnType<Awaited<ReturnType<typeof setup>>["signer"]>>,
) {
  const rekor = { log: context.log, at: context.at };
  return [
    await verifyCosignSignature(
      legacySignature({ signer, payload: cosignPayload(REPOSITORY, DIGEST), rekor }),
      context.trust,
      expected,
    ),
    await verifyCosignSignature(
      bundleSignature({ signer, statement: cosignStatement(DIGEST), rekor }),
      context.trust,
      expected,
    ),
  ];
}

function reasons(results: Awaited<ReturnType<typeof bothFormats>>): string[] {
  return results.map((r) => {
    assert.equal(r.verified, false, "verified, but must be refused");
    return r.verified ? "" : r.reason;
  });
}

Deno.test("a leaf whose extended key usage leaves out code signing is refused; one without the extension is not (as Go and cosign)", async () => {
  const context = await setup();
  for (
    const reason of reasons(
      await bothFormats(
        context,
        await context.signer({
          extendedKeyUsages: [SERVER_AUTH],
        }),
      ),
    )
  ) {
    assert.match(
      reason,
      /its certificate's extended key usage \(1\.3\.6\.1\.5\.5\.7\.3\.1\) does not include code signing/,
    );
  }
  for (
    const result of await bothFormats(context, await context.signer({ extendedKeyUsages: [] }))
  ) {
    assert.equal(result.verified, true, JSON.stringify(result));
  }
});

Deno.test("a leaf with an unknown critical extension is refused", async () => {
  const context = await setup();
  const signer = await context.signer({
    extraExtensions: [new x509.Extension("1.3.6.1.4.1.99999.1", true, Uint8Array.of(5, 0))],
  });
  for (const reason of reasons(await bothFormats(context, signer))) {
    assert.match(
      reason,
      /its certificate has a critical extension 1\.3\.6\.1\.4\.1\.99999\.1 that is not understood/,
    );
  }
  // The same extension, not critical, is no reason to refuse.
  const lenient = await context.signer({
    extraExtensions: [new x509.Extension("1.3.6.1.4.1.99999.1", false, Uint8Array.of(5, 0))],
  });
  for (const result of await bothFormats(context, lenient)) {
    assert.equal(result.verified, true, JSON.stringify(result));
  }
});

Deno.test("a leaf outside its CA's name constraints is refused; one inside is admitted", async () => {
  const fulcio = await testFulcio({
    name: "constrained.test",
    nameConstraints: {
      permitted: { uri: ["git.test"], email: ["team.test"] },
      excluded: { uri: ["forbidden.git.test"] },
    },
  });
  const inside = await setup({ fulcio });
  for (const result of await bothFormats(inside, await inside.signer())) {
    assert.equal(result.verified, true, JSON.stringify(result));
  }
  const cases: [string, RegExp][] = [
    [
      "https://other.test/team/app/.ci/release.yml@refs/heads/main",
      /its certificate names URI host "other\.test", outside the names its CA certificate 1 \(from the leaf\)'s name constraints permit/,
    ],
    [
      "https://forbidden.git.test/team/app",
      /its certificate names URI host "forbidden\.git\.test", which its CA certificate 1 \(from the leaf\)'s name constraints exclude/,
    ],
    ["dev@other.test", /names e-mail address "dev@other\.test", outside the names/],
  ];
  for (const [subject, reason] of cases) {
    const context = await setup({ fulcio, subject });
    for (const refused of reasons(await bothFormats(context, await context.signer()))) {
      assert.match(refused, reason);
    }
  }
  const email = await setup({ fulcio, subject: "dev@team.test" });
  for (const result of await bothFormats(email, await email.signer())) {
    assert.equal(result.verified, true, JSON.stringify(result));
  }
});

Deno.test("a Fulcio username (an otherName SAN) is the certificate's subject", async () => {
  const context = await setup({ subject: "foo!oidc.local" });
  for (const result of await bothFormats(context, await context.signer({ username: true }))) {
    assert.equal(result.verified, true, JSON.stringify(result));
    assert.equal(result.verified && result.signature.subject, "foo!oidc.local");
  }
  const other = await setup({ subject: "bar!oidc.local" });
  const foo = await other.signer({ username: true, subject: "foo!oidc.local" });
  for (const reason of reasons(await bothFormats(other, foo))) {
    assert.match(reason, /names subject "foo!oidc\.local" .* not an accepted identity/);
  }
});

Deno.test("an ECDSA P-521 certificate key is refused for its type, not its signature", async () => {
  const context = await setup();
  const signer = await context.signer({}, testKeyPair("ecdsa-p521"));
  for (const reason of reasons(await bothFormats(context, signer))) {
    assert.match(
      reason,
      /its certificate's key type is not accepted \(ECDSA on secp521r1 is not accepted/,
    );
    assert.doesNotMatch(reason, /signature does not verify/);
  }
});

Deno.test("a transparency log entry naming another certificate or key than the bundle's is refused", async () => {
  const context = await setup();
  const signer = await context.signer();
  const other = await context.signer();
  const rekor = { log: context.log, at: context.at };
  const entryVerifier = other.certificate.toString("pem");
  for (
    const signature of [
      legacySignature({
        signer,
        payload: cosignPayload(REPOSITORY, DIGEST),
        rekor,
        entryVerifier,
      }),
      bundleSignature({ signer, statement: cosignStatement(DIGEST), rekor, entryVerifier }),
    ]
  ) {
    assert.match(
      await reasonOf(verifyCosignSignature(signature, context.trust, expected)),
      /its transparency log entry names another key or certificate than the certificate it is verified with/,
    );
  }
  const artifact = new TextEncoder().encode("artifact\n");
  const blob = await verifySigstoreBundle(
    messageBundle({ signer, artifact, rekor, entryVerifier }),
    context.trust,
    artifact,
  );
  assert.match(blob.verified ? "" : blob.reason, /names another key or certificate/);

  // Keyed, with tlog: required: the entry must name the requirement's key.
  const key = testKeyPair();
  const keyed: SigstoreTrust = {
    keys: await readSigstorePublicKeys(key.publicPem),
    tlog: "required",
    trustRoot: await parseTrustRoot(testTrustRoot({ rekor: context.log }), "test"),
  };
  const good = await verifyCosignSignature(
    bundleSignature({ signer: { key }, statement: cosignStatement(DIGEST), rekor }),
    keyed,
    expected,
  );
  assert.equal(good.verified, true, JSON.stringify(good));
  assert.match(
    await reasonOf(verifyCosignSignature(
      bundleSignature({
        signer: { key },
        statement: cosignStatement(DIGEST),
        rekor,
        entryVerifier: testKeyPair().publicPem,
      }),
      keyed,
      expected,
    )),
    /names another key or certificate than the key it is verified with/,
  );
});

async function reasonOf(promise: ReturnType<typeof verifyCosignSignature>): Promise<string> {
  const result = await promise;
  assert.equal(result.verified, false, "verified, but must be refused");
  return result.verified ? "" : result.reason;
}

Deno.test("a Rekor v2 dsse entry is refused: Rekor v2 logs DSSE envelopes as hashedrekord", async () => {
  const context = await setup();
  const signer = await context.signer();
  const statement = cosignStatement(DIGEST);
  const payloadType = "application/vnd.in-toto+json";
  const signature = signBytes(
    signer.key.privateKey,
    dsse.preAuthEncoding(payloadType, Buffer.from(statement)),
  );
  const body = {
    apiVersion: "0.0.2",
    kind: "dsse",
    spec: {
      dsseV002: {
        payloadHash: {
          algorithm: "SHA2_256",
          digest: encodeBase64(nodeCrypto.createHash("sha256").update(statement).digest()),
        },
        signatures: [{
          content: encodeBase64(signature),
          verifier: {
            x509Certificate: { rawBytes: encodeBase64(new Uint8Array(signer.certificate.rawData)) },
            keyDetails: "PKIX_ECDSA_P256_SHA_256",
          },
        }],
      },
    },
  };
  const entry = context.log.entry(body, context.at);
  const bundle = {
    mediaType: SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
    verificationMaterial: {
      certificate: { rawBytes: encodeBase64(new Uint8Array(signer.certificate.rawData)) },
      tlogEntries: [{
        logIndex: String(entry.Payload.logIndex),
        logId: { keyId: encodeBase64(Buffer.from(entry.Payload.logID, "hex")) },
        kindVersion: { kind: "dsse", version: "0.0.2" },
        integratedTime: String(entry.Payload.integratedTime),
        inclusionPromise: { signedEntryTimestamp: entry.SignedEntryTimestamp },
        inclusionProof: context.log.inclusionProof(entry.Payload.body),
        canonicalizedBody: entry.Payload.body,
      }],
    },
    dsseEnvelope: {
      payload: encodeBase64(statement),
      payloadType,
      signatures: [{ sig: encodeBase64(signature), keyid: "" }],
    },
  };
  const result = await verifyCosignSignature(
    {
      format: "bundle",
      bundle: new TextEncoder().encode(JSON.stringify(bundle)),
      where: "referrer sha256:test",
    },
    context.trust,
    expected,
  );
  assert.equal(result.verified, false, JSON.stringify(result));
  assert.match(
    result.verified ? "" : result.reason,
    /its transparency log entry is a dsse 0\.0\.2 entry, which no Rekor makes/,
  );
});

Deno.test("verifySigstoreBundle() refuses a DSSE payload that is not an in-toto statement", async () => {
  const context = await setup();
  const signer = await context.signer();
  const signature = bundleSignature({
    signer,
    statement: new TextEncoder().encode('{"anything":"at all"}'),
    payloadType: "application/vnd.example+json",
    rekor: { log: context.log, at: context.at },
  });
  assert.equal(signature.format, "bundle");
  const result = await verifySigstoreBundle(
    signature.format === "bundle" ? signature.bundle : new Uint8Array(),
    context.trust,
  );
  assert.equal(result.verified, false);
  assert.match(
    result.verified ? "" : result.reason,
    /its DSSE payload type "application\/vnd\.example\+json" is not application\/vnd\.in-toto\+json/,
  );
});

Deno.test("a signed timestamp that does not verify with the trust root is refused, though the log's time verifies (the one deliberate difference from cosign)", async () => {
  const context = await setup();
  const signer = await context.signer();
  const rekor = { log: context.log, at: context.at };
  // A timestamp token of a timestamp authority the trust root does not list (from a
  // sigstore-conformance case): cosign, by default, looks only at the log's integrated time.
  const conformance = JSON.parse(
    await Deno.readTextFile(
      new URL(
        "../../tests/fixtures/sigstore/conformance/rekor2-timestamp-untrusted-tsa-with-embedded-cert_fail/bundle.sigstore.json",
        import.meta.url,
      ),
    ),
  );
  const token: string =
    conformance.verificationMaterial.timestampVerificationData.rfc3161Timestamps[0].signedTimestamp;
  const legacy = legacySignature({
    signer,
    payload: cosignPayload(REPOSITORY, DIGEST),
    rekor,
    annotations: {
      "dev.sigstore.cosign/rfc3161timestamp": JSON.stringify({ SignedRFC3161Timestamp: token }),
    },
  });
  const result = await verifyCosignSignature(legacy, context.trust, expected);
  assert.equal(result.verified, false, JSON.stringify(result));
  assert.match(
    result.verified ? "" : result.reason,
    /no verified signing time .*\(timestamp could not be verified\)/,
  );
  const without = await verifyCosignSignature(
    legacySignature({ signer, payload: cosignPayload(REPOSITORY, DIGEST), rekor }),
    context.trust,
    expected,
  );
  assert.equal(without.verified, true, JSON.stringify(without));
});
