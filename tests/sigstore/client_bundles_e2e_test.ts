/**
 * Bundles of the Sigstore client projects (sigstore-python, -go, -js, -java, -rs; copied in
 * tests/fixtures/sigstore/clients, see its README) verified by toolkit's `verifySigstoreBundle`
 * and by the real cosign v3.1.3 (`verify-blob`, `verify-blob-attestation`; offline with
 * `--trusted-root`), with the identity each certificate names: toolkit agrees with cosign on each,
 * except where it says why not (issue #35, item 5):
 *
 * - a bundle whose signed timestamp does not verify with the trust root (the one deliberate
 *   difference: cosign by default relies on the log's time, and refuses it too with
 *   `--use-signed-timestamps`);
 * - an ECDSA P-521 certificate key, which toolkit does not accept (P-256, P-384, Ed25519, RSA), and
 *   says so.
 */
import assert from "node:assert/strict";
import { compileIdentities } from "../../lib/sigstore/identities.ts";
import { parseTrustRoot } from "../../lib/sigstore/trust_root.ts";
import { verifySigstoreBundle } from "../../lib/sigstore/verify.ts";
import { e2eSkipReason, startCosign } from "../env/mod.ts";

const FIXTURES = new URL("../fixtures/sigstore/", import.meta.url);
const PUBLIC_GOOD = "public_good_trusted_root.json";
const STAGING = "clients/sigstore-python/staging_trusted_root.json";
const GITHUB_OAUTH = "https://github.com/login/oauth";
const GITHUB_ACTIONS = "https://token.actions.githubusercontent.com";
const GOOGLE = "https://accounts.google.com";

interface Case {
  /** `<project>/<bundle>` under clients/. */
  readonly bundle: string;
  /** The signed file (`<project>/<file>`) of a message signature. */
  readonly artifact?: string;
  /** The trust root, under tests/fixtures/sigstore/. */
  readonly trustRoot: string;
  readonly subject: string;
  readonly issuer: string;
  /** Both refuse: what toolkit says, and what cosign says. */
  readonly refused?: { readonly toolkit: RegExp; readonly cosign: RegExp };
  /** Only toolkit refuses; cosign refuses only with `cosignRefusesWith` (if any). */
  readonly differs?: {
    readonly toolkit: RegExp;
    readonly why: string;
    readonly cosignRefusesWith?: { readonly flags: readonly string[]; readonly says: RegExp };
  };
}

const CASES: readonly Case[] = [
  {
    bundle: "sigstore-python/bundle_v3.txt.sigstore",
    artifact: "sigstore-python/bundle_v3.txt",
    trustRoot: STAGING,
    subject: "william@yossarian.net",
    issuer: GITHUB_OAUTH,
  },
  {
    bundle: "sigstore-python/bundle_cve_2022_36056.txt.sigstore",
    artifact: "sigstore-python/bundle_cve_2022_36056.txt",
    trustRoot: STAGING,
    subject: "william@yossarian.net",
    issuer: GITHUB_OAUTH,
    refused: {
      toolkit: /transparency log entry is for another signature/,
      cosign: /transparency log signature does not match/,
    },
  },
  {
    bundle: "sigstore-python/staging-rekor-v2.txt.sigstore.json",
    artifact: "sigstore-python/staging-rekor-v2.txt",
    trustRoot: STAGING,
    subject: "jku@goto.fi",
    issuer: GITHUB_OAUTH,
  },
  {
    bundle: "sigstore-python/a.dsse.staging-rekor-v2.txt.sigstore.json",
    trustRoot: STAGING,
    subject:
      "https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main",
    issuer: GITHUB_ACTIONS,
  },
  {
    bundle: "sigstore-go/dsse.sigstore.json",
    trustRoot: PUBLIC_GOOD,
    subject: "brian@dehamer.com",
    issuer: GITHUB_OAUTH,
  },
  {
    bundle: "sigstore-go/sigstore.js@2.0.0-provenance.sigstore.json",
    trustRoot: PUBLIC_GOOD,
    subject:
      "https://github.com/sigstore/sigstore-js/.github/workflows/release.yml@refs/heads/main",
    issuer: GITHUB_ACTIONS,
  },
  {
    bundle: "sigstore-js/bundleV03-dsse.sigstore",
    trustRoot: PUBLIC_GOOD,
    subject: "brian@dehamer.com",
    issuer: GITHUB_OAUTH,
  },
  {
    bundle: "sigstore-java/PKIX_ECDSA_P256_SHA_256.sigstore.json",
    artifact: "sigstore-java/artifact.txt",
    trustRoot: PUBLIC_GOOD,
    subject: "untrusted-sa@sigstore-conformance.iam.gserviceaccount.com",
    issuer: GOOGLE,
  },
  {
    bundle: "sigstore-java/PKIX_RSA_PKCS1V15_2048_SHA256.sigstore.json",
    artifact: "sigstore-java/artifact.txt",
    trustRoot: PUBLIC_GOOD,
    subject: "untrusted-sa@sigstore-conformance.iam.gserviceaccount.com",
    issuer: GOOGLE,
  },
  {
    bundle: "sigstore-java/PKIX_ECDSA_P521_SHA_512.sigstore.json",
    artifact: "sigstore-java/artifact.txt",
    trustRoot: PUBLIC_GOOD,
    subject: "untrusted-sa@sigstore-conformance.iam.gserviceaccount.com",
    issuer: GOOGLE,
    differs: {
      toolkit:
        /its certificate's key type is not accepted \(ECDSA on secp521r1 is not accepted \(P-256 or P-384\)\)/,
      why: "toolkit accepts ECDSA P-256 and P-384, Ed25519 and RSA keys only",
    },
  },
  {
    bundle: "sigstore-java/bundle-with-wrong-tlog-entry.sigstore",
    artifact: "sigstore-java/artifact.txt",
    trustRoot: PUBLIC_GOOD,
    subject: "appu@google.com",
    issuer: GOOGLE,
    refused: {
      toolkit: /transparency log entry is for another signature/,
      cosign: /transparency log signature does not match/,
    },
  },
  {
    bundle: "sigstore-java/bundle.v3.sigstore",
    artifact: "sigstore-java/artifact.txt",
    trustRoot: PUBLIC_GOOD,
    subject: "appu@google.com",
    issuer: GOOGLE,
  },
  {
    bundle: "sigstore-java/bundle.dsse.rekor-v2.bad-entry-type.sigstore",
    trustRoot: STAGING,
    subject: "aaronlew@google.com",
    issuer: GOOGLE,
    refused: {
      toolkit: /its transparency log entry is a dsse 0\.0\.2 entry, which no Rekor makes/,
      // sigstore-go refuses to load the bundle ("unsupported rekor v2 entry type"); cosign then
      // tries its older format, which takes no --trusted-root.
      cosign: /--trusted-root only supported with --new-bundle-format/,
    },
  },
  {
    bundle: "sigstore-rs/bundle_v03.json",
    trustRoot: PUBLIC_GOOD,
    subject:
      "https://github.com/kubewarden/kubewarden-controller/.github/workflows/release.yml@refs/tags/v1.34.0",
    issuer: GITHUB_ACTIONS,
  },
  {
    // The same bundle with sigstore-rs's own copy of the public-good trust root, which lists no
    // timestamp authority: its RFC 3161 timestamp cannot verify.
    bundle: "sigstore-rs/bundle_v03.json",
    trustRoot: "clients/sigstore-rs/trusted_root.json",
    subject:
      "https://github.com/kubewarden/kubewarden-controller/.github/workflows/release.yml@refs/tags/v1.34.0",
    issuer: GITHUB_ACTIONS,
    differs: {
      toolkit: /no verified signing time .*\(timestamp could not be verified\)/,
      why: "a signed timestamp that does not verify is refused (the deliberate difference)",
      cosignRefusesWith: {
        flags: ["--use-signed-timestamps"],
        says: /threshold not met for verified signed timestamps/,
      },
    },
  },
];

