/**
 * Images signed by the real cosign v3.1.3 (keyed, no transparency log, in both storage formats)
 * on the distribution registry (no referrers API: cosign writes the `sha256-<hex>` fallback tag)
 * and on go-containerregistry's registry with the referrers API, admitted by the webhook (a real
 * process called by the real kube-apiserver) under `sigstoreSigned` and pinned; a cosign
 * signature by another key denied; toolkit's own signatures (`image-security sign --format
 * cosign|bundle`) admitted beside them; and `toolkit image-security verify --key cosign.pub`
 * verifying what cosign signed.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { commandContext } from "../../cli/context.ts";
import { bufferedIO } from "../../cli/io.ts";
import { e2eSkipReason, pushTestImage, REGISTRY_KINDS, startCosign } from "../env/mod.ts";
import { startWorld } from "./_world.ts";
import { assertAdmittedPinned, assertDenied } from "./_webhook.ts";

const FORMATS = ["legacy", "bundle"] as const;

Deno.test({
  name: "images signed by the real cosign are admitted under sigstoreSigned on both registries",
  ignore: e2eSkipReason([
    "kube-apiserver",
    "etcd",
    "docker-registry",
    "referrers-registry",
    "cosign",
    "skopeo",
  ]) !== undefined,
  fn: async (t) => {
    await using world = await startWorld({
      images: false,
      registries: { distribution: {}, referrers: { kind: "referrers" } },
    });
    const cluster = world.cluster;
    const registries = {
      distribution: world.registries.distribution!,
      referrers: world.registries.referrers!,
    };
    await using cosign = await startCosign();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-cosign-e2e-" });
    await Deno.mkdir(`${dir}/signer`);
    await Deno.mkdir(`${dir}/stranger`);
    const signer = await cosign.generateKeyPair(`${dir}/signer`);
    const stranger = await cosign.generateKeyPair(`${dir}/stranger`);
    const toolkit = async (args: string[], env: Record<string, string> = {}) => {
      const io = bufferedIO({ cwd: dir, env });
      const status = await runCli(args, commandContext(io));
      return { status, out: io.out(), err: io.err() };
    };

    // cosign signs one image per registry and format; another by a stranger's key; toolkit signs
    // one per registry and format with the same cosign.key.
    const images: { name: string; image: string; digest: string; admit: boolean }[] = [];
    for (const kind of REGISTRY_KINDS) {
      const host = registries[kind].host;
      for (const format of FORMATS) {
        const image = `${host}/signed/cosign-${format}:1`;
        const digest = await pushTestImage(image, { content: `${kind} ${format}` });
        await cosign.sign(image, { key: signer.privateKeyFile, password: signer.password, format });
        images.push({ name: `cosign-${kind}-${format}`, image, digest, admit: true });
        const own = `${host}/signed/toolkit-${format}:1`;
        const ownDigest = await pushTestImage(own, { content: `toolkit ${kind} ${format}` });
        const signed = await toolkit([
          "image-security",
          "sign",
          own,
          "--key",
          signer.privateKeyFile,
          "--format",
          format === "legacy" ? "cosign" : "bundle",
          "--tls-verify=false",
        ], { COSIGN_PASSWORD: signer.password });
        assert.equal(signed.status, 0, signed.err);
        images.push({
          name: `toolkit-${kind}-${format}`,
          image: own,
          digest: ownDigest,
          admit: true,
        });
      }
      const foreign = `${host}/signed/stranger:1`;
      const foreignDigest = await pushTestImage(foreign, { content: `stranger ${kind}` });
      await cosign.sign(foreign, {
        key: stranger.privateKeyFile,
        password: stranger.password,
        format: "bundle",
      });
      images.push({
        name: `stranger-${kind}`,
        image: foreign,
        digest: foreignDigest,
        admit: false,
      });
    }

    await t.step(
      "toolkit verify --key cosign.pub verifies what cosign signed, in each format",
      async () => {
        for (const { name, image, digest, admit } of images) {
          if (!name.startsWith("cosign-")) continue;
          const r = await toolkit([
            "image-security",
            "verify",
            image,
            "--key",
            signer.publicKeyFile,
            "--tls-verify=false",
            "-o",
            "json",
          ]);
          assert.equal(r.status, admit ? 0 : 1, `${name}: ${r.err}`);
          const data = JSON.parse(r.out);
          assert.equal(data.digest, digest, name);
          assert.equal(data.format, name.endsWith("legacy") ? "legacy" : "bundle", name);
        }
      },
    );

    await world.namespaces("dev");
    await world.keySecret("cosign-pub", await Deno.readTextFile(signer.publicKeyFile));
    await world.clusterPolicy(REGISTRY_KINDS.map((kind) => ({
      name: `${registries[kind].host}/signed/*`,
      policy: {
        simple: { requirements: [{ type: "sigstoreSigned", keySecret: "cosign-pub" }] },
      },
    })));
    await world.startWebhook({
      insecureRegistries: [registries.distribution.host, registries.referrers.host],
      probe: { namespace: "dev", image: images.find((i) => !i.admit)!.image },
    });

    for (const { name, image, digest, admit } of images) {
      await t.step(`${name}: ${admit ? "admitted and pinned" : "denied"}`, async () => {
        if (admit) {
          await assertAdmittedPinned(cluster, name, "dev", image, digest);
        } else {
          await assertDenied(
            cluster,
            name,
            "dev",
            image,
            /None of the signatures were accepted, reasons: referrer sha256:\w+: the signature does not verify with the key of the requirement/,
          );
        }
      });
    }
    await Deno.remove(dir, { recursive: true });
  },
});
