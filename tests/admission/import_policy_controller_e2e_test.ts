/**
 * A sigstore policy-controller policy imported and enforced: policy-controller's own e2e policy
 * `cip-key-no-rekor.yaml` (keyed, glob `**demo**`, no transparency log), with its key replaced by
 * a cosign key made here, converted and applied by `toolkit image-security import --apply` into
 * the real API server; the real webhook then gives the verdicts policy-controller's e2e test
 * expects: an image cosign v3.1.3 signed with that key (in either storage format) is admitted and
 * pinned, an unsigned one and one signed by another key are denied.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { commandContext } from "../../cli/context.ts";
import { bufferedIO } from "../../cli/io.ts";
import { e2eSkipReason, pushTestImage, startCosign } from "../env/mod.ts";
import { startWorld } from "./_world.ts";
import { dryRunPod } from "./_webhook.ts";

const SOURCE = new URL(
  "../fixtures/import/policy-controller/test/testdata/policy-controller/e2e/cip-key-no-rekor.yaml",
  import.meta.url,
);

Deno.test({
  name:
    "a policy-controller keyed policy imported with --apply admits what its key signed and denies the rest",
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

    // policy-controller's policy as published, with the key that signed here.
    const publicKey = (await Deno.readTextFile(signer.publicKeyFile)).trim();
    const source = (await Deno.readTextFile(SOURCE)).replace(
      /-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/,
      publicKey.split("\n").join("\n        "),
    );
    await Deno.writeTextFile(`${dir}/cip.yaml`, source);
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
    await Deno.remove(dir, { recursive: true });
  },
});
