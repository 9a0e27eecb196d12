/**
 * toolkit's cosign keys against the real cosign v3.1.3: cosign signs images with a key
 * `toolkit image-security keygen --type ecdsa-p256` made (both storage formats) and `cosign
 * verify` accepts them with toolkit's public key; toolkit reads a `cosign generate-key-pair` key
 * and its signatures pass `cosign verify-blob`.
 */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { commandContext } from "../../cli/context.ts";
import { bufferedIO } from "../../cli/io.ts";
import { readCosignPrivateKey } from "../../lib/signing/cosign_keys.ts";
import { e2eSkipReason, pushTestImage, startCosign, startRegistry } from "../env/mod.ts";

const ignore = e2eSkipReason(["docker-registry", "cosign", "skopeo"]) !== undefined;

Deno.test({
  name: "cosign signs with a key toolkit made, in both formats",
  ignore,
  fn: async () => {
    await using registry = await startRegistry();
    await using cosign = await startCosign();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-cosign-keys-" });
    try {
      const io = bufferedIO({ cwd: dir, env: { COSIGN_PASSWORD: "toolkit pw" } });
      const status = await runCli(
        ["image-security", "keygen", "--type", "ecdsa-p256"],
        commandContext(io),
      );
      assert.equal(status, 0, io.err());
      for (const format of ["bundle", "legacy"] as const) {
        const image = `${registry.host}/keys/${format}`;
        const digest = await pushTestImage(`${image}:1`, { content: format });
        await cosign.sign(`${image}@${digest}`, {
          key: `${dir}/cosign.key`,
          password: "toolkit pw",
          format,
        });
        const verified = await cosign.verify(`${image}@${digest}`, {
          publicKeyFile: `${dir}/cosign.pub`,
        });
        assert.equal(verified.code, 0, verified.stderr);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "toolkit signs with cosign's own cosign.key and cosign verify-blob accepts it",
  ignore: e2eSkipReason(["cosign"]) !== undefined,
  fn: async () => {
    await using cosign = await startCosign();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-cosign-keys-" });
    try {
      const keys = await cosign.generateKeyPair(dir, "cosign pw");
      const signer = await readCosignPrivateKey(
        await Deno.readFile(keys.privateKeyFile),
        keys.password,
      );
      assert.equal(signer.publicKeyPem, await Deno.readTextFile(keys.publicKeyFile));
      const blob = new TextEncoder().encode("a blob toolkit signs\n");
      await Deno.writeFile(`${dir}/blob`, blob);
      const signature = await signer.sign(blob);
      await Deno.writeTextFile(`${dir}/blob.sig`, signature.toBase64());
      const verified = await cosign.run([
        "verify-blob",
        "--key",
        keys.publicKeyFile,
        "--signature",
        `${dir}/blob.sig`,
        "--insecure-ignore-tlog",
        `${dir}/blob`,
      ]);
      assert.equal(verified.code, 0, verified.stderr);
      assert.match(verified.stderr, /Verified OK/);
      await assert.rejects(readCosignPrivateKey(await Deno.readFile(keys.privateKeyFile), "wrong"));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
