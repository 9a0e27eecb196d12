/**
 * Keyless certificates and bundles checked as the real cosign v3.1.3 checks them (issue #35,
 * item 5): a Fulcio-like test CA and Rekor-like log (tests/fakes/sigstore_instance.ts) make one
 * `cosign sign-blob`-style bundle per class, and `cosign verify-blob --trusted-root` (offline,
 * `--insecure-ignore-sct`: the test trust root has no CT log) and toolkit's
 * `verifySigstoreBundle` (the same verification the webhook's `sigstoreSigned` requirement
 * makes) are given the same bytes, the same trust root and the same identity. Each must agree:
 * both admit, or both refuse (toolkit saying why), except the one deliberate difference: a
 * signed timestamp that does not verify is refused by toolkit, where cosign by default relies on
 * the log's time (and refuses it too with `--use-signed-timestamps`).
 */
import assert from "node:assert/strict";
import { x509 } from "../../lib/x509.ts";
import { compileIdentities } from "../../lib/sigstore/identities.ts";
import { parseTrustRoot } from "../../lib/sigstore/trust_root.ts";
import { verifySigstoreBundle } from "../../lib/sigstore/verify.ts";
import { e2eSkipReason, startCosign } from "../env/mod.ts";
import {
  messageBundle,
  type TestFulcio,
  testFulcio,
  testKeyPair,
  testRekor,
  testTrustRoot,
} from "../fakes/sigstore_instance.ts";

const ISSUER = "https://issuer.test";
const SUBJECT = "https://git.test/team/app/.ci/release.yml@refs/heads/main";
const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

type IssueOptions = Partial<Omit<Parameters<TestFulcio["issue"]>[0], "publicKey" | "issuer">>;

interface Case {
  readonly name: string;
  /** The CA: the plain one, or one whose intermediate has name constraints. */
  readonly ca: "plain" | "constrained";
  readonly issue: IssueOptions;
  /** Put a second certificate for the same key, naming another subject, in the log entry. */
  readonly otherCertificateInEntry?: boolean;
  /**
   * Add an RFC 3161 timestamp of a timestamp authority the trust root does not list (taken from
   * a sigstore-conformance case) beside the log entry.
   */
  readonly untrustedTimestamp?: boolean;
  /** undefined: both admit; otherwise what toolkit's and cosign's refusals say. */
  readonly refused?: {
    readonly toolkit: RegExp;
    readonly cosign: RegExp;
    /**
     * The deliberate difference: cosign admits by default (it relies on the log's time) and
     * refuses only with these flags.
     */
    readonly cosignOnlyWith?: readonly string[];
  };
}

/** A timestamp token of an authority no test trust root lists. */
async function untrustedTimestampData(): Promise<unknown> {
  const bundle = JSON.parse(
    await Deno.readTextFile(
      new URL(
        "../fixtures/sigstore/conformance/rekor2-timestamp-untrusted-tsa-with-embedded-cert_fail/bundle.sigstore.json",
        import.meta.url,
      ),
    ),
  );
  return bundle.verificationMaterial.timestampVerificationData;
}

const LEAF_REFUSED = /failed to verify leaf certificate/;

const CASES: readonly Case[] = [
  { name: "a Fulcio-like certificate", ca: "plain", issue: {} },
  {
    name: "a leaf without an extended key usage extension (any usage, as Go reads it)",
    ca: "plain",
    issue: { extendedKeyUsages: [] },
  },
  {
    name: "a leaf whose extended key usage is server authentication only",
    ca: "plain",
    issue: { extendedKeyUsages: [SERVER_AUTH] },
    refused: { toolkit: /does not include code signing/, cosign: LEAF_REFUSED },
  },
  {
    name: "a leaf with an unknown critical extension",
    ca: "plain",
    issue: {
      extraExtensions: [new x509.Extension("1.3.6.1.4.1.99999.1", true, Uint8Array.of(5, 0))],
    },
    refused: {
      toolkit: /critical extension 1\.3\.6\.1\.4\.1\.99999\.1 that is not understood/,
      cosign: LEAF_REFUSED,
    },
  },
  { name: "a leaf within its CA's name constraints", ca: "constrained", issue: {} },
  {
    name: "a leaf whose URI is outside its CA's name constraints",
    ca: "constrained",
    issue: { subject: "https://other.test/team/app/.ci/release.yml@refs/heads/main" },
    refused: { toolkit: /outside the names .*name constraints permit/, cosign: LEAF_REFUSED },
  },
  {
    name: "a leaf whose URI is excluded by its CA's name constraints",
    ca: "constrained",
    issue: { subject: "https://forbidden.git.test/team/app" },
    refused: { toolkit: /name constraints exclude/, cosign: LEAF_REFUSED },
  },
  {
    name: "a leaf whose e-mail address is outside its CA's name constraints",
    ca: "constrained",
    issue: { subject: "dev@other.test" },
    refused: { toolkit: /outside the names .*name constraints permit/, cosign: LEAF_REFUSED },
  },
  {
    name: "a leaf naming a Fulcio username (otherName SAN)",
    ca: "plain",
    issue: { subject: "foo!oidc.local", username: true },
  },
  {
    name: "a log entry naming another certificate (same key) than the bundle's",
    ca: "plain",
    issue: {},
    otherCertificateInEntry: true,
    refused: {
      toolkit: /transparency log entry names another key or certificate/,
      cosign: /transparency log certificate does not match/,
    },
  },
  {
    name: "a signed timestamp that does not verify, beside a log entry that does (deliberate)",
    ca: "plain",
    issue: {},
    untrustedTimestamp: true,
    refused: {
      toolkit: /no verified signing time .*\(timestamp could not be verified\)/,
      cosign: /threshold not met for verified signed timestamps/,
      cosignOnlyWith: ["--use-signed-timestamps"],
    },
  },
];

