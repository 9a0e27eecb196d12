/**
 * `toolkit image-security sign --recursive` on the real distribution registry: an image that is
 * no index is signed alone, and says so; on an index (assembled with crane) every platform is
 * signed, and a second run adds nothing, in simple signing (a lookaside directory) and cosign's
 * legacy format.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { commandContext } from "../../cli/context.ts";
import { bufferedIO } from "../../cli/io.ts";
import { generateCosignKeyPair } from "../../lib/signing/cosign_keys.ts";
import { generateKeyPair } from "../../lib/signing/mod.ts";
import { e2eSkipReason, pushTestImage, startRegistry } from "../env/mod.ts";
import { pushMultiPlatformImage } from "../env/multiarch.ts";

Deno.test({
  name: "sign --recursive signs an index and its platforms once, and an image alone",
  ignore: e2eSkipReason(["docker-registry", "skopeo", "crane"]) !== undefined,
  fn: async (t) => {
    await using registry = await startRegistry();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-sign-recursive-" });
    const gpgKey = await generateKeyPair({ name: "recursive", type: "ed25519" });
    await Deno.writeTextFile(`${dir}/key.asc`, gpgKey.privateKeyArmored);
    const cosignKey = await generateCosignKeyPair({ password: "recursive-password" });
    await Deno.writeTextFile(`${dir}/cosign.key`, cosignKey.privateKeyPem);
    await Deno.mkdir(`${dir}/registries.d`);
    await Deno.writeTextFile(
      `${dir}/registries.d/default.yaml`,
      `default-docker:\n  lookaside: file://${dir}/sigstore\n  lookaside-staging: file://${dir}/sigstore\n`,
    );
    const sign = async (image: string, key: string, format: string) => {
      const io = bufferedIO({ cwd: dir, env: { COSIGN_PASSWORD: "recursive-password" } });
      const status = await runCli([
        "image-security",
        "sign",
        image,
        "--key",
        key,
        "--format",
        format,
        "--recursive",
        "--registries.d",
        `${dir}/registries.d`,
        "--tls-verify=false",
        "-o",
        "json",
      ], commandContext(io));
      assert.equal(status, 0, io.err());
      return { data: JSON.parse(io.out()), err: io.err() };
    };

    await t.step("an image that is no index is signed alone, and says so", async () => {
      const image = `${registry.host}/team/single:1`;
      const digest = await pushTestImage(image, { content: "single" });
      const { data, err } = await sign(image, "key.asc", "simple");
      assert.equal(data.digest, digest);
      assert.deepEqual(data.platforms, []);
      assert.match(
        err,
        /--recursive: sha256:\w+ is not an index \(.*\): the image alone is signed/,
      );
    });

    for (const [format, key] of [["simple", "key.asc"], ["cosign", "cosign.key"]] as const) {
      await t.step(`${format}: every platform signed, and nothing twice`, async () => {
        const multi = await pushMultiPlatformImage(`${registry.host}/team/multi-${format}:1`);
        const first = await sign(multi.image, key, format);
        assert.equal(first.data.digest, multi.index);
        assert.match(first.err, /is an index of 2 platform manifests/);
        assert.deepEqual(
          first.data.platforms.map((p: { platform: string; digest: string }) => [
            p.platform,
            p.digest,
          ]),
          multi.platforms.map((p) => [p.platform, p.digest]),
        );
        const again = await sign(multi.image, key, format);
        if (format === "simple") {
          assert.equal(again.data.alreadySigned, true);
          assert.ok(
            again.data.platforms.every((p: { alreadySigned?: boolean }) => p.alreadySigned),
          );
        } else {
          assert.equal(again.data.added, false);
          assert.ok(again.data.platforms.every((p: { added?: boolean }) => p.added === false));
        }
      });
    }
    await Deno.remove(dir, { recursive: true });
  },
});
