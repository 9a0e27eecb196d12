/**
 * `toolkit image-security verify` with cosign signatures against the real registry: a PEM
 * `--key` verifies either storage format, `--trust-root` with the `--certificate-*` flags
 * verifies keyless signatures offline, and wrong flags are usage errors. The signatures are laid
 * out as cosign writes them (tests/fakes/cosign_registry.ts) by keys and a Fulcio-like CA the
 * test makes (tests/fakes/sigstore_instance.ts); signatures made by the real cosign are checked
 * in tests/admission.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { bufferedIO } from "../../cli/io.ts";
import { commandContext } from "../../cli/context.ts";
import { e2eSkipReason, startRegistry } from "../env/mod.ts";
import { buildOciLayout, skopeoPush } from "../env/oci_layout.ts";
import { pushCosignSignatures } from "../fakes/cosign_registry.ts";
import {
  bundleSignature,
  cosignPayload,
  cosignStatement,
  legacySignature,
  testFulcio,
  testKeyPair,
  testRekor,
  testTrustRoot,
} from "../fakes/sigstore_instance.ts";

async function toolkit(cwd: string, args: string[]) {
  const io = bufferedIO({ cwd });
  const status = await runCli(args, commandContext(io));
  return { status, out: io.out(), err: io.err() };
}

const ISSUER = "https://token.actions.githubusercontent.com";
const SUBJECT = "https://github.com/team/app/.github/workflows/release.yml@refs/tags/v1";

Deno.test({
  name: "image-security verify checks cosign signatures with a PEM key or a trust root",
  ignore: e2eSkipReason(["docker-registry", "skopeo"]) !== undefined,
  fn: async (t) => {
    await using registry = await startRegistry();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-cosign-verify-" });
    const push = async (name: string) =>
      await skopeoPush(
        await buildOciLayout(dir, { name, content: `${name}\n` }),
        `${registry.host}/demo/${name}:1`,
        { home: dir },
      );
    const key = testKeyPair();
    const other = testKeyPair();
    await Deno.writeTextFile(`${dir}/cosign.pub`, key.publicPem);
    await Deno.writeTextFile(`${dir}/other.pub`, other.publicPem);
    const legacyDigest = await push("legacy");
    await pushCosignSignatures(registry.host, "demo/legacy", legacyDigest, [
      legacySignature({
        signer: { key },
        payload: cosignPayload(`${registry.host}/demo/legacy`, legacyDigest),
      }),
    ]);
    const bundleDigest = await push("bundle");
    await pushCosignSignatures(registry.host, "demo/bundle", bundleDigest, [
      bundleSignature({ signer: { key }, statement: cosignStatement(bundleDigest) }),
    ], { fallbackTag: true });
    const fulcio = await testFulcio();
    const rekor = testRekor();
    await Deno.writeTextFile(`${dir}/trusted_root.json`, testTrustRoot({ fulcio, rekor }));
    const workload = testKeyPair();
    const notBefore = new Date(Date.now() - 3600_000);
    const certificate = await fulcio.issue({
      publicKey: workload.publicKey,
      subject: SUBJECT,
      issuer: ISSUER,
      notBefore,
    });
    const keylessDigest = await push("keyless");
    await pushCosignSignatures(registry.host, "demo/keyless", keylessDigest, [
      bundleSignature({
        signer: { key: workload, certificate },
        statement: cosignStatement(keylessDigest),
        rekor: { log: rekor, at: new Date(notBefore.getTime() + 60_000) },
      }),
    ], { fallbackTag: true });
    const flags = ["--tls-verify=false"];
    const verify = (...args: string[]) => toolkit(dir, ["image-security", "verify", ...args]);

    await t.step("a PEM --key verifies a legacy .sig signature", async () => {
      const r = await verify(
        `${registry.host}/demo/legacy:1`,
        "--key",
        "cosign.pub",
        ...flags,
        "-o",
        "json",
      );
      assert.equal(r.status, 0, r.err);
      const data = JSON.parse(r.out);
      assert.equal(data.digest, legacyDigest);
      assert.equal(data.format, "legacy");
      assert.equal(data.identity, `${registry.host}/demo/legacy`);
      assert.match(data.keyId, /^sha256:[0-9a-f]{64}$/);
    });
    await t.step("a PEM --key verifies a v3 bundle", async () => {
      const r = await verify(`${registry.host}/demo/bundle:1`, "--key", "cosign.pub", ...flags);
      assert.equal(r.status, 0, r.err);
      assert.match(
        r.out,
        /^Verified .*demo\/bundle:1: digest sha256:\w+, sigstore bundle, signed by sha256:\w+\n$/,
      );
    });
    await t.step("another key is refused with the reason", async () => {
      const r = await verify(`${registry.host}/demo/legacy:1`, "--key", "other.pub", ...flags);
      assert.equal(r.status, 1);
      assert.match(
        r.err,
        /is not verified: None of the signatures were accepted, reasons: layer sha256:\w+ of sha256-\w+\.sig: the signature does not verify with the key of the requirement/,
      );
    });
    await t.step(
      "--trust-root with the certificate flags verifies a keyless bundle offline",
      async () => {
        const r = await verify(
          `${registry.host}/demo/keyless:1`,
          "--trust-root",
          "trusted_root.json",
          "--certificate-oidc-issuer",
          ISSUER,
          "--certificate-identity-regexp",
          "^https://github\\.com/team/",
          ...flags,
          "-o",
          "json",
        );
        assert.equal(r.status, 0, r.err);
        const data = JSON.parse(r.out);
        assert.deepEqual([data.subject, data.issuer, data.format], [SUBJECT, ISSUER, "bundle"]);
        assert.ok(data.signedAt);
        const wrong = await verify(
          `${registry.host}/demo/keyless:1`,
          "--trust-root",
          "trusted_root.json",
          "--certificate-oidc-issuer",
          ISSUER,
          "--certificate-identity",
          "https://github.com/someone/else",
          ...flags,
        );
        assert.equal(wrong.status, 1);
        assert.match(wrong.err, /which is not an accepted identity/);
      },
    );
    await t.step("flags that make no requirement are usage errors", async () => {
      const cases: [string[], RegExp][] = [
        [[], /Name the key with --key FILE, or a trust root with --trust-root FILE/],
        [
          ["--trust-root", "trusted_root.json"],
          /needs one of --certificate-identity and --certificate-identity-regexp/,
        ],
        [["--key", "cosign.pub", "--tlog", "required"], /needs --trust-root FILE/],
        [["--key", "cosign.pub", "--certificate-identity", "x"], /leave out --key/],
        [[
          "--trust-root",
          "cosign.pub",
          "--certificate-identity",
          "x",
          "--certificate-oidc-issuer",
          "y",
        ], /Cannot use trust root --trust-root "cosign.pub": not JSON text/],
        [[
          "--trust-root",
          "trusted_root.json",
          "--certificate-identity-regexp",
          "(?i)x",
          "--certificate-oidc-issuer",
          "y",
        ], /flags and look-around groups are not supported/],
      ];
      await Deno.writeTextFile(
        `${dir}/bad.pub`,
        "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
      );
      cases.push([
        ["--key", "bad.pub"],
        /Cannot use --key "bad.pub": Cannot read PEM block 1: not a PKIX public key/,
      ]);
      for (const [args, message] of cases) {
        const r = await verify(`${registry.host}/demo/legacy:1`, ...args, ...flags);
        assert.equal(r.status, 2, `${args.join(" ")}: ${r.err}`);
        assert.match(r.err, message);
      }
    });
    await Deno.remove(dir, { recursive: true });
  },
});
