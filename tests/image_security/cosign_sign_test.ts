/**
 * `toolkit image-security sign --key cosign.key` against the real cosign v3.1.3, on the
 * distribution registry (no referrers API: the bundle is listed under the `sha256-<hex>` fallback
 * tag) and on go-containerregistry's registry with the referrers API: toolkit's signatures pass
 * `cosign verify --key --insecure-ignore-tlog` in both formats, with a key toolkit made and with
 * cosign's own `cosign.key`; a legacy signature joins other signers' layers and is not added
 * twice; a second bundle is listed beside the first; TLS with --cert-dir and --creds works.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { commandContext } from "../../cli/context.ts";
import { bufferedIO } from "../../cli/io.ts";
import {
  COSIGN_SIGNATURE_ANNOTATION,
  cosignSignatureTag,
  referrersFallbackTag,
  SIGSTORE_BUNDLE_V03_MEDIA_TYPE,
} from "../../lib/signature/cosign_media_types.ts";
import {
  e2eSkipReason,
  pushTestImage,
  readFromRegistry,
  REGISTRY_KINDS,
  startCosign,
  startRegistry,
  startRegistryOfKind,
  type TestCosign,
  type TestRegistry,
} from "../env/mod.ts";

const ignore =
  e2eSkipReason(["docker-registry", "referrers-registry", "cosign", "skopeo"]) !== undefined;

async function toolkit(cwd: string, args: string[], env: Record<string, string> = {}) {
  const io = bufferedIO({ cwd, env });
  const status = await runCli(args, commandContext(io));
  return { status, out: io.out(), err: io.err() };
}

/** The referrers of `digest` a reader finds: the referrers API, else the fallback tag. */
async function referrers(registry: TestRegistry, repo: string, digest: string) {
  const found = registry.referrers
    ? await readFromRegistry(registry, `${repo}/referrers/${digest}`)
    : await readFromRegistry(registry, `${repo}/manifests/${referrersFallbackTag(digest)}`);
  assert.equal(found.status, 200);
  return found.json.manifests as { digest: string; artifactType?: string }[];
}

async function verifies(cosign: TestCosign, image: string, publicKeyFile: string) {
  const result = await cosign.verify(image, { publicKeyFile });
  return result.code === 0 ? true : result.stderr;
}