Deno.test({
  name: "toolkit agrees with cosign on the Sigstore client projects' bundles, except where it says",
  ignore: e2eSkipReason(["cosign"]) !== undefined,
  fn: async (t) => {
    await using cosign = await startCosign();
    for (const c of CASES) {
      await t.step(`${c.bundle} (${c.trustRoot.split("/").pop()})`, async () => {
        const bundlePath = new URL(`clients/${c.bundle}`, FIXTURES).pathname;
        const rootPath = new URL(c.trustRoot, FIXTURES).pathname;
        const bytes = await Deno.readFile(bundlePath);
        const json = JSON.parse(new TextDecoder().decode(bytes));
        const artifactPath = c.artifact && new URL(`clients/${c.artifact}`, FIXTURES).pathname;
        const ours = await verifySigstoreBundle(
          bytes,
          {
            keyless: {
              trustRoot: await parseTrustRoot(await Deno.readFile(rootPath), c.trustRoot),
              identities: compileIdentities([{ issuer: c.issuer, subject: c.subject }]),
            },
            tlog: "required",
          },
          artifactPath ? await Deno.readFile(artifactPath) : undefined,
        );
        const identity = [
          "--bundle",
          bundlePath,
          "--trusted-root",
          rootPath,
          "--certificate-identity",
          c.subject,
          "--certificate-oidc-issuer",
          c.issuer,
        ];
        // A DSSE envelope is an attestation: its statement's subjects are other projects'
        // files, not copied here, so only the envelope, certificate and log are checked.
        const cosignVerify = (flags: readonly string[] = []) =>
          cosign.run(
            json.dsseEnvelope
              ? [
                "verify-blob-attestation",
                ...identity,
                "--type",
                JSON.parse(atob(json.dsseEnvelope.payload)).predicateType,
                "--check-claims=false",
                ...flags,
              ]
              : ["verify-blob", ...identity, ...flags, artifactPath!],
          );
        const verdict = await cosignVerify();
        const reason = ours.verified ? "" : ours.reason;
        if (c.refused) {
          assert.notEqual(verdict.code, 0, "cosign admitted it");
          assert.match(verdict.stderr, c.refused.cosign);
          assert.equal(ours.verified, false, "toolkit admitted it");
          assert.match(reason, c.refused.toolkit);
        } else if (c.differs) {
          assert.equal(verdict.code, 0, `cosign refused it: ${verdict.stderr}`);
          assert.equal(ours.verified, false, `toolkit admitted it, but ${c.differs.why}`);
          assert.match(reason, c.differs.toolkit);
          if (c.differs.cosignRefusesWith) {
            const strict = await cosignVerify(c.differs.cosignRefusesWith.flags);
            assert.notEqual(strict.code, 0, "cosign admitted it with the stricter flags");
            assert.match(strict.stderr, c.differs.cosignRefusesWith.says);
          }
        } else {
          assert.equal(verdict.code, 0, `cosign refused it: ${verdict.stderr}`);
          assert.equal(ours.verified, true, reason);
          assert.equal(ours.verified && ours.subject, c.subject);
          assert.equal(ours.verified && ours.issuer, c.issuer);
        }
      });
    }
  },
});
