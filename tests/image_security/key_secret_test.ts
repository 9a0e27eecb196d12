/** `toolkit image-security key-secret` against the real API server. */
import assert from "node:assert/strict";
import { runCli } from "../../cli/app.ts";
import { bufferedIO } from "../../cli/io.ts";
import { e2eSkipReason, startCluster } from "../env/mod.ts";
import { generateKeyPair } from "../../lib/signing/mod.ts";
import { readPublicKeys } from "../../lib/signature/mod.ts";
import { commandContext } from "../../cli/context.ts";

Deno.test({
  name: "image-security key-secret creates the key Secret, idempotently, and refuses private keys",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    await using cluster = await startCluster();
    const dir = await Deno.makeTempDir({ prefix: "toolkit-key-secret-" });
    const pair = await generateKeyPair({ name: "Signer", type: "ed25519" });
    await Deno.writeTextFile(`${dir}/pub.asc`, pair.publicKeyArmored);
    await Deno.writeTextFile(`${dir}/key.asc`, pair.privateKeyArmored);
    const toolkit = async (args: string[]) => {
      const io = bufferedIO({ cwd: dir, env: { KUBECONFIG: cluster.kubeconfigPath } });
      const status = await runCli(["image-security", "key-secret", ...args], commandContext(io));
      return { status, out: io.out(), err: io.err() };
    };
    try {
      await t.step("--dry-run prints the Secret without touching the cluster", async () => {
        const r = await toolkit([
          "signer",
          "--key",
          "pub.asc",
          "--dry-run",
          "-o",
          "json",
          "-n",
          "x",
        ]);
        assert.equal(r.status, 0, r.err);
        const secret = JSON.parse(r.out);
        assert.equal(secret.metadata.namespace, "x");
        const keys = await readPublicKeys(atob(secret.data.key));
        assert.equal(keys[0]?.getFingerprint().toUpperCase(), pair.fingerprint);
      });
      await t.step("creates the Secret, then reports it unchanged", async () => {
        const first = await toolkit(["signer", "--key", "pub.asc"]);
        assert.equal(first.status, 0, first.err);
        assert.match(first.err, /Secret "default\/signer" created with 1 key/);
        const got = await cluster.kubectl([
          "get",
          "secret",
          "signer",
          "-o",
          "jsonpath={.data.key}",
        ]);
        assert.match(atob(got.stdout), /BEGIN PGP PUBLIC KEY BLOCK/);
        const again = await toolkit(["signer", "--key", "pub.asc"]);
        assert.match(again.err, /unchanged/);
      });
      await t.step("refuses a private key and an unknown namespace", async () => {
        const priv = await toolkit(["signer2", "--key", "key.asc"]);
        assert.equal(priv.status, 2);
        assert.match(priv.err, /private/i);
        const ns = await toolkit(["signer", "--key", "pub.asc", "-n", "nowhere"]);
        assert.equal(ns.status, 1);
        assert.match(ns.err, /nowhere/);
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
