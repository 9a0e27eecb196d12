/**
 * `toolkit image-security keygen | sign | verify` against the real registry, gpg and skopeo:
 * skopeo's signatures verify with toolkit, toolkit's signatures pass `skopeo
 * standalone-verify`, and every failure names its reason.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { bufferedIO } from "../../cli/io.ts";
import { e2eSkipReason, startGpg, startRegistry } from "../env/mod.ts";
import { commandContext } from "../../cli/context.ts";

async function toolkit(cwd: string, args: string[]) {
  const io = bufferedIO({ cwd });
  const status = await runCli(args, commandContext(io));
  return { status, out: io.out(), err: io.err() };
}

Deno.test({
  name: "image-security sign and verify agree with skopeo and gpg",
  ignore: e2eSkipReason(["docker-registry", "gpg", "gpgconf", "skopeo", "htpasswd"]) !== undefined,
  fn: async (t) => {
    await using registry = await startRegistry();
    await using gpg = await startGpg();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-sign-" });
    const flags = ["--tls-verify=false", "--registries.d", gpg.registriesD];
    try {
      const gpgKey = await gpg.generateKey({ type: "rsa" });
      await Deno.writeTextFile(`${dir}/gpg.pub.asc`, gpgKey.publicKeyArmored);
      const signed = `${registry.host}/demo/app:1`;
      const signedDigest = await gpg.pushImage(signed, { signBy: gpgKey.fingerprint });
      const unsigned = `${registry.host}/demo/unsigned:1`;
      const unsignedDigest = await gpg.pushImage(unsigned, { content: "unsigned" });

      await t.step("verify accepts a skopeo --sign-by signature", async () => {
        const r = await toolkit(dir, [
          "image-security",
          "verify",
          signed,
          "--key",
          "gpg.pub.asc",
          ...flags,
          "-o",
          "json",
        ]);
        assert.equal(r.status, 0, r.err);
        const data = JSON.parse(r.out);
        assert.equal(data.digest, signedDigest);
        assert.equal(data.signedBy, gpgKey.fingerprint);
        assert.equal(data.identity, signed);
      });

      await t.step("verify denies an unsigned image with the Portieris message", async () => {
        const r = await toolkit(dir, [
          "image-security",
          "verify",
          unsigned,
          "--key",
          "gpg.pub.asc",
          ...flags,
        ]);
        assert.equal(r.status, 1);
        assert.match(r.err, /A signature was required, but no signature exists/);
      });

      await t.step(
        "keygen + sign make a signature that skopeo standalone-verify accepts",
        async () => {
          const kg = await toolkit(dir, [
            "image-security",
            "keygen",
            "--name",
            "Toolkit Signer",
            "--email",
            "toolkit@example.com",
            "--type",
            "ed25519",
          ]);
          assert.equal(kg.status, 0, kg.err);
          const fingerprint = kg.out.trim();
          const sign = await toolkit(dir, [
            "image-security",
            "sign",
            unsigned,
            "--key",
            "toolkit.key.asc",
            ...flags,
          ]);
          assert.equal(sign.status, 0, sign.err);
          assert.match(sign.out, new RegExp(`Signed ${unsigned} \\(${unsignedDigest}\\)`));
          const sigFile = `${gpg.sigstore}/demo/unsigned@sha256=${
            unsignedDigest.slice(7)
          }/signature-1`;
          const manifest = await gpg.run("skopeo", [
            "inspect",
            "--raw",
            "--tls-verify=false",
            `docker://${unsigned}`,
          ]);
          await Deno.writeTextFile(`${dir}/manifest.json`, manifest.stdout);
          const imported = await gpg.run("gpg", ["--batch", "--import", `${dir}/toolkit.pub.asc`]);
          assert.equal(imported.code, 0, imported.stderr);
          const verified = await gpg.run("skopeo", [
            "standalone-verify",
            `${dir}/manifest.json`,
            unsigned,
            fingerprint,
            sigFile,
          ]);
          assert.equal(verified.code, 0, verified.stderr);
          assert.match(verified.stdout, new RegExp(`Signature verified, digest ${unsignedDigest}`));

          const check = await toolkit(dir, [
            "image-security",
            "verify",
            unsigned,
            "--key",
            "toolkit.pub.asc",
            ...flags,
          ]);
          assert.equal(check.status, 0, check.err);
          assert.match(check.out, new RegExp(`signed by ${fingerprint}`));
        },
      );

      await t.step("signing again with the same key stores no second signature", async () => {
        const again = await toolkit(dir, [
          "image-security",
          "sign",
          unsigned,
          "--key",
          "toolkit.key.asc",
          ...flags,
          "-o",
          "json",
        ]);
        assert.equal(again.status, 0, again.err);
        assert.match(again.err, /is already signed with key [0-9A-F]{40} in .*: nothing stored/);
        assert.equal(JSON.parse(again.out).alreadySigned, true);
        const stored = `${gpg.sigstore}/demo/unsigned@sha256=${unsignedDigest.slice(7)}`;
        const names: string[] = [];
        for await (const entry of Deno.readDir(stored)) names.push(entry.name);
        assert.deepEqual(names, ["signature-1"]);
      });

      await t.step(
        "sign over HTTPS to a plain HTTP registry says --tls-verify=false, once",
        async () => {
          const r = await toolkit(dir, [
            "image-security",
            "sign",
            unsigned,
            "--key",
            "toolkit.key.asc",
            "--registries.d",
            gpg.registriesD,
          ]);
          assert.equal(r.status, 1, r.err);
          assert.match(r.err, /gave an HTTP response to an HTTPS client/);
          assert.equal(r.err.match(/HTTP response to an HTTPS client/g)?.length, 1, r.err);
          assert.match(
            r.err,
            new RegExp(
              `${registry.host} speaks plain HTTP: --tls-verify=false reaches it over HTTP`,
            ),
          );
          assert.doesNotMatch(r.err, /InvalidContentType|--help/);
        },
      );

      await t.step("verify rejects a signature by another key, naming the key", async () => {
        const r = await toolkit(dir, [
          "image-security",
          "verify",
          signed,
          "--key",
          "toolkit.pub.asc",
          ...flags,
        ]);
        assert.equal(r.status, 1);
        assert.match(r.err, /None of the signatures were accepted, reasons: .*key/);
      });

      await t.step("sign --identity and the identity rules", async () => {
        const other = `${registry.host}/demo/other:2`;
        await gpg.pushImage(other, { content: "other" });
        const sign = await toolkit(dir, [
          "image-security",
          "sign",
          other,
          "--key",
          "toolkit.key.asc",
          "--identity",
          "example.com/released/app:2",
          ...flags,
        ]);
        assert.equal(sign.status, 0, sign.err);
        const verify = (rule: string[]) =>
          toolkit(dir, [
            "image-security",
            "verify",
            other,
            "--key",
            "toolkit.pub.asc",
            ...flags,
            ...rule,
          ]);
        const byDefault = await verify([]);
        assert.equal(byDefault.status, 1);
        assert.match(byDefault.err, /example\.com\/released\/app:2/);
        const exact = await verify([
          "--identity-rule",
          "matchExactReference",
          "--identity-reference",
          "example.com/released/app:2",
        ]);
        assert.equal(exact.status, 0, exact.err);
        const remap = await verify([
          "--identity-rule",
          "remapIdentity",
          "--prefix",
          `${registry.host}/demo`,
          "--signed-prefix",
          "example.com/released",
        ]);
        assert.equal(remap.status, 1, "other:2 remaps to example.com/released/other:2, not app:2");
        const bad = await verify(["--identity-rule", "matchEverything"]);
        assert.equal(bad.status, 2);
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "image-security sign and verify reach a registry behind htpasswd only with --creds",
  ignore: e2eSkipReason(["docker-registry", "gpg", "gpgconf", "skopeo", "htpasswd"]) !== undefined,
  fn: async () => {
    await using registry = await startRegistry({ auth: { username: "ci", password: "pw" } });
    await using gpg = await startGpg();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-sign-" });
    try {
      const image = `${registry.host}/private/app:1`;
      await gpg.pushImage(image, { creds: "ci:pw" });
      const kg = await toolkit(dir, [
        "image-security",
        "keygen",
        "--name",
        "S",
        "--type",
        "ed25519",
      ]);
      assert.equal(kg.status, 0, kg.err);
      const flags = ["--tls-verify=false", "--registries.d", gpg.registriesD];
      const denied = await toolkit(dir, [
        "image-security",
        "sign",
        image,
        "--key",
        "s.key.asc",
        ...flags,
      ]);
      assert.equal(denied.status, 1);
      assert.match(denied.err, /UNAUTHORIZED|401|unauthorized/i);
      const sign = await toolkit(dir, [
        "image-security",
        "sign",
        image,
        "--key",
        "s.key.asc",
        "--creds",
        "ci:pw",
        ...flags,
      ]);
      assert.equal(sign.status, 0, sign.err);
      const verify = await toolkit(dir, [
        "image-security",
        "verify",
        image,
        "--key",
        "s.pub.asc",
        "--creds",
        "ci:pw",
        ...flags,
      ]);
      assert.equal(verify.status, 0, verify.err);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "image-security verify and check reach the same verdict with the same message",
  ignore: e2eSkipReason(["docker-registry", "gpg", "gpgconf", "skopeo"]) !== undefined,
  fn: async (t) => {
    await using registry = await startRegistry();
    await using gpg = await startGpg();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-verify-check-" });
    try {
      const key = await gpg.generateKey({ type: "ed25519" });
      await Deno.writeTextFile(`${dir}/key.pub.asc`, key.publicKeyArmored);
      await Deno.writeTextFile(
        `${dir}/policies.yaml`,
        `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
    - name: "${registry.host}/demo/*"
      policy:
        simple: { requirements: [{ type: signedBy, keySecret: signer }] }
---
apiVersion: v1
kind: Secret
metadata: { name: signer, namespace: toolkit-system }
stringData:
  key: |
${key.publicKeyArmored.trimEnd().split("\n").map((l) => `    ${l}`).join("\n")}
`,
      );
      const signed = `${registry.host}/demo/app:1`;
      const digest = await gpg.pushImage(signed, { signBy: key.fingerprint });
      const unsigned = `${registry.host}/demo/unsigned:1`;
      await gpg.pushImage(unsigned, { content: "unsigned" });
      const unknownDigest = `${registry.host}/demo/app@sha256:${"e".repeat(64)}`;
      const both = async (image: string, registriesD: string) => {
        const flags = ["--tls-verify=false", "--registries.d", registriesD, "-o", "json"];
        const verify = await toolkit(dir, [
          "image-security",
          "verify",
          image,
          "--key",
          "key.pub.asc",
          ...flags,
        ]);
        const check = await toolkit(dir, [
          "image-security",
          "check",
          image,
          "-f",
          "policies.yaml",
          ...flags,
        ]);
        const v = JSON.parse(verify.out);
        const c = JSON.parse(check.out).images[0];
        assert.equal(v.verified, c.allowed, `${verify.err}\n${check.err}`);
        assert.equal(verify.status, check.status);
        if (!c.allowed) assert.equal(`policy denied the request: ${v.reason}`, c.reason);
        return v;
      };

      await t.step("a signed image verifies in both", async () => {
        const v = await both(signed, gpg.registriesD);
        assert.equal(v.digest, digest);
      });
      await t.step("an unsigned image: no signature exists, in both", async () => {
        const v = await both(unsigned, gpg.registriesD);
        assert.equal(v.reason, "A signature was required, but no signature exists");
      });
      await t.step("a digest reference is not resolved again: no signature, in both", async () => {
        const v = await both(unknownDigest, gpg.registriesD);
        assert.equal(v.reason, "A signature was required, but no signature exists");
      });
      await t.step("no signature store: the same denial in both", async () => {
        const v = await both(signed, `${dir}/no-registries.d`);
        assert.match(v.reason, /no signature store is configured for/);
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