Deno.test({
  name:
    "toolkit refuses the keyless certificates and bundles cosign refuses, and admits the others",
  ignore: e2eSkipReason(["cosign"]) !== undefined,
  fn: async (t) => {
    await using cosign = await startCosign();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-keyless-cosign-" });
    try {
      const rekor = testRekor();
      const cas = {
        plain: await testFulcio(),
        constrained: await testFulcio({
          name: "constrained.test",
          nameConstraints: {
            permitted: { uri: ["git.test"], email: ["team.test"] },
            excluded: { uri: ["forbidden.git.test"] },
          },
        }),
      };
      const artifact = new TextEncoder().encode("the artifact\n");
      await Deno.writeFile(`${dir}/artifact`, artifact);
      const notBefore = new Date(Date.now() - 120_000);
      const at = new Date(Date.now() - 60_000);
      for (const [index, c] of CASES.entries()) {
        await t.step(c.name, async () => {
          const fulcio = cas[c.ca];
          const rootText = testTrustRoot({ fulcio, rekor });
          const subject = c.issue.subject ?? SUBJECT;
          const key = testKeyPair();
          const certificate = await fulcio.issue({
            publicKey: key.publicKey,
            subject,
            issuer: ISSUER,
            notBefore,
            ...c.issue,
          });
          const entryVerifier = c.otherCertificateInEntry
            ? (await fulcio.issue({
              publicKey: key.publicKey,
              subject: "https://git.test/someone/else",
              issuer: ISSUER,
              notBefore,
            })).toString("pem")
            : undefined;
          let bundle = messageBundle({
            signer: { key, certificate },
            artifact,
            rekor: { log: rekor, at },
            ...(entryVerifier ? { entryVerifier } : {}),
          });
          if (c.untrustedTimestamp) {
            const json = JSON.parse(new TextDecoder().decode(bundle));
            json.verificationMaterial.timestampVerificationData = await untrustedTimestampData();
            bundle = new TextEncoder().encode(JSON.stringify(json));
          }
          await Deno.writeFile(`${dir}/${index}.sigstore.json`, bundle);
          await Deno.writeTextFile(`${dir}/${index}.trusted_root.json`, rootText);

          const cosignVerify = (flags: readonly string[] = []) =>
            cosign.run([
              "verify-blob",
              ...flags,
              "--bundle",
              `${dir}/${index}.sigstore.json`,
              "--trusted-root",
              `${dir}/${index}.trusted_root.json`,
              "--certificate-identity",
              subject,
              "--certificate-oidc-issuer",
              ISSUER,
              "--insecure-ignore-sct",
              `${dir}/artifact`,
            ]);
          const verdict = await cosignVerify(c.refused?.cosignOnlyWith);
          const ours = await verifySigstoreBundle(bundle, {
            keyless: {
              trustRoot: await parseTrustRoot(rootText, "test"),
              identities: compileIdentities([{ issuer: ISSUER, subject }]),
            },
            tlog: "required",
          }, artifact);
          if (c.refused === undefined) {
            assert.equal(verdict.code, 0, `cosign refused: ${verdict.stderr}`);
            assert.equal(ours.verified, true, JSON.stringify(ours));
            assert.equal(ours.verified && ours.subject, subject);
          } else {
            if (c.refused.cosignOnlyWith) {
              const lenient = await cosignVerify();
              assert.equal(lenient.code, 0, `cosign refused by default: ${lenient.stderr}`);
            }
            assert.notEqual(verdict.code, 0, "cosign admitted it");
            assert.match(verdict.stderr, c.refused.cosign);
            assert.equal(ours.verified, false, "toolkit admitted it");
            assert.match(ours.verified ? "" : ours.reason, c.refused.toolkit);
          }
        });
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