for (const kind of REGISTRY_KINDS) {
  Deno.test({
    name: `toolkit's cosign signatures pass cosign verify on the ${kind} registry`,
    ignore,
    fn: async (t) => {
      await using registry = await startRegistryOfKind(kind);
      await using cosign = await startCosign();
      const dir = await Deno.makeTempDir({ prefix: "toolkit-cosign-sign-" });
      const env = { COSIGN_PASSWORD: "toolkit" };
      const flags = ["--tls-verify=false"];
      try {
        const made = await toolkit(dir, ["image-security", "keygen", "--type", "ecdsa-p256"], env);
        assert.equal(made.status, 0, made.err);
        const pub = `${dir}/cosign.pub`;
        const fingerprint = made.out.trim();
        const theirs = await cosign.generateKeyPair(await Deno.makeTempDir({ dir }), "theirs");
        const repo = `${registry.host}/team/app`;
        const sign = (image: string, ...more: string[]) =>
          toolkit(
            dir,
            ["image-security", "sign", image, "--key", "cosign.key", ...flags, ...more],
            env,
          );

        await t.step("a bundle by tag: resolved once, listed, verified", async () => {
          const digest = await pushTestImage(`${repo}:bundle`, { content: "bundle" });
          const r = await sign(`${repo}:bundle`, "-o", "json");
          assert.equal(r.status, 0, r.err);
          const data = JSON.parse(r.out);
          assert.equal(data.digest, digest);
          assert.equal(data.format, "bundle");
          assert.equal(data.signedBy, fingerprint);
          assert.equal(data.transparencyLog, false);
          assert.equal(data.listedBy, kind === "referrers" ? "referrers-api" : "fallback-tag");
          assert.match(r.err, new RegExp(`Resolved ${repo}:bundle to ${digest}`));
          assert.match(r.err, /no transparency log: nothing was sent to Rekor/);
          const listed = await referrers(registry, "team/app", digest);
          assert.deepEqual(listed.map((d) => d.digest), [data.referrer]);
          if (kind === "distribution") {
            assert.equal(listed[0]!.artifactType, SIGSTORE_BUNDLE_V03_MEDIA_TYPE);
          }
          assert.equal(await verifies(cosign, `${repo}@${digest}`, pub), true);
          assert.notEqual(
            await verifies(cosign, `${repo}@${digest}`, theirs.publicKeyFile),
            true,
            "another key does not verify it",
          );

          // A second signer's bundle is listed beside the first.
          await Deno.writeTextFile(`${dir}/theirs.pass`, "theirs\n");
          const again = await toolkit(dir, [
            "image-security",
            "sign",
            `${repo}@${digest}`,
            "--key",
            theirs.privateKeyFile,
            "--passphrase-file",
            "theirs.pass",
            "--format",
            "bundle",
            ...flags,
          ]);
          assert.equal(again.status, 0, again.err);
          assert.match(again.out, /no transparency log/);
          assert.doesNotMatch(again.err, /Resolved/, "a digest is not resolved");
          assert.equal((await referrers(registry, "team/app", digest)).length, 2);
          assert.equal(await verifies(cosign, `${repo}@${digest}`, pub), true);
          assert.equal(await verifies(cosign, `${repo}@${digest}`, theirs.publicKeyFile), true);
        });

        await t.step("a legacy signature joins cosign's layer and is not added twice", async () => {
          const digest = await pushTestImage(`${repo}:legacy`, { content: "legacy" });
          await cosign.sign(`${repo}@${digest}`, {
            key: theirs.privateKeyFile,
            password: theirs.password,
            format: "legacy",
          });
          const legacy = () => sign(`${repo}@${digest}`, "--format", "cosign", "-o", "json");
          const first = await legacy();
          assert.equal(first.status, 0, first.err);
          assert.equal(JSON.parse(first.out).added, true);
          assert.equal(JSON.parse(first.out).tag, cosignSignatureTag(digest));
          const second = await legacy();
          assert.equal(second.status, 0, second.err);
          assert.equal(JSON.parse(second.out).added, false);
          assert.match(second.err, /nothing was written/);
          const sig = await readFromRegistry(
            registry,
            `team/app/manifests/${cosignSignatureTag(digest)}`,
          );
          assert.equal(sig.json.layers.length, 2, "cosign's layer and toolkit's");
          assert.ok(
            sig.json.layers.every((l: { annotations: Record<string, string> }) =>
              l.annotations[COSIGN_SIGNATURE_ANNOTATION]
            ),
          );
          assert.equal(await verifies(cosign, `${repo}@${digest}`, pub), true);
          assert.equal(await verifies(cosign, `${repo}@${digest}`, theirs.publicKeyFile), true);
        });

        await t.step("cosign's own cosign.key signs through toolkit in both formats", async () => {
          for (const format of ["bundle", "cosign"]) {
            const digest = await pushTestImage(`${repo}:theirs-${format}`, { content: format + 2 });
            const r = await toolkit(dir, [
              "image-security",
              "sign",
              `${repo}@${digest}`,
              "--key",
              theirs.privateKeyFile,
              "--passphrase-file",
              "theirs.pass",
              "--format",
              format,
              ...flags,
            ]);
            assert.equal(r.status, 0, r.err);
            assert.equal(await verifies(cosign, `${repo}@${digest}`, theirs.publicKeyFile), true);
            assert.notEqual(await verifies(cosign, `${repo}@${digest}`, pub), true);
          }
        });
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

Deno.test({
  name: "sign --key cosign.key reaches a TLS registry with --cert-dir and --creds",
  ignore: e2eSkipReason(["docker-registry", "htpasswd", "cosign", "skopeo"]) !== undefined,
  fn: async () => {
    const auth = { username: "signer", password: "s3cret" };
    await using registry = await startRegistry({ tls: true, auth });
    await using cosign = await startCosign();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-cosign-tls-" });
    try {
      await Deno.mkdir(`${dir}/certs`);
      await Deno.copyFile(registry.caCertFile!, `${dir}/certs/ca.crt`);
      const env = { COSIGN_PASSWORD: "" };
      const made = await toolkit(dir, ["image-security", "keygen", "--type", "ecdsa-p256"], env);
      assert.equal(made.status, 0, made.err);
      const image = `${registry.host}/secure/app`;
      const digest = await pushTestImage(`${image}:1`, {
        tlsVerify: true,
        certDir: `${dir}/certs`,
        creds: `${auth.username}:${auth.password}`,
      });
      for (const format of ["bundle", "cosign"]) {
        const r = await toolkit(dir, [
          "image-security",
          "sign",
          `${image}:1`,
          "--key",
          "cosign.key",
          "--format",
          format,
          "--cert-dir",
          "certs",
          "--creds",
          `${auth.username}:${auth.password}`,
        ], env);
        assert.equal(r.status, 0, r.err);
        assert.match(r.out, new RegExp(digest));
      }
      const verified = await cosign.run([
        "verify",
        "--key",
        `${dir}/cosign.pub`,
        "--insecure-ignore-tlog",
        "--registry-cacert",
        registry.caCertFile!,
        "--registry-username",
        auth.username,
        "--registry-password",
        auth.password,
        `${image}@${digest}`,
      ]);
      assert.equal(verified.code, 0, verified.stderr);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
