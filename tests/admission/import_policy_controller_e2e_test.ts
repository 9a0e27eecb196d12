/**
 * sigstore policy-controller policies imported and enforced, as policy-controller's own e2e tests
 * expect them to decide:
 *
 * - `cip-key-no-rekor.yaml` (keyed, glob `**demo**`, no transparency log), its key replaced by a
 *   cosign key made here: an image cosign v3.1.3 signed with that key (in either storage format)
 *   is admitted, an unsigned one and one signed by another key are denied;
 * - `cip-keyless-with-identities.yaml` (keyless, identities by regexp, a private Fulcio and
 *   Rekor), its glob moved to `**keyless**` so the two do not overlap: the trust root the import
 *   asks for supplied with `image-security trust-root` (a Fulcio-like CA and Rekor-like log made
 *   by the test, tests/fakes/sigstore_instance.ts), an image signed by the identity the policy
 *   names is admitted, one signed by another service account denied;
 * - the same policy naming policy-controller's e2e TrustRoot `bring-your-own-keys.yaml` (its
 *   placeholders filled with that CA and log, as its e2e script does), both imported in one run:
 *   the image signed by the identity admitted under the ConfigMap made of the TrustRoot;
 * - `cip-key-with-attestations-no-rekor.yaml` (a custom attestation whose CUE policy wants
 *   `predicate: Data: "foobar key e2e test"`), its key replaced and its glob moved to
 *   `**attested**`: the CUE becomes a CEL condition; an image cosign attested (`--type custom`)
 *   with that text is admitted, one attested with another text denied by the condition, as
 *   policy-controller's e2e script expects;
 * - `cip-keyless-warn.yaml`, `cip-static-pass.yaml` and `cip-static-fail.yaml`, imported in one
 *   run with their globs moved apart: an unsigned image admitted with a warning, any image
 *   admitted, any image denied.
 *
 * Each is converted and applied by `toolkit image-security import --apply` into the real API
 * server and decided by the real webhook.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { commandContext } from "../../cli/context.ts";
import { bufferedIO } from "../../cli/io.ts";
import { e2eSkipReason, pushTestImage, startCosign } from "../env/mod.ts";
import { startWorld } from "./_world.ts";
import { dryRunPod } from "./_webhook.ts";
import { pushCosignSignatures } from "../fakes/cosign_registry.ts";
import {
  cosignPayload,
  legacySignature,
  testFulcio,
  testKeyPair,
  testRekor,
  testTrustRoot,
} from "../fakes/sigstore_instance.ts";

const E2E = new URL(
  "../fixtures/import/policy-controller/test/testdata/policy-controller/e2e/",
  import.meta.url,
);
const SOURCE = new URL("cip-key-no-rekor.yaml", E2E);
const KEYLESS_SOURCE = new URL("cip-keyless-with-identities.yaml", E2E);
const ISSUER = "https://kubernetes.default.svc.cluster.local";
const SUBJECT = "https://kubernetes.io/namespaces/default/serviceaccounts/default";

Deno.test({
  name:
    "policy-controller's e2e policies imported with --apply admit and deny as its e2e tests expect",
  ignore: e2eSkipReason(["kube-apiserver", "etcd", "docker-registry", "cosign", "skopeo"]) !==
    undefined,
  fn: async (t) => {
    await using world = await startWorld({ images: false, registries: { registry: {} } });
    const host = world.registries.registry!.host;
    await using cosign = await startCosign();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-import-e2e-" });
    await Deno.mkdir(`${dir}/signer`);
    await Deno.mkdir(`${dir}/stranger`);
    const signer = await cosign.generateKeyPair(`${dir}/signer`);
    const stranger = await cosign.generateKeyPair(`${dir}/stranger`);

    const images = {
      legacy: `${host}/demo/legacy:1`,
      bundle: `${host}/demo/bundle:1`,
      unsigned: `${host}/demo/unsigned:1`,
      stranger: `${host}/demo/stranger:1`,
    };
    const digests: Record<string, string> = {};
    for (const [name, image] of Object.entries(images)) {
      digests[name] = await pushTestImage(image, { content: name });
    }
    for (const format of ["legacy", "bundle"] as const) {
      await cosign.sign(images[format], {
        key: signer.privateKeyFile,
        password: signer.password,
        format,
      });
    }
    await cosign.sign(images.stranger, {
      key: stranger.privateKeyFile,
      password: stranger.password,
      format: "bundle",
    });

    // Keyless: a Fulcio-like CA and Rekor-like log, certificates of two service accounts.
    const fulcio = await testFulcio();
    const rekor = testRekor();
    const workload = testKeyPair();
    const notBefore = new Date(Date.now() - 3600_000);
    const at = new Date(notBefore.getTime() + 60_000);
    const keyless: Record<string, string> = {};
    for (
      const [name, subject] of [
        ["keyless/good", SUBJECT],
        ["keyless/other", SUBJECT.replace(/default$/, "other")],
        ["byok/good", SUBJECT],
      ]
    ) {
      const image = `${host}/${name}:1`;
      const digest = await pushTestImage(image, { content: `keyless ${name}` });
      const certificate = await fulcio.issue({
        publicKey: workload.publicKey,
        subject: subject!,
        issuer: ISSUER,
        notBefore,
      });
      await pushCosignSignatures(host, name!, digest, [
        legacySignature({
          signer: { key: workload, certificate },
          payload: cosignPayload(`${host}/${name}`, digest),
          rekor: { log: rekor, at },
        }),
      ]);
      keyless[name!] = image;
    }
    await Deno.writeTextFile(`${dir}/trusted_root.json`, testTrustRoot({ fulcio, rekor }));
    // policy-controller's bring-your-own-keys TrustRoot, its placeholders filled as its e2e script
    // fills them (without the CT log: the test's certificates carry no SCT), and its keyless
    // policy naming that TrustRoot instead of URLs, as its trustroot e2e policies do.
    const b64 = (text: string) => btoa(text);
    const byok =
      (await Deno.readTextFile(new URL("../../trustroot/e2e/bring-your-own-keys.yaml", E2E)))
        .replace("FULCIO_CERT_CHAIN", b64(fulcio.chain.map((c) => c.toString("pem")).join("\n")))
        .replace("REKOR_PUBLIC_KEY", b64(rekor.key.publicPem))
        .replace(/ {4}ctLogs:[\s\S]*?(?= {4}timestampAuthorities:)/, "");
    await Deno.writeTextFile(`${dir}/trustroot.yaml`, byok);
    await Deno.writeTextFile(
      `${dir}/byok.yaml`,
      (await Deno.readTextFile(KEYLESS_SOURCE))
        .replace(`glob: "**demo**"`, `glob: "**byok**"`)
        .replace("name: image-policy-keyless-with-identities", "name: image-policy-byok")
        .replace(/url: http:\/\/fulcio\S*/, "trustRootRef: my-sigstore-keys")
        .replace(/url: http:\/\/rekor\S*/, "trustRootRef: my-sigstore-keys"),
    );
    const others = { warn: "warned", "static-pass": "passed", "static-fail": "failed" };
    for (const [name, path] of Object.entries(others)) {
      const text = await Deno.readTextFile(
        new URL(`cip-${name === "warn" ? "keyless-warn" : name}.yaml`, E2E),
      );
      await Deno.writeTextFile(
        `${dir}/${name}.yaml`,
        text.replace(`glob: "**demo**"`, `glob: "**${path}**"`),
      );
      await pushTestImage(`${host}/${path}/unsigned:1`, { content: path });
    }
    await Deno.writeTextFile(
      `${dir}/keyless.yaml`,
      (await Deno.readTextFile(KEYLESS_SOURCE)).replace(`glob: "**demo**"`, `glob: "**keyless**"`),
    );

    // policy-controller's policy as published, with the key that signed here.
    const publicKey = (await Deno.readTextFile(signer.publicKeyFile)).trim();
    const source = (await Deno.readTextFile(SOURCE)).replace(
      /-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/,
      publicKey.split("\n").join("\n        "),
    );
    await Deno.writeTextFile(`${dir}/cip.yaml`, source);

    // The custom attestation policy: attested with the text its CUE wants, and with another.
    const attested: Record<string, string> = {};
    for (const [name, text] of [["good", "foobar key e2e test"], ["bad", "another text"]]) {
      const image = `${host}/attested/${name}:1`;
      await pushTestImage(image, { content: `attested ${name}` });
      await Deno.writeTextFile(`${dir}/predicate-${name}`, text!);
      const r = await cosign.run([
        "attest",
        "--key",
        signer.privateKeyFile,
        "--predicate",
        `${dir}/predicate-${name}`,
        "--type",
        "custom",
        "--use-signing-config=false",
        "--tlog-upload=false",
        "--allow-insecure-registry",
        "-y",
        image,
      ], { password: signer.password });
      assert.equal(r.code, 0, `cosign attest ${image}: ${r.stderr}`);
      attested[name!] = image;
    }
    await Deno.writeTextFile(
      `${dir}/attested.yaml`,
      (await Deno.readTextFile(new URL("cip-key-with-attestations-no-rekor.yaml", E2E)))
        .replace(`glob: "**demo**"`, `glob: "**attested**"`)
        .replace(
          /-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/,
          publicKey.split("\n").join("\n        "),
        ),
    );
    await world.namespaces("demo");

    await t.step("import --apply converts and installs it", async () => {
      const io = bufferedIO({ cwd: dir, env: { KUBECONFIG: world.cluster.kubeconfigPath } });
      const status = await runCli(
        ["image-security", "import", "cip.yaml", "--apply"],
        commandContext(io),
      );
      assert.equal(status, 0, io.err());
      assert.match(io.err(), /Secret "toolkit-system\/image-policy-key-key" created/);
      assert.match(io.err(), /ClusterImagePolicy "image-policy-key" created/);
    });

    await t.step(
      "import --apply converts the keyless one and names the trust root to supply",
      async () => {
        const io = bufferedIO({ cwd: dir, env: { KUBECONFIG: world.cluster.kubeconfigPath } });
        const status = await runCli(
          ["image-security", "import", "keyless.yaml", "--apply"],
          commandContext(io),
        );
        assert.equal(status, 0, io.err());
        const supply = io.err().match(
          /toolkit image-security trust-root (\S+) -f trusted_root\.json/,
        );
        assert.ok(supply, io.err());
        const root = bufferedIO({ cwd: dir, env: { KUBECONFIG: world.cluster.kubeconfigPath } });
        const stored = await runCli(
          [
            "image-security",
            "trust-root",
            supply[1]!,
            "-f",
            "trusted_root.json",
            "-n",
            "toolkit-system",
          ],
          commandContext(root),
        );
        assert.equal(stored, 0, root.err());
      },
    );

    await t.step("a TrustRoot and a keyless policy naming it, imported together", async () => {
      const io = bufferedIO({ cwd: dir, env: { KUBECONFIG: world.cluster.kubeconfigPath } });
      const status = await runCli(
        ["image-security", "import", "trustroot.yaml", "byok.yaml", "--apply"],
        commandContext(io),
      );
      assert.equal(status, 0, io.err());
      assert.match(io.err(), /ConfigMap "toolkit-system\/my-sigstore-keys" created/);
      assert.doesNotMatch(io.err(), /Warning:/);
    });

    await t.step("the custom attestation's CUE policy is imported as a CEL condition", async () => {
      const io = bufferedIO({ cwd: dir, env: { KUBECONFIG: world.cluster.kubeconfigPath } });
      const status = await runCli(
        ["image-security", "import", "attested.yaml", "--apply"],
        commandContext(io),
      );
      assert.equal(status, 0, io.err());
      assert.match(io.err(), /translated to the CEL condition "custom-match-predicate"/);
    });

    await world.startWebhook({
      insecureRegistries: [host],
      probe: { namespace: "demo", image: images.unsigned },
    });

    for (const format of ["legacy", "bundle"] as const) {
      await t.step(`an image cosign signed with the key (${format}) is admitted`, async () => {
        const r = await dryRunPod(world.cluster, `signed-${format}`, "demo", images[format]);
        assert.equal(r.code, 0, r.stderr);
      });
    }
    await t.step("an unsigned image is denied", async () => {
      const r = await dryRunPod(world.cluster, "unsigned", "demo", images.unsigned);
      assert.notEqual(r.code, 0);
      assert.match(
        r.stderr,
        /policy denied the request: A signature was required, but no signature exists/,
      );
    });
    await t.step("an image signed by another key is denied", async () => {
      const r = await dryRunPod(world.cluster, "stranger", "demo", images.stranger);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /does not verify with the key of the requirement/);
    });
    await t.step(
      "an image signed by the identity the keyless policy names is admitted",
      async () => {
        const r = await dryRunPod(world.cluster, "keyless-good", "demo", keyless["keyless/good"]!);
        assert.equal(r.code, 0, r.stderr);
      },
    );
    await t.step(
      "an image signed by that identity is admitted under the imported TrustRoot",
      async () => {
        const r = await dryRunPod(world.cluster, "byok-good", "demo", keyless["byok/good"]!);
        assert.equal(r.code, 0, r.stderr);
      },
    );
    await t.step("an image signed by another service account is denied", async () => {
      const r = await dryRunPod(world.cluster, "keyless-other", "demo", keyless["keyless/other"]!);
      assert.notEqual(r.code, 0);
      assert.match(
        r.stderr,
        /serviceaccounts\/other" issued by "https:\/\/kubernetes\.default\.svc\.cluster\.local", which is not an accepted identity \(issuer matching "\.\*kubernetes\.default\.\*"/,
      );
    });
    await t.step("an image attested with the text the CUE policy wants is admitted", async () => {
      const r = await dryRunPod(world.cluster, "attested-good", "demo", attested.good!);
      assert.equal(r.code, 0, r.stderr);
    });
    await t.step("an image attested with another text is denied by the condition", async () => {
      const r = await dryRunPod(world.cluster, "attested-bad", "demo", attested.bad!);
      assert.notEqual(r.code, 0);
      assert.match(
        r.stderr,
        /condition "custom-match-predicate" is false: policy-controller's CUE policy of attestation custom-match-predicate/,
      );
    });
    await t.step("warn, static pass and static fail policies imported in one run", async () => {
      const env = { KUBECONFIG: world.cluster.kubeconfigPath };
      const io = bufferedIO({ cwd: dir, env });
      const files = Object.keys(others).map((name) => `${name}.yaml`);
      const status = await runCli(
        ["image-security", "import", ...files, "--apply"],
        commandContext(io),
      );
      assert.equal(status, 0, io.err());
      const root = bufferedIO({ cwd: dir, env });
      const stored = await runCli(
        [
          "image-security",
          "trust-root",
          "image-policy-keyless-warn-trust-root",
          "-f",
          "trusted_root.json",
          "-n",
          "toolkit-system",
        ],
        commandContext(root),
      );
      assert.equal(stored, 0, root.err());
    });
    await t.step("mode: warn admits an unsigned image with a warning", async () => {
      const r = await dryRunPod(world.cluster, "warned", "demo", `${host}/warned/unsigned:1`);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /Warning: .*A signature was required, but no signature exists/);
    });
    await t.step("static pass admits, static fail denies", async () => {
      const passed = await dryRunPod(world.cluster, "passed", "demo", `${host}/passed/unsigned:1`);
      assert.equal(passed.code, 0, passed.stderr);
      const failed = await dryRunPod(world.cluster, "failed", "demo", `${host}/failed/unsigned:1`);
      assert.notEqual(failed.code, 0);
      assert.match(failed.stderr, /Running image \S+\/failed\/unsigned:1 is rejected by policy/);
    });
    await Deno.remove(dir, { recursive: true });
  },
});
