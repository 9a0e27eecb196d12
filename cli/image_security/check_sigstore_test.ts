/**
 * `image-security check` with `sigstoreSigned` policies: a policy file that does not validate is a
 * usage error naming the field, a key Secret whose PEM keys cannot be used is named with
 * `keySecret` in the reason, and a cosign-signed image in the real registry (with its key Secret
 * and, keyless, the trust root ConfigMap in the same file) is allowed and pinned.
 */
import assert from "node:assert/strict";
import { runCli } from "../app.ts";
import { bufferedIO } from "../io.ts";
import { commandContext } from "../context.ts";
import { e2eSkipReason, startRegistry } from "../../tests/env/mod.ts";
import { buildOciLayout, skopeoPush } from "../../tests/env/oci_layout.ts";
import { pushCosignSignatures } from "../../tests/fakes/cosign_registry.ts";
import {
  bundleSignature,
  cosignStatement,
  testFulcio,
  testKeyPair,
  testRekor,
  testTrustRoot,
} from "../../tests/fakes/sigstore_instance.ts";

const indent = (text: string, by = "    ") =>
  text.trimEnd().split("\n").map((l) => `${by}${l}`).join("\n");

async function check(dir: string, file: string, images: string[], extra: string[] = []) {
  const io = bufferedIO({ cwd: dir });
  const code = await runCli(
    ["image-security", "check", ...images, "-f", file, ...extra],
    commandContext(io),
  );
  return { code, out: io.out(), err: io.err() };
}

Deno.test("image-security check names the field of a wrong sigstoreSigned requirement (exit 2)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "check-sigstore-" });
  await Deno.writeTextFile(
    `${dir}/bad.yaml`,
    `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
    - name: "reg.test/*"
      policy:
        simple:
          requirements:
            - type: sigstoreSigned
              keyless:
                trustRootRef: { name: root }
                identities: [{ issuer: "https://issuer.test", subjectRegExp: "(a|b" }]
`,
  );
  const r = await check(dir, "bad.yaml", ["reg.test/app:1"]);
  assert.equal(r.code, 2);
  assert.match(
    r.err,
    /spec\.repositories\[0\]\.policy\.simple\.requirements\[0\]\.keyless\.identities\[0\]\.subjectRegExp: Cannot use regular expression "\(a\|b": missing \) at character 5/,
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("image-security check names a key Secret whose PEM keys cannot be used, with keySecret", async () => {
  const dir = await Deno.makeTempDir({ prefix: "check-sigstore-" });
  await Deno.writeTextFile(
    `${dir}/policies.yaml`,
    `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
    - name: "reg.invalid/*"
      policy:
        simple: { requirements: [{ type: sigstoreSigned, keySecret: cosign-pub }] }
---
apiVersion: v1
kind: Secret
metadata: { name: cosign-pub }
stringData:
  key: |
    -----BEGIN PGP PUBLIC KEY BLOCK-----
    xx
    -----END PGP PUBLIC KEY BLOCK-----
`,
  );
  // The keys are read before the registry is asked: no registry is needed to see the mistake.
  const r = await check(dir, "policies.yaml", ["reg.invalid/app:1"], ["-o", "json"]);
  assert.equal(r.code, 1, r.err);
  const data = JSON.parse(r.out);
  assert.match(
    data.images[0].reason,
    /Cannot use key Secret "toolkit-system\/cosign-pub" \(keySecret of a sigstoreSigned requirement\): Cannot read public keys: this is an OpenPGP key, not a PEM public key/,
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test({
  name: "image-security check allows and pins cosign-signed images, keyed and keyless",
  ignore: e2eSkipReason(["docker-registry", "skopeo"]) !== undefined,
  async fn() {
    await using registry = await startRegistry();
    const dir = await Deno.makeTempDir({ prefix: "check-sigstore-" });
    const key = testKeyPair();
    const fulcio = await testFulcio();
    const rekor = testRekor();
    const workload = testKeyPair();
    const issuer = "https://token.actions.githubusercontent.com";
    const subject = "https://github.com/team/app/.github/workflows/release.yml@refs/heads/main";
    const notBefore = new Date(Date.now() - 3600_000);
    const certificate = await fulcio.issue({
      publicKey: workload.publicKey,
      subject,
      issuer,
      notBefore,
    });
    const digests: Record<string, string> = {};
    for (const name of ["keyed", "keyless"]) {
      digests[name] = await skopeoPush(
        await buildOciLayout(dir, { name, content: name }),
        `${registry.host}/team/${name}:1`,
        { home: dir },
      );
    }
    await pushCosignSignatures(registry.host, "team/keyed", digests.keyed!, [
      bundleSignature({ signer: { key }, statement: cosignStatement(digests.keyed!) }),
    ], { fallbackTag: true });
    await pushCosignSignatures(registry.host, "team/keyless", digests.keyless!, [
      bundleSignature({
        signer: { key: workload, certificate },
        statement: cosignStatement(digests.keyless!),
        rekor: { log: rekor, at: new Date(notBefore.getTime() + 60_000) },
      }),
    ], { fallbackTag: true });
    await Deno.writeTextFile(
      `${dir}/policies.yaml`,
      `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
    - name: "${registry.host}/team/keyed"
      policy:
        simple: { requirements: [{ type: sigstoreSigned, keySecret: cosign-pub }] }
    - name: "${registry.host}/team/keyless"
      policy:
        simple:
          requirements:
            - type: sigstoreSigned
              keyless:
                trustRootRef: { name: sigstore-root }
                identities: [{ issuer: "${issuer}", subject: "${subject}" }]
---
apiVersion: v1
kind: Secret
metadata: { name: cosign-pub }
stringData:
  key: |
${indent(key.publicPem)}
---
apiVersion: v1
kind: ConfigMap
metadata: { name: sigstore-root }
data:
  trusted_root.json: |
${indent(testTrustRoot({ fulcio, rekor }))}
`,
    );
    const r = await check(
      dir,
      "policies.yaml",
      [`${registry.host}/team/keyed:1`, `${registry.host}/team/keyless:1`],
      ["--insecure-registry", registry.host, "-o", "json"],
    );
    assert.equal(r.code, 0, `${r.out}${r.err}`);
    const data = JSON.parse(r.out);
    assert.deepEqual(
      data.images.map((i: { pinned: string }) => i.pinned),
      [
        `${registry.host}/team/keyed@${digests.keyed}`,
        `${registry.host}/team/keyless@${digests.keyless}`,
      ],
    );
    await Deno.remove(dir, { recursive: true });
  },
});
